"""`surface-lint`: the command line. Translates arguments to engine calls; renders results.

Exit codes: 0 clean / lane passed, 1 findings or a failed threshold, 2 usage, config or
unreadable input. Never imports pygls (start-up time): `server` imports it lazily.
"""

from __future__ import annotations

import argparse
import io
import os
import stat
import sys
from collections.abc import Callable, Sequence

from .. import __version__
from ..model.errors import UsageError
from ..model.formats import DIFF_OUTPUT_FORMATS, OUTPUT_FORMATS
from ..rules.profiles import DEFAULT_PROFILE, PROFILES
from .signals import Interrupted, signals_end_the_run

# The parsers (and so `--help`) need only the names above; the engine, the lanes and the
# reporters are imported by the command that runs (start-up time: docs/performance.md).
TYPE_CHECKING = False  # typing's constant without importing typing (mypy reads the name)
if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from pathlib import Path
    from typing import TextIO

    from ..engine import Engine, LaneResult
    from ..engine.config import Config, Selection
    from ..engine.lanechoice import LaneChoice
    from ..engine.views import ShownCases
    from ..reporters import RenderOptions
    from ..reporters.common import LaneChoices
    from .progress import Progress

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
# The reader closed the output early (`| head`): 128 + SIGPIPE, what a shell reports for grep there.
EXIT_BROKEN_PIPE = 141
SUBCOMMANDS = ("check", "rule", "server", "lanes", "lane", "diff")
# Folders `check <folder>` does not search (tool state, dependencies); name one to check it.
SKIPPED_FOLDERS = ("node_modules", "__pycache__")
DEFAULT_TCP_HOST = "127.0.0.1"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")  # where `server --tcp` may listen


def _path(text: str) -> Path:
    """`type=` of a path argument: pathlib is imported when a path is given, not for `--help`."""
    from pathlib import Path

    return Path(text)


def printable(text: str) -> str:
    """The one escaping of data in messages (reporters/common.py), imported when a message is printed."""
    from ..reporters.outputs import printable as escape

    return escape(text)


def _common(p: argparse.ArgumentParser, formats: Sequence[str]) -> None:
    p.add_argument("--profile", choices=PROFILES, help=f"verdict profile (default: config or {DEFAULT_PROFILE})")
    p.add_argument("--config", type=_path, help="config file (default: nearest surface-lint.toml / pyproject.toml)")
    p.add_argument("--output-format", default="text", choices=sorted(formats), help="output format")
    p.add_argument("-o", "--output", type=_path, help="write the output to this file")
    p.add_argument("--lane-file", action="append", default=[], type=_path, help="an extra lane TOML")
    p.add_argument("--colour", "--color", choices=("auto", "always", "never"), default="auto")


def _ruff_options(p: argparse.ArgumentParser, select: bool) -> None:
    """What ruff users reach for: statistics, --exit-zero, --watch, stdin, --show-settings."""
    if select:
        p.add_argument("--select", action="append", default=None, metavar="CODES",
                       help="report only these codes (codes, predicate names, aliases, prefixes like SL1; ALL); "
                       "with --lane the metrics, thresholds and exit code still count every finding")
        p.add_argument("--extend-select", action="append", default=[], metavar="CODES",
                       help="add codes to --select")
        p.add_argument("--ignore", action="append", default=[], metavar="CODES", help="never report these codes")
    p.add_argument("--statistics", action="store_true",
                   help="text: one row per code with its count instead of every finding (check), below the cases (--lane)")
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when a threshold failed or a finding was reported")
    p.add_argument("--show-settings", action="store_true",
                   help="print the config file, lane(s) and profile the run would use, and why; run nothing")
    p.add_argument("--stdin-filename", metavar="NAME",
                   help="the name stdin is read as (`-` given as a path); default `-`")
    p.add_argument("--watch", action="store_true",
                   help="run again whenever an input, a lane file or the config changes (screen cleared)")
    p.add_argument("--watch-runs", type=int, default=None, help=argparse.SUPPRESS)  # tests: stop after N runs


def _lane_parser(formats: Sequence[str]) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="surface-lint",
        description="Score a lane: join captured transcripts to cases, compute the lane's metrics, "
        "check its thresholds. Subcommands: check, diff, rule, lanes, lane (test, schema), server.",
    )
    # Alone, `--version` prints the tool's version; with a value (`--split public --version v1`)
    # it names the split's version folder, as the command line spells it.
    p.add_argument("--version", nargs="?", const=True, default=None, metavar="vN",
                   help="with --split: the version folder (default: the newest); alone: print surface-lint's version")
    p.add_argument("--lane", help="lane name (deterministic_fluency, multi_sentence_response, symbolic_logic, ...)")
    p.add_argument("--cases", nargs="+", default=[], metavar="PATH", help="case files (JSONL)")
    p.add_argument("--transcripts", nargs="+", default=[], metavar="PATH",
                   help="turn JSONL, lane report JSON or telemetry JSONL")
    p.add_argument("--split", choices=("dev", "public", "holdouts"), help="find evals/<lane>/<split>/... itself")
    p.add_argument("--version-dir", "--split-version", dest="split_version", metavar="vN", default=None,
                   help="with --split: the version folder (default: the newest)")
    p.add_argument("--thresholds", help="threshold set (e.g. v1, pre_gloss, post_gloss)")
    p.add_argument("--show", type=int, default=20, help="failing cases listed with positions in text output")
    p.add_argument("--baseline", type=_path, metavar="FILE",
                   help="a previous `--output-format json` run: fail when a metric falls below it")
    p.add_argument("--baseline-tolerance", type=float, default=0.0, metavar="X",
                   help="how far a metric may fall below the baseline (default 0)")
    p.add_argument("--update-baseline", action="store_true", help="write this run to the --baseline FILE")
    p.add_argument("--split-name", metavar="NAME", help="the split named in the JSON report (default: --split's)")
    p.add_argument("--timestamp", type=_timestamp, metavar="ISO-8601",
                   help="the run's time in the JSON report, as given (never read from a clock)")
    _common(p, formats)
    _ci_options(p, jobs=True)
    _ruff_options(p, select=True)
    return p


def _timestamp(text: str) -> str:
    """`--timestamp`: an ISO 8601 date-time with its offset (`2026-12-01T00:00:00+00:00`), kept as written."""
    import datetime

    try:
        when = datetime.datetime.fromisoformat(text)
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not an ISO 8601 date-time with an offset "
                                         "(for example 2026-12-01T00:00:00+00:00)")
    return text


def _ci_options(p: argparse.ArgumentParser, jobs: bool) -> None:
    p.add_argument("--annotation-limit", type=int, default=50, metavar="N",
                   help="github format: print at most N annotations, most severe first (default 50)")
    p.add_argument("--github-summary", action="store_true",
                   help="also append the Markdown summary to $GITHUB_STEP_SUMMARY (kept under 1 MiB)")
    if jobs:
        p.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                       help="read files in N processes (0: one per CPU); the output is the same")


def _check_parser(formats: Sequence[str]) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="surface-lint check", description="List findings in case files and transcripts.")
    p.add_argument("paths", nargs="+", type=_path)
    p.add_argument("--lane", help="lane for every file (default: detected per file)")
    p.add_argument("--kind", choices=("cases", "turns", "report", "telemetry"), help="file shape (default: detected)")
    p.add_argument("--cases", nargs="+", default=[], metavar="PATH", help="case files to join transcripts to")
    p.add_argument("--fail-on", choices=("error", "warning", "information", "hint"), default="warning",
                   help="lowest severity that makes the exit code 1 (default: warning)")
    _common(p, formats)
    _ci_options(p, jobs=True)
    _ruff_options(p, select=True)
    return p


def _diff_parser(formats: Sequence[str]) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="surface-lint diff",
        description="Compare two runs of one lane (transcripts or lane reports): metric deltas, flipped "
        "verdicts, new and vanished cases. Exit 1 when a metric or a predicate regressed.")
    p.add_argument("old", type=_path, help="the earlier run")
    p.add_argument("new", type=_path, help="the later run")
    p.add_argument("--lane", help="lane name (default: detected from OLD)")
    p.add_argument("--cases", nargs="+", default=[], metavar="PATH", help="case files to join both runs to")
    p.add_argument("--thresholds", help="threshold set that says which way each metric is better")
    _common(p, formats)
    _ci_options(p, jobs=False)
    return p


def _rule_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="surface-lint rule", description="Explain a predicate or check.")
    p.add_argument("name", nargs="?", help="predicate name, alias or code (SL103)")
    p.add_argument("--all", action="store_true", help="every predicate and check")
    p.add_argument("--kinds", action="store_true",
                   help="the reference of every predicate kind: parameters, types, defaults, an executed example")
    p.add_argument("--format", choices=("text", "markdown-table", "json"), default="text")
    p.add_argument("--profile", choices=PROFILES)
    p.add_argument("--config", type=_path)
    p.add_argument("--lane-file", action="append", default=[], type=_path)
    return p


def _server_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="surface-lint server", description="Start the language server (stdio).")
    p.add_argument("--tcp", metavar="HOST:PORT",
                   help="listen on TCP (loopback) instead of stdio; port 0: a free port, printed on stderr")
    p.add_argument("--token-file", metavar="PATH", type=_path,
                   help="with --tcp: the token clients must give (else SURFACE_LINT_TOKEN, else a new one, printed)")
    return p


def _config(args: argparse.Namespace, anchor: Path) -> Config:
    from ..engine.config import find_config, load_config

    path = args.config if getattr(args, "config", None) else find_config(_absolute(anchor))
    cfg = load_config(path)
    cfg.lane_files = [*cfg.lane_files, *getattr(args, "lane_file", [])]
    return cfg


def _absolute(path: Path) -> Path:
    """`path` resolved; a symbolic-link loop resolves no further (Python 3.11 raises on it)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        from pathlib import Path

        return Path(os.path.abspath(path))


def _engine(args: argparse.Namespace, anchor: Path) -> Engine:
    from ..engine import Engine
    from ..engine.config import ConfigError

    cfg = _config(args, anchor)
    engine = Engine(cfg, args.profile or cfg.profile)
    if engine.lane_errors:
        err = engine.lane_errors[0]
        raise ConfigError(err.path, err.line, err.message, err.column)
    if engine.severity_errors:
        raise engine.severity_errors[0]
    return engine


def _rules_inputs(engine: Engine) -> list[str]:
    """The config file and lane files a run read: inputs too, never to be written over."""
    config = engine.config
    return [*([str(config.path)] if config.path else []), *(str(p) for p in config.lane_files)]


def _colour(args: argparse.Namespace) -> bool:
    if args.colour == "always":
        return True
    if args.colour == "never" or args.output or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


def _output(args: argparse.Namespace, inputs: Sequence[str]) -> AbstractContextManager[TextIO]:
    """The one place the run's output stream is opened (`-o FILE` or stdout): atomic, never an input."""
    from ..reporters.outputs import open_output

    return open_output(args.output, inputs)


def _emit(args: argparse.Namespace, write: Callable[[TextIO], None], inputs: Sequence[str]) -> None:
    """The output streamed to its place: reporters write as the rows come, nothing is held."""
    with _output(args, inputs) as out:
        write(out)


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


def run_lane(argv: Sequence[str], seen: list[str] | None = None) -> int:
    args = _lane_parser(OUTPUT_FORMATS).parse_args(argv)
    from pathlib import Path

    if args.watch:
        return _watch(run_lane, argv, args.watch_runs)
    if args.version is True:
        print(f"surface-lint {__version__}")
        return EXIT_OK
    if isinstance(args.version, str):
        if args.split_version is not None and args.split_version != args.version:
            raise UsageError("--version and --version-dir name different version folders")
        args.split_version = args.version
        if not args.split:
            raise UsageError("--version vN names a split's version folder: use it with --split")
    if not args.lane and not args.cases and not args.transcripts:
        raise UsageError("nothing to do: give --lane NAME with --cases/--transcripts (or a subcommand: check, diff, rule, lanes, lane, server)")
    from dataclasses import replace

    from ..engine.casework import load_casework
    from ..reporters import LANE_WRITERS, TEXT_FORMATS
    from ..reporters.outputs import refuse_input
    from .lanes import only_reports, refuse_without_cases, run_choice

    engine = _engine(args, Path.cwd())
    cases = _unique_paths(args.cases)
    if args.split:
        if not args.lane:
            raise UsageError("--split needs --lane")
        cases = _unique_paths([*cases, str(find_split(args.lane, args.split, args.split_version, Path.cwd()))])
    if not args.transcripts:
        raise UsageError("no transcripts: give --transcripts PATH ...")
    texts = _stdin_texts(args, [*args.cases, *args.transcripts])
    transcripts = _unique_paths([args.stdin_filename or "-" if t == "-" else t for t in args.transcripts])
    cases = [args.stdin_filename or "-" if c == "-" else c for c in cases]
    if seen is not None:
        seen.extend([*cases, *transcripts, *_rules_inputs(engine)])
    hold_streams([p for p in [*cases, *transcripts] if p not in texts], engine.config.max_line_bytes)
    choice = run_choice(engine, args.lane, cases, transcripts, texts)
    selection = _selection(args, engine)
    if args.show_settings:
        return _show_settings(args, engine, [(choice, ())], selection)
    if not cases and load_casework(engine.lane(choice.lane)) is None and not only_reports(engine, transcripts, texts):
        refuse_without_cases(engine.lane(choice.lane))
    if args.update_baseline and not args.baseline:
        raise UsageError("--update-baseline needs --baseline FILE")
    if args.show < 0:
        raise UsageError(f"--show must be 0 or more, not {args.show}")
    if args.baseline:
        from ..engine.baseline import check_tolerance

        check_tolerance(args.baseline_tolerance)
    inputs = [*cases, *transcripts, *_rules_inputs(engine)]
    # Refused before any work: an output naming an input, the baseline rewritten over an input.
    refuse_input(args.output, [*inputs, *([str(args.baseline)] if args.baseline else [])])
    if args.update_baseline:
        refuse_input(args.baseline, inputs, "--update-baseline")
    # The summary and the baseline file need every case's details, whatever is printed.
    # (SARIF and GitHub annotations read only the findings; JUnit and HTML list each case's findings.)
    want_details = (args.output_format not in (*TEXT_FORMATS, "sarif", "github") or args.github_summary
                    or args.update_baseline)
    jobs = _jobs(args)
    given = _selection_given(args)
    whole_rows = bool(args.github_summary or args.baseline or args.update_baseline)
    # Markdown and HTML count every case and show a few: rows made only for those (views.ShownCases),
    # unless findings are selected (which are shown is known later) or the summary or baseline reads every case.
    shown_cases: type[ShownCases] | None = None
    if args.output_format in ("markdown", "html") and given is None and not whole_rows:
        from ..engine.views import HtmlCases, MarkdownCases

        shown_cases = MarkdownCases if args.output_format == "markdown" else HtmlCases
    with _progress(len(transcripts)) as progress:
        result = engine.score(choice.lane, cases, transcripts, args.thresholds, want_details,
                              # Text lists the positions of the first `--show` failing cases only
                              # (of every case under --select/--ignore: which are shown is known later).
                              args.show if args.output_format in TEXT_FORMATS and given is None else None,
                              texts=texts,
                              mapper=process_mapper(jobs), progress=progress.advance,
                              row_findings=args.output_format in ("junit", "html"),
                              # The JSON report reads a case's id, failed names and details; the
                              # summary and the baseline read every case's outcome.
                              light_rows=args.output_format == "json" and not whole_rows,
                              # A JSON Lines case line reads its id, details, failed names and their severities.
                              status_rows=args.output_format == "json-lines" and not whole_rows,
                              shown=shown_cases)
    split = args.split_name or args.split
    if split is not None or args.timestamp is not None:
        result = replace(result, split=split, timestamp=args.timestamp)
    options = replace(_options(args, engine, result.lane), lanes=((choice, ()),), texts=texts,
                      statistics=args.statistics)
    baseline_ok = True
    if args.baseline:
        from ..engine.baseline import BaselineUnreadable, check_baseline

        report = None
        try:
            report = check_baseline(args.baseline, result, engine.lane(result.lane), args.baseline_tolerance)
        except BaselineUnreadable as exc:
            if not args.update_baseline:
                raise
            # Updating replaces what is there: a broken baseline is the case that most needs it.
            if exc.exists:
                print(f"surface-lint: warning: {printable(str(exc))}; --update-baseline replaces it", file=sys.stderr)
        if report is not None:
            sys.stderr.write(report.render_text())
            options = replace(options, baseline=report)
            baseline_ok = report.passed or args.update_baseline
    shown = result
    if given is not None:  # the findings shown; verdicts, metrics, thresholds and the exit code stay the lane's
        from ..reporters.common import select_findings

        shown, chosen = select_findings(result, selection, given)
        options = replace(options, findings_filter=chosen)
    _emit(args, lambda out: LANE_WRITERS[args.output_format](shown, options, out), inputs)
    if args.github_summary:
        from ..reporters import markdown

        _github_summary(lambda o, out: markdown.write_lane(shown, o, out), options, inputs)
    if args.update_baseline:
        write_baseline(args.baseline, result, inputs, options.lanes)
        print(f"surface-lint: wrote the baseline {printable(str(args.baseline))}", file=sys.stderr)
    failed = result.passed is False or not baseline_ok
    return EXIT_FAIL if failed and not args.exit_zero else EXIT_OK


def run_check(argv: Sequence[str], seen: list[str] | None = None) -> int:
    args = _check_parser(OUTPUT_FORMATS).parse_args(argv)
    from dataclasses import replace
    from pathlib import Path

    from ..engine.spool import Spool
    from ..model.findings import Finding, Severity
    from ..reporters import CHECK_WRITERS, CheckRun
    from ..reporters.outputs import refuse_input
    from .lanes import cases_choice, check_choices

    if args.watch:
        return _watch(run_check, argv, args.watch_runs)
    stdin_name = args.stdin_filename or "-"
    texts = _stdin_texts(args, [str(p) for p in args.paths])
    files = [*([stdin_name] if texts else []), *check_paths([p for p in args.paths if str(p) != "-"], args.kind, bool(texts))]
    cases = _unique_paths(args.cases)
    engine = _engine(args, Path(stdin_name) if texts else args.paths[0] if args.paths else Path.cwd())
    inputs = [*files, *cases, *_rules_inputs(engine)]
    if seen is not None:
        seen.extend([*(str(p) for p in args.paths if str(p) != "-"), *cases, *_rules_inputs(engine)])
    refuse_input(args.output, [i for i in inputs if i not in texts])
    hold_streams([c for c in cases if c not in texts], engine.config.max_line_bytes)
    selection = _selection(args, engine)
    runs, lanes = check_choices(engine, args.lane, cases, files, args.kind, texts)
    lane_of = {f: name for name, fs in runs for f in fs}
    # The case index is read as the cases' lane (every file joined to it is checked as that lane).
    lane_name = args.lane or (cases_choice(engine, cases, texts).lane if cases else None)
    if args.show_settings:
        return _show_settings(args, engine, lanes, selection)
    index = None
    if cases:
        _, index = engine.load_cases(cases, engine.lane(lane_name) if lane_name else None)
    from .parallel import check_files

    threshold = Severity.parse(args.fail_on)
    # Findings are sorted on disk as they come (memory stays flat); the exit code is tracked here.
    findings: Spool[Finding] = Spool(key=Finding.sort_key)
    failing = False

    def sink(f: Finding) -> None:
        nonlocal failing
        if not selection.allows(f.code):
            return
        findings.append(f)
        failing = failing or f.severity >= threshold

    from ..sources.base import ReadStats

    stats = ReadStats()
    with _progress(sum(1 for f in files if f not in texts)) as progress:
        for run_lane_name, run_files in runs:
            on_disk = [f for f in run_files if f not in texts]
            if on_disk:
                stats.add(check_files(engine, index, cases, on_disk, args.kind, run_lane_name, _jobs(args),
                                      progress.advance, sink))
    for name, data in texts.items():  # stdin: checked from its bytes, as the editor checks a buffer
        doc = engine.check_bytes(name, data, args.kind, lane_of.get(name), index)
        for f in doc.findings:
            sink(f)
        stats.add(doc.stats)
    run = CheckRun(findings, engine.profile, files, stats.lines, stats.records, stats.errors,
                   stats.blank, stats.skipped)
    options = replace(_options(args, engine, None), lanes=tuple((c, tuple(fs)) for c, fs in lanes), texts=texts,
                      statistics=args.statistics)
    _emit(args, lambda out: CHECK_WRITERS[args.output_format](run, options, out), inputs)
    if args.github_summary:
        from ..reporters import markdown

        _github_summary(lambda o, out: markdown.write_check(run, o, out), options, inputs)
    return EXIT_FAIL if failing and not args.exit_zero else EXIT_OK


def _selection(args: argparse.Namespace, engine: Engine) -> Selection:
    """`--select/--extend-select/--ignore` resolved (ruff's rule, keys as `[severity]` keys); exit 2 on an unknown key."""
    from ..engine.config import resolve_selection

    try:
        return resolve_selection(args.select, args.extend_select, args.ignore, engine.lane_set.lanes.values())
    except ValueError as exc:
        raise UsageError(f"--select/--ignore: {exc}") from None


def _selection_given(args: argparse.Namespace) -> str | None:
    """The selection flags as given (`--select SL1 --ignore SL103`), None when none was."""
    given = [(flag, keys) for flag, keys in (("--select", args.select), ("--extend-select", args.extend_select),
                                             ("--ignore", args.ignore)) if keys]
    return " ".join(f"{flag} {','.join(keys)}" for flag, keys in given) or None


def _stdin_texts(args: argparse.Namespace, given: Sequence[str]) -> dict[str, bytes]:
    """`-` among the paths: stdin's bytes under `--stdin-filename` (default `-`), read once."""
    dashes = sum(1 for g in given if str(g) == "-")
    if not dashes:
        if args.stdin_filename:
            raise UsageError("--stdin-filename names stdin: give `-` as a path too")
        return {}
    if dashes > 1:
        raise UsageError("`-` (stdin) is given twice; it can be read once")
    return {args.stdin_filename or "-": sys.stdin.buffer.read()}


def _watch(run: Callable[[Sequence[str], list[str]], int], argv: Sequence[str], runs: int | None) -> int:
    """`--watch`: the same command (without --watch) now and after each change of what it read."""
    from .watch import watch, without_watch

    once = without_watch(argv)
    if "-" in once:
        raise UsageError("--watch cannot re-read stdin (`-`): name the files")

    def one(seen: list[str]) -> int:
        from ..engine.config import ConfigError

        try:
            return run(once, seen)
        except (UsageError, ConfigError) as exc:  # reported, and watched for a fix
            print(f"surface-lint: error: {printable(str(exc))}", file=sys.stderr)
            return EXIT_USAGE

    return watch(one, runs)


def _show_settings(args: argparse.Namespace, engine: Engine, lanes: Sequence[tuple[object, Sequence[str]]],
                   selection: object | None = None) -> int:
    """`--show-settings`: which config file, which lane(s), which profile, and why; nothing is run."""
    from ..reporters.common import lane_notes

    config = engine.config
    if args.config:
        where = f"{config.path} (--config)"
    elif config.path:
        where = f"{config.path} (the nearest at or above the input)"
    else:
        where = "none (no surface-lint.toml or pyproject.toml [tool.surface-lint] at or above the input: built-in defaults)"
    if args.profile:
        profile = f"{engine.profile} (--profile)"
    elif config.path and engine.profile != DEFAULT_PROFILE:
        profile = f"{engine.profile} (the config's `profile`)"
    else:
        profile = f"{engine.profile} (the default: neither --profile nor the config names another)"
    rows = [f"config: {where}", f"profile: {profile}", *lane_notes(lanes, sum(len(fs) for _, fs in lanes))]
    for _choice, files in lanes:
        rows += [f"  {f}" for f in files]
    rows.append("lane files: " + (", ".join(str(p) for p in config.lane_files) or "none beyond the shipped lanes"))
    if config.severity:
        rows.append("severity: " + ", ".join(f"{k} = {v}" for k, v in config.severity.items()))
    selected = getattr(selection, "selected", None)
    ignored: frozenset[str] = getattr(selection, "ignored", frozenset())
    if selection is not None:
        rows.append("select: " + ("every code" if selected is None else ", ".join(sorted(selected))))
        rows.append("ignore: " + (", ".join(sorted(ignored)) or "nothing"))
    sys.stdout.write("".join(printable(r) + "\n" for r in rows))
    return EXIT_OK


def run_diff(argv: Sequence[str]) -> int:
    args = _diff_parser(DIFF_OUTPUT_FORMATS).parse_args(argv)
    from dataclasses import replace
    from pathlib import Path

    from ..engine.diff import diff_results
    from ..reporters import DIFF_WRITERS
    from ..reporters.outputs import refuse_input
    from .lanes import run_choice

    old_path, new_path = str(args.old), str(args.new)
    cases = _unique_paths(args.cases)
    engine = _engine(args, Path.cwd())
    inputs = [old_path, new_path, *cases, *_rules_inputs(engine)]
    refuse_input(args.output, inputs)
    hold_streams([old_path, new_path, *cases], engine.config.max_line_bytes)
    declared = {path: _report_lane(engine, path) for path in (old_path, new_path)}
    # Without --lane each run's lane is its own (the cases', a report's `lane`, the path, the fields),
    # chosen as a `--lane` run's is, so two lanes are seen; every output names them and why.
    chosen = {path: run_choice(engine, args.lane, cases, [path]) for path in (old_path, new_path)}
    old = _diff_run(engine, chosen[old_path].lane, declared[old_path], cases, old_path, args.thresholds)
    new = _diff_run(engine, chosen[new_path].lane, declared[new_path], cases, new_path, args.thresholds)
    for path, result in ((old_path, old), (new_path, new)):
        if declared[path] is not None and declared[path] != result.lane:
            raise UsageError(f"{path} is a lane report of {declared[path]}; it cannot be compared as a run of "
                             f"{result.lane}")
    if new.lane != old.lane:
        raise UsageError(f"{old_path} is a run of {old.lane} but {new_path} one of {new.lane}: "
                         "diff compares two runs of one lane")
    lane = engine.lane(new.lane)
    diff = diff_results(old, new, lane, old_path, new_path)
    options = replace(_options(args, engine, new.lane), lanes=_diff_lanes(chosen))
    _emit(args, lambda out: DIFF_WRITERS[args.output_format](diff, options, out), inputs)
    if args.github_summary:
        _github_summary(lambda o, out: DIFF_WRITERS["markdown"](diff, o, out), options, inputs)
    return EXIT_FAIL if diff.regressed else EXIT_OK


def _diff_lanes(chosen: dict[str, LaneChoice]) -> tuple[tuple[LaneChoice, tuple[str, ...]], ...]:
    """Each lane choice of a diff with the runs it was chosen for: one line when both runs' lane was
    chosen alike (`--lane`, the cases), else one per run."""
    grouped: dict[LaneChoice, list[str]] = {}
    for path, choice in chosen.items():
        grouped.setdefault(choice, []).append(path)
    return tuple((c, tuple(paths)) for c, paths in grouped.items())


def _diff_run(engine: Engine, lane_name: str | None, declared: str | None, cases: Sequence[str], path: str,
              thresholds: str | None) -> LaneResult:
    """One run `diff` compares: scored by the engine, except a lane report of a case-driven lane
    (its cases are judged from captures, which a report does not hold): read back as it is."""
    if declared is not None and lane_name == declared:
        from ..engine.casework import checked_predicates
        from ..engine.diff import is_case_driven, report_result
        from ..model.jsonread import loads

        lane = engine.lane(declared)
        if is_case_driven(lane):
            try:
                whole = loads(engine.read_bytes(path).decode("utf-8-sig"))
            except (UnicodeDecodeError, ValueError, RecursionError):
                whole = None  # _report_lane read it a moment ago: changed since, scored as it is now
            # A runner's report of a lane whose values name checks is scored: each entry's checks
            # judged again from its raw fields, its findings at their fields (SARIF anchors them).
            runner = isinstance(whole, dict) and "failed_predicates" not in whole \
                and bool(checked_predicates(lane.casework))
            if isinstance(whole, dict) and not runner:
                return report_result(lane, path, whole)
    return engine.score(lane_name, cases, [path], thresholds, True, None)


def _report_lane(engine: Engine, path: str) -> str | None:
    """The `lane` a lane report names itself (None for transcripts and reports without one)."""
    from ..model.jsonread import loads
    from ..sources.lintable import HEAD_BYTES
    from ..sources.streams import open_input
    from ..sources.transcripts import sniff

    try:
        with open_input(path) as fh:
            head = fh.read(HEAD_BYTES)
        if sniff(head)[0] != "report":
            return None
        whole = loads(engine.read_bytes(path).decode("utf-8-sig"))
    except (OSError, UsageError, ValueError, RecursionError):
        return None  # unreadable or broken: scoring has already said so, or reports it as findings
    lane = whole.get("lane") if isinstance(whole, dict) else None
    return lane if isinstance(lane, str) else None


def process_mapper(jobs: int) -> Callable[..., list[object]] | None:
    """Worker processes for `--jobs N` (N > 1): the engine is given them, it starts none itself."""
    if jobs <= 1:
        return None
    from .parallel import ProcessMapper

    return ProcessMapper(jobs)


def _jobs(args: argparse.Namespace) -> int:
    from .parallel import job_count

    try:
        return job_count(args.jobs)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _progress(total: int) -> Progress:
    from .progress import Progress

    return Progress(total)


def _options(args: argparse.Namespace, engine: Engine, lane: str | None) -> RenderOptions:
    from ..reporters.options import lane_options

    if args.annotation_limit < 0:
        raise UsageError("--annotation-limit must be 0 or more")
    return lane_options(engine, lane, colour=_colour(args), annotation_limit=args.annotation_limit,
                        show=getattr(args, "show", 20))


def _github_summary(write: Callable[[RenderOptions, TextIO], None], options: RenderOptions,
                    inputs: Sequence[str]) -> None:
    """Append Markdown to $GITHUB_STEP_SUMMARY, within what is left of GitHub's 1 MiB per step.

    Written like every output: the old content and the new in a temporary file, renamed over it."""
    from dataclasses import replace

    from ..reporters import STEP_SUMMARY_LIMIT
    from ..reporters.outputs import open_output

    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        print("surface-lint: warning: --github-summary: GITHUB_STEP_SUMMARY is not set; no summary written",
              file=sys.stderr)
        return
    try:
        used = os.stat(target).st_size
    except FileNotFoundError:
        used = 0
    except OSError as exc:
        raise UsageError(f"GITHUB_STEP_SUMMARY {target}: cannot write: {exc.strerror}") from None
    with open_output(target, inputs, "GITHUB_STEP_SUMMARY", append=True) as out:
        write(replace(options, colour=False, byte_limit=max(0, STEP_SUMMARY_LIMIT - used)), out)


def _unique_paths(paths: Sequence[str | Path]) -> list[str]:
    """Paths in order, each file once however it is spelt (`a`, `./a`, a link to it)."""
    from ..sources.paths import unique_paths

    return unique_paths([str(p) for p in paths])


def _stat_given(path: Path) -> os.stat_result:
    """A path named on the command line, or a UsageError saying why it cannot be read."""
    try:
        return os.stat(path)
    except FileNotFoundError as exc:
        dangling = f" (a symbolic link to {os.readlink(path)})" if os.path.islink(path) else ""
        raise UsageError(f"{path}: cannot read: {exc.strerror}{dangling}") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror}") from None


def check_paths(paths: Sequence[Path], kind: str | None, stdin: bool = False) -> list[str]:
    """The files `check` reads: each named file, and under each folder the case files, transcripts
    and lane reports (decided as the editor decides: `document_kind`); each file once, in order."""
    from pathlib import Path

    from ..sources.base import DEFAULT_MAX_LINE_BYTES
    from ..sources.lintable import HEAD_BYTES, document_kind, may_be_lintable
    from ..sources.paths import walk

    found: list[str] = []
    for path in paths:
        st = _stat_given(path)
        if not stat.S_ISDIR(st.st_mode) and not stat.S_ISREG(st.st_mode):
            hold_streams([str(path)], DEFAULT_MAX_LINE_BYTES)  # read once, here: the kind sniff reads its copy
        if not stat.S_ISDIR(st.st_mode):
            if kind is None and _kind_of(path, HEAD_BYTES) is None:
                print(f"surface-lint: warning: {printable(str(path))}: not a case file, transcript or lane report; skipped "
                      "(give --kind to read it anyway)", file=sys.stderr)
                continue
            found.append(str(path))
            continue
        for folder, subfolders, names in walk(path, onerror=_walk_error):  # any depth: an explicit stack
            # Not descended: hidden folders (.git, .venv), dependencies; sorted for a stable order.
            subfolders[:] = sorted(d for d in subfolders if not d.startswith(".") and d not in SKIPPED_FOLDERS)
            for name in sorted(names):
                member = str(Path(folder, name))  # as Path spells it: `evals/t.jsonl`, not `./evals/t.jsonl`
                if not may_be_lintable(member):
                    continue
                if _not_regular(member):  # a FIFO in a folder would block its reader: named files only
                    print(f"surface-lint: warning: {printable(str(member))}: skipped: not a regular file "
                          "(name it to read it as a stream)", file=sys.stderr)
                    continue
                try:
                    with open(member, "rb") as fh:
                        head = fh.read(HEAD_BYTES)
                except OSError as exc:
                    dangling = f" (a symbolic link to {os.readlink(member)})" if os.path.islink(member) else ""
                    print(f"surface-lint: warning: {printable(str(member))}: skipped: {exc.strerror}{dangling}", file=sys.stderr)
                    continue
                if document_kind(member, head) is not None:
                    found.append(member)
    files = _unique_paths(found)
    if not files and not stdin:
        named = ", ".join(str(p) for p in paths)
        raise UsageError(f"nothing to check: no case file, transcript or lane report in {named}")
    return files


def _not_regular(path: str) -> bool:
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False  # a dangling link: its open says why


def hold_streams(paths: Sequence[str], max_line_bytes: int) -> None:
    """Inputs that are streams (a FIFO, /dev/stdin, `<(...)`, a device) read once into scratch
    copies that every later open reads (sources/streams.py); one that never ends stops at its
    first line over `max_line_bytes` (SL010 at that line), a device after its first 64 MiB,
    each with a warning here."""
    from ..engine.spool import scratch_writes
    from ..sources.streams import StreamReadError, hold_stream, is_stream

    for path in paths:
        try:
            if not is_stream(path):
                continue
        except OSError:
            continue  # its reader says why
        with scratch_writes():
            try:
                stopped = hold_stream(path, max_line_bytes)
            except StreamReadError as exc:
                raise UsageError(f"{path}: cannot read: {exc.strerror}") from None
        if stopped is not None:
            print(f"surface-lint: warning: {printable(path)}: {stopped}", file=sys.stderr)


def _kind_of(path: Path, head_bytes: int) -> str | None:
    from ..sources.lintable import document_kind
    from ..sources.streams import open_input

    try:
        with open_input(str(path)) as fh:
            head = fh.read(head_bytes)
    except IsADirectoryError:
        raise UsageError(f"{path}: is a folder") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror}") from None
    return document_kind(str(path), head)


def _walk_error(exc: OSError) -> None:
    print(f"surface-lint: warning: {printable(str(exc.filename))}: skipped: {exc.strerror}", file=sys.stderr)


def run_rule(argv: Sequence[str]) -> int:
    args = _rule_parser().parse_args(argv)
    from pathlib import Path

    from ..reporters.docs import render_rule, render_rules_table, rules_json

    engine = _engine(args, Path.cwd())
    if args.kinds:
        from ..reporters.docs import reference_markdown

        sys.stdout.write(reference_markdown())
        return EXIT_OK
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
        from ..engine.config import did_you_mean
        from ..model.checks import CHECKS

        known = [n for c in CHECKS.values() for n in (c.code, c.name)]
        known += [n for lane in engine.lane_set.lanes.values() for p in lane.predicates
                  for n in (p.code, p.name, *p.aliases)]
        raise UsageError(f"no predicate or check named {args.name!r}{did_you_mean(args.name, known)}")
    sys.stdout.write(text)
    return EXIT_OK


def run_lanes(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="surface-lint lanes", description="List the lanes (shipped and --lane-file).")
    parser.add_argument("--lane-file", action="append", default=[], type=_path, help="an extra lane TOML")
    parser.add_argument("--config", type=_path)
    args = parser.parse_args(argv)
    from pathlib import Path

    from ..engine import Engine
    from ..rules.loader import threshold_lines

    engine = Engine(_config(args, Path.cwd()))
    for name, lane in sorted(engine.lane_set.lanes.items()):
        sets = ", ".join(sorted(lane.thresholds)) or "none"
        print(f"{name} {lane.version}  headline {lane.headline}  thresholds: {sets}  ({lane.path})")
        for line in threshold_lines(lane):
            print(line)
    for err in engine.lane_errors:
        print(f"error: {printable(str(err))}", file=sys.stderr)
    return EXIT_USAGE if engine.lane_errors else EXIT_OK


def parse_tcp(value: str) -> tuple[str, int]:
    """`HOST:PORT`, `:PORT` (127.0.0.1) or `[::1]:PORT` -> (host, port) on loopback, `localhost`
    as 127.0.0.1 (one socket); port 0 asks the system for a free port. UsageError otherwise."""
    host, colon, port_text = value.rpartition(":")
    if not colon:
        raise UsageError(f"--tcp {value}: give HOST:PORT (for example 127.0.0.1:2087, or 127.0.0.1:0 for any free port)")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    host = host or DEFAULT_TCP_HOST
    if host not in LOOPBACK_HOSTS:
        raise UsageError(f"--tcp {value}: the server listens on loopback only (127.0.0.1, localhost or ::1)")
    if not port_text.isdigit() or not port_text.isascii():
        raise UsageError(f"--tcp {value}: the port must be a number from 0 to 65535 (0: any free port), "
                         f"not {port_text!r}")
    port = int(port_text)
    if port > 65535:
        raise UsageError(f"--tcp {value}: the port must be a number from 0 to 65535 (0: any free port), not {port}")
    return (DEFAULT_TCP_HOST if host == "localhost" else host), port


def write_baseline(path: Path, result: LaneResult, inputs: Sequence[str] = (),
                   lanes: LaneChoices = ()) -> None:
    """`--update-baseline`: the run's `--output-format json`, atomically like every output (a kill
    mid-write leaves the old baseline whole). Here, not in baseline.py: writing a report is a
    reporter's job, and the comparison (baseline.py) sits below the reporters."""
    from ..reporters.json_format import write_lane
    from ..reporters.outputs import open_output

    with open_output(path, inputs, "--update-baseline") as out:  # streamed: the cases are not held
        write_lane(result, out, lanes)


# The language server's `start`, loaded on demand: given to `main` by the package's entry point
# (surface_lint/__main__.py), so that the command line never imports the language server.
StartServer = Callable[[tuple[str, int] | None, "Path | None"], None]  # (address, token file)
LoadServer = Callable[[], StartServer]


def run_server(argv: Sequence[str], load_server: LoadServer | None = None) -> int:
    args = _server_parser().parse_args(argv)
    address = parse_tcp(args.tcp) if args.tcp is not None else None
    if load_server is None:
        raise UsageError("the language server is started by the `surface-lint` command (surface_lint.__main__)")
    try:
        start = load_server()
    except ModuleNotFoundError as exc:  # the `lsp` extra is not installed
        raise UsageError(
            f"the language server needs pygls and lsprotocol ({exc}); install them with: "
            "pip install 'surface-lint[lsp]'"
        ) from None

    if address is None:
        start(None, args.token_file)
        return EXIT_OK
    host, port = address
    try:
        start(address, args.token_file)
    except OSError as exc:  # the port is taken, the host does not resolve, no permission
        reason = exc.strerror or str(exc)
        raise UsageError(f"--tcp {args.tcp}: cannot listen on {host}:{port}: {reason}") from None
    return EXIT_OK


def main(argv: Sequence[str] | None = None, load_server: LoadServer | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if isinstance(sys.stdout, io.TextIOWrapper):
        # Text that cannot be encoded (an unpaired surrogate) is escaped, as in `-o` files.
        sys.stdout.reconfigure(errors="backslashreplace")
    try:
        if argv and argv[0] in SUBCOMMANDS:
            command, rest = argv[0], argv[1:]
            if command == "server":
                return run_server(rest, load_server)
            with signals_end_the_run():
                if command == "lane":
                    from .lane_command import run_lane_command

                    return run_lane_command(rest)
                return {"check": run_check, "rule": run_rule, "lanes": run_lanes, "diff": run_diff}[command](rest)
        with signals_end_the_run():
            return run_lane(argv)
    except Interrupted as exc:  # SIGTERM, SIGHUP: what was being written is removed, the old output whole
        return 128 + exc.signum
    except UsageError as exc:
        print(f"surface-lint: error: {printable(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        return _failed(exc)
    finally:
        # The copies of streams read (their scratch files): none unless the module that holds them was used.
        streams = sys.modules.get("surface_lint.sources.streams")
        if streams is not None:
            streams.release_streams()


def _failed(exc: Exception) -> int:
    """The exit code of a run that raised `exc` (a config or scratch error, a closed pipe, a bug),
    its message printed. The engine's error types are imported here: a run that raised one has them."""
    from ..engine.config import ConfigError
    from ..engine.spool import ScratchError, scratch_error

    if isinstance(exc, ConfigError):
        print(f"surface-lint: config error: {printable(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    if isinstance(exc, ScratchError):
        print(f"surface-lint: error: {printable(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    if isinstance(exc, BrokenPipeError):
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    # An internal error must never look like a failed threshold (exit 1). A scratch database's
    # fault (its folder full or read-only) is the machine's, not a bug.
    fault = None if isinstance(exc, OSError) else scratch_error(exc)
    if fault is not None:
        print(f"surface-lint: error: {printable(str(fault))}", file=sys.stderr)
        return EXIT_USAGE
    import traceback

    traceback.print_exc()
    print("surface-lint: internal error (a bug: please report it with the traceback above)", file=sys.stderr)
    return EXIT_USAGE


def _silence_stdout() -> None:
    """Point stdout at the null device so flushing it at shutdown raises no second BrokenPipeError
    (the recipe of the Python docs, "Note on SIGPIPE")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass  # stdout is no file descriptor (a test's StringIO): nothing is flushed at shutdown


if __name__ == "__main__":
    sys.exit(main())
