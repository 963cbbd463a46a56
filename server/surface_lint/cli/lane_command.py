"""`surface-lint lane test FILE...` (every predicate's documented examples, as a test would) and
`surface-lint lane schema [--config]` (the JSON Schema of lane files, or of the config)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from ..engine.lanetest import lane_test_lines
from ..reporters.outputs import printable
from ..rules.loader import DEFAULT_PROFILE, PROFILES

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="surface-lint lane", description="Work on lane files.")
    verbs = p.add_subparsers(dest="verb", required=True, metavar="{test,schema}")
    test = verbs.add_parser("test", help="run every predicate's example_pass and example_fail; exit 1 if one "
                            "does not give its stated verdict")
    test.add_argument("files", nargs="+", type=Path, metavar="FILE", help="lane TOML files")
    test.add_argument("--profile", choices=PROFILES, default=DEFAULT_PROFILE,
                      help=f"the verdict profile the examples are judged in (default: {DEFAULT_PROFILE})")
    schema = verbs.add_parser("schema", help="print the JSON Schema of lane files (or, with --config, of "
                              "surface-lint.toml)")
    schema.add_argument("--config", action="store_true", help="the schema of surface-lint.toml / [tool.surface-lint]")
    return p


def run_lane_command(argv: Sequence[str]) -> int:
    args = _parser().parse_args(argv)
    if args.verb == "schema":
        from ..reporters.jsonschema import config_schema_text, lane_schema_text

        sys.stdout.write(config_schema_text() if args.config else lane_schema_text())
        return EXIT_OK
    kinds: set[str] = set()
    for line, kind in lane_test_lines(list(args.files), args.profile):
        kinds.add(kind)
        print(printable(line), file=sys.stderr if kind == "error" else sys.stdout)
    return EXIT_USAGE if "error" in kinds else EXIT_FAILED if "failed" in kinds else EXIT_OK
