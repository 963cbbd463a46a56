"""`surface-lint`: the command line. Translates arguments to engine calls; renders results.

Exit codes: 0 clean / lane passed, 1 findings or a failed threshold, 2 usage, config or
unreadable input. Never imports pygls (start-up time): `server` imports it lazily.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .config import Config, ConfigError, find_config, load_config
from .engine import Engine, UsageError
from .findings import Severity, sorted_findings
from .lanes import DEFAULT_PROFILE, PROFILES
from .sources.base import ReadStats

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
SUBCOMMANDS = ("check", "rule", "server", "lanes")


def _common(p: argparse.ArgumentParser, formats: Sequence[str]) -> None:
    p.add_argument("--profile", choices=PROFILES, help=f"verdict profile (default: config or {DEFAULT_PROFILE})")
    p.add_argument("--config", type=Path, help="config file (default: nearest surface-lint.toml / pyproject.toml)")
    p.add_argument("--output-format", default="text", choices=sorted(formats), help="output format")
    p.add_argument("-o", "--output", type=Path, help="write the output to this file")
    p.add_argument("--lane-file", action="append", default=[], type=Path, help="an extra lane TOML")
    p.add_argument("--colour", "--color", choices=("auto", "always", "never"), default="auto")


def _lane_parser(formats: Sequence[str]) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="surface-lint",
        description="Score a lane: join captured transcripts to cases, compute the lane's metrics, "
        "check its thresholds. Subcommands: check, rule, lanes, server.",
    )
    p.add_argument("--version", action="version", version=f"surface-lint {__version__}")
    p.add_argument("--lane", help="lane name (deterministic_fluency, multi_sentence_response, symbolic_logic, ...)")
    p.add_argument("--cases", nargs="+", default=[], metavar="PATH", help="case files (JSONL)")
    p.add_argument("--transcripts", nargs="+", default=[], metavar="PATH",
                   help="turn JSONL, lane report JSON or telemetry JSONL")
    p.add_argument("--split", choices=("dev", "public", "holdouts"), help="find evals/<lane>/<split>/... itself")
    p.add_argument("--version-dir", "--split-version", dest="split_version", metavar="vN",
                   help="with --split: the version folder (default: the newest)")
    p.add_argument("--thresholds", help="threshold set (e.g. v1, pre_gloss, post_gloss)")
    p.add_argument("--show", type=int, default=20, help="failing cases listed with positions in text output")
    _common(p, formats)
    return p


def _check_parser(formats: Sequence[str]) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="surface-lint check", description="List findings in case files and transcripts.")
    p.add_argument("paths", nargs="+", type=Path)
    p.add_argument("--lane", help="lane for every file (default: detected per file)")
    p.add_argument("--kind", choices=("cases", "turns", "report", "telemetry"), help="file shape (default: detected)")
    p.add_argument("--cases", nargs="+", default=[], metavar="PATH", help="case files to join transcripts to")
    p.add_argument("--fail-on", choices=("error", "warning", "information", "hint"), default="warning",
                   help="lowest severity that makes the exit code 1 (default: warning)")
    _common(p, formats)
    return p


def _rule_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="surface-lint rule", description="Explain a predicate or check.")
    p.add_argument("name", nargs="?", help="predicate name, alias or code (SL103)")
    p.add_argument("--all", action="store_true", help="every predicate and check")
    p.add_argument("--format", choices=("text", "markdown-table", "json"), default="text")
    p.add_argument("--profile", choices=PROFILES)
    p.add_argument("--config", type=Path)
    p.add_argument("--lane-file", action="append", default=[], type=Path)
    return p


def _server_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="surface-lint server", description="Start the language server (stdio).")
    p.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    return p


def _config(args: argparse.Namespace, anchor: Path) -> Config:
    path = args.config if getattr(args, "config", None) else find_config(anchor.resolve())
    cfg = load_config(path)
    cfg.lane_files = [*cfg.lane_files, *getattr(args, "lane_file", [])]
    return cfg


def _engine(args: argparse.Namespace, anchor: Path) -> Engine:
    cfg = _config(args, anchor)
    engine = Engine(cfg, args.profile or cfg.profile)
    if engine.lane_errors:
        raise ConfigError(engine.lane_errors[0].path, engine.lane_errors[0].line, engine.lane_errors[0].message)
    return engine


def _colour(args: argparse.Namespace) -> bool:
    if args.colour == "always":
        return True
    if args.colour == "never" or args.output or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


def _emit(args: argparse.Namespace, text: str) -> None:
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


def find_split(lane: str, split: str, version: str | None, start: Path) -> Path:
    """`evals/<lane>/<split>[/<version>]/cases.jsonl`, searching upward from `start`."""
    for folder in [start, *start.parents]:
        root = folder / "evals" / lane
        if not root.is_dir():
            continue
        if split == "dev":
            candidate = root / "dev" / "cases.jsonl"
        else:
            base = root / split
            if not base.is_dir() and split == "holdouts":
                base = root / "holdout"
            if version is None:
                versions = sorted((p.name for p in base.glob("v*") if p.is_dir()),
                                  key=lambda v: (len(v), v))
                if not versions:
                    raise UsageError(f"{base}: no version folders")
                version = versions[-1]
            candidate = base / version / "cases.jsonl"
        if candidate.is_file():
            return candidate
        raise UsageError(f"{candidate}: no such case file")
    raise UsageError(f"no evals/{lane}/ folder at or above {start}")


def run_lane(argv: Sequence[str]) -> int:
    from .reporters import LANE_FORMATS

    args = _lane_parser(list(LANE_FORMATS)).parse_args(argv)
    if not args.lane and not args.cases and not args.transcripts:
        raise UsageError("nothing to do: give --lane NAME with --cases/--transcripts (or a subcommand: check, rule, lanes, server)")
    engine = _engine(args, Path.cwd())
    cases = list(args.cases)
    if args.split:
        if not args.lane:
            raise UsageError("--split needs --lane")
        cases.append(str(find_split(args.lane, args.split, args.split_version, Path.cwd())))
    if not args.transcripts:
        raise UsageError("no transcripts: give --transcripts PATH ...")
    want_details = args.output_format != "text"
    result = engine.score(args.lane, cases, args.transcripts, args.thresholds, want_details,
                          None if want_details else args.show)
    _emit(args, LANE_FORMATS[args.output_format](result, _colour(args)))
    return EXIT_FAIL if result.passed is False else EXIT_OK


def run_check(argv: Sequence[str]) -> int:
    from .reporters import CHECK_FORMATS, CheckRun

    args = _check_parser(list(CHECK_FORMATS)).parse_args(argv)
    engine = _engine(args, args.paths[0] if args.paths else Path.cwd())
    index = None
    if args.cases:
        _, index = engine.load_cases(args.cases, engine.lane(args.lane) if args.lane else None)
    findings = []
    stats = ReadStats()
    files = []
    for path in _expand(args.paths):
        data = engine.read_bytes(str(path))
        result = engine.check_bytes(str(path), data, args.kind, args.lane, index)
        findings.extend(result.findings)
        stats.add(result.stats)
        files.append(str(path))
    findings = sorted_findings(findings)
    run = CheckRun(findings, engine.profile, files, stats.lines, stats.records, stats.errors,
                   stats.blank, stats.skipped)
    _emit(args, CHECK_FORMATS[args.output_format](run, _colour(args)))
    threshold = Severity.parse(args.fail_on)
    return EXIT_FAIL if any(f.severity >= threshold for f in findings) else EXIT_OK


def _expand(paths: Sequence[Path]) -> list[Path]:
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out.extend(sorted(p for p in path.rglob("*") if p.suffix in (".jsonl", ".json") and p.is_file()))
        else:
            out.append(path)
    return out


def run_rule(argv: Sequence[str]) -> int:
    from .docs import render_rule, render_rules_table, rules_json

    args = _rule_parser().parse_args(argv)
    engine = _engine(args, Path.cwd())
    if args.format == "markdown-table":
        sys.stdout.write(render_rules_table(engine))
        return EXIT_OK
    if args.format == "json":
        sys.stdout.write(rules_json(engine))
        return EXIT_OK
    if args.all or not args.name:
        sys.stdout.write(render_rule(engine, None))
        return EXIT_OK
    text = render_rule(engine, args.name)
    if not text:
        raise UsageError(f"no predicate or check named {args.name!r}")
    sys.stdout.write(text)
    return EXIT_OK


def run_lanes(argv: Sequence[str]) -> int:
    args = argparse.ArgumentParser(prog="surface-lint lanes").parse_args(argv)
    del args
    engine = Engine(load_config(find_config(Path.cwd())))
    for name, lane in sorted(engine.lane_set.lanes.items()):
        sets = ", ".join(sorted(lane.thresholds)) or "none"
        print(f"{name} {lane.version}  headline {lane.headline}  thresholds: {sets}  ({lane.path})")
    for err in engine.lane_errors:
        print(f"error: {err}", file=sys.stderr)
    return EXIT_USAGE if engine.lane_errors else EXIT_OK


def run_server(argv: Sequence[str]) -> int:
    args = _server_parser().parse_args(argv)
    from .lsp import start

    start(args.tcp)
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in SUBCOMMANDS:
            command, rest = argv[0], argv[1:]
            return {"check": run_check, "rule": run_rule, "server": run_server, "lanes": run_lanes}[command](rest)
        return run_lane(argv)
    except UsageError as exc:
        print(f"surface-lint: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ConfigError as exc:
        print(f"surface-lint: config error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except Exception:  # an internal error must never look like a failed threshold (exit 1)
        import traceback

        traceback.print_exc()
        print("surface-lint: internal error (a bug: please report it with the traceback above)", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
