"""Config files: every key type-checked at file:line:column, unknown keys with a did-you-mean,
`[severity]` keys (codes, names, aliases) honoured by the CLI through the one resolver."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import LANE, cli, write_turns

from surface_lint.engine import Engine
from surface_lint.engine.config import resolve_severity
from surface_lint.model.findings import Severity
from surface_lint.model.severity import ALIASES, LEVELS, normalize_level

TURNS = [
    {"case_id": "c3", "surface": "Lamp three gives light", "grounding_source": "none"},
    {"case_id": "c1", "surface": "It is listed as a.b; c.d; e.f today.", "grounding_source": "none"},
]
SL103 = ("t.jsonl:1:52: SL103 [warning] complete_punctuation: the surface ends with `t`, not terminal "
         "punctuation (`.` `?` `!` `;`)\n")
SL105_INFO = "t.jsonl:2:47: SL105 [information] no_dotted_inventory: dotted-path inventory `a.b; c.d; e.f` in the surface\n"
SL105_ERROR = "t.jsonl:2:47: SL105 [error] no_dotted_inventory: dotted-path inventory `a.b; c.d; e.f` in the surface\n"
COUNTS = "2 lines read: 2 records, 0 errors, 0 blank, 0 skipped.\n"
# `check` names the lane it read the file as, and why (last line).
CHECK_LANE = "lane deterministic_fluency, chosen by default: nothing in the path or the fields names a lane\n"
KNOWN = "(known: cases, default-lane, lane-files, max-line-bytes, profile, severity, thresholds)"


def check_with(tmp_path: Path, name: str, config: str) -> tuple[int, str, str]:
    write_turns(tmp_path / "t.jsonl", TURNS)
    (tmp_path / name).write_text(config, "utf-8")
    run = cli("check", "t.jsonl", cwd=tmp_path)
    return run.code, run.out, run.err


def test_without_config_both_findings_show(tmp_path: Path) -> None:
    write_turns(tmp_path / "t.jsonl", TURNS)
    run = cli("check", "t.jsonl", cwd=tmp_path)
    assert (run.code, run.out) == (1, SL103 + SL105_INFO + "Found 2 finding(s) (1 information, 1 warning) in 1 "
                                   "file(s); profile: contract.\n" + COUNTS + CHECK_LANE)


@pytest.mark.parametrize("key", ["SL103", "sl103", "complete_punctuation", '"SL103"'])
def test_severity_off_by_code_or_name_is_honoured_by_check(tmp_path: Path, key: str) -> None:
    code, out, err = check_with(tmp_path, "surface-lint.toml", f'[severity]\n{key} = "off"\n')
    assert (code, out, err) == (0, SL105_INFO + "Found 1 finding(s) (1 information) in 1 file(s); profile: contract.\n"
                                + COUNTS + CHECK_LANE, "")


def test_severity_by_alias_and_level_alias_in_pyproject(tmp_path: Path) -> None:
    config = ('[project]\nname = "x"\n[tool.surface-lint.severity]\nno_dotted_domain_inventory = "ERR"\n'
              'SL103 = " Info "\n')
    code, out, _ = check_with(tmp_path, "pyproject.toml", config)
    assert code == 1
    assert out == (SL103.replace("[warning]", "[information]") + SL105_ERROR
                   + "Found 2 finding(s) (1 error, 1 information) in 1 file(s); profile: contract.\n" + COUNTS + CHECK_LANE)


def test_severity_is_honoured_by_lane_scoring_output(tmp_path: Path) -> None:
    write_turns(tmp_path / "t.jsonl", TURNS)
    (tmp_path / "surface-lint.toml").write_text('[severity]\nSL103 = "off"\nSL105 = "off"\n', "utf-8")
    run = cli("--lane", LANE, "--transcripts", "t.jsonl", cwd=tmp_path)
    # The verdicts and metrics do not change; the findings listed do.
    assert run.out.splitlines()[-4:] == ["result: FAIL", "failing cases: 2",
                                         "  … 2 more with no finding reported (a severity set off)", COUNTS.rstrip("\n")]


CONFIG_ERRORS = [
    ('profil = "contract"\n', f"1:1: unknown setting `profil` (did you mean `profile`?) {KNOWN}"),
    ('\n\n  lanefiles = []\n', f"3:3: unknown setting `lanefiles` (did you mean `lane-files`?) {KNOWN}"),
    ("tool = 3\n", f"1:1: unknown setting `tool` {KNOWN}"),
    ("profile = 3\n", "1:1: `profile` must be a string (one of contract, reference), not an integer"),
    ('profile = "fast"\n', "1:1: `profile` must be one of contract, reference, not 'fast'"),
    ('lane-files = "x.toml"\n', "1:1: `lane-files` must be an array of paths (strings), not a string"),
    ('lane-files = ["a.toml", 2]\n', "1:1: `lane-files` must be an array of paths (strings), not an array holding an integer"),
    ("default-lane = []\n", "1:1: `default-lane` must be a lane name (a string), not an array"),
    ("max-line-bytes = true\n", "1:1: `max-line-bytes` must be an integer >= 1024, not a boolean"),
    ("max-line-bytes = 10\n", "1:1: `max-line-bytes` must be an integer >= 1024, not 10"),
    ("max-line-bytes = 1e9\n", "1:1: `max-line-bytes` must be an integer >= 1024, not a float"),
    ("cases = [1]\n", "1:1: `cases` must be an array of globs (strings), not an array holding an integer"),
    ("thresholds = 3\n", "1:1: `thresholds` must be a table of lane = threshold-set name, not an integer"),
    ("[thresholds]\ndeterministic_fluency = 1\n",
     "2:1: `thresholds.deterministic_fluency` must be a threshold-set name (a string), not an integer"),
    ('severity = "off"\n', "1:1: `severity` must be a table of predicate = level, not a string"),
    ("[severity]\nSL103 = 3\n", "2:1: severity of `SL103` must be one of error, warning, information, hint, off"),
    ('[severity]\nSL103 = "loud"\n', "2:1: severity of `SL103` must be one of error, warning, information, hint, off"),
    ('[severity]\nSL1O3 = "off"\n', "2:1: severity key `SL1O3` names no predicate of the loaded lanes (did you mean `SL103`?)"),
    ('[severity]\n  complete_punctuations = "off"\n',
     "2:3: severity key `complete_punctuations` names no predicate of the loaded lanes (did you mean `complete_punctuation`?)"),
    ('[severity]\nSL012 = "off"\n',
     "2:1: severity key `SL012`: SL012 (unknown-field) is a file check, not a predicate; its severity is fixed"),
    ('severity.zzz = "off"\n', "1:1: severity key `zzz` names no predicate of the loaded lanes"),
    ("[tool]\nsurface-lint = 3\n", "2:1: `tool.surface-lint` must be a table, not an integer"),
    ('[tool.surface-lint]\nprofile = "x"\n', "2:1: `profile` must be one of contract, reference, not 'x'"),
    ('profile = "contract"\nprofile = "x"\n', "2:14: invalid TOML: Cannot overwrite a value (at line 2, column 14)"),
]


@pytest.mark.parametrize(("config", "message"), CONFIG_ERRORS)
def test_config_errors_are_exit_2_at_file_line_column(tmp_path: Path, config: str, message: str) -> None:
    code, out, err = check_with(tmp_path, "surface-lint.toml", config)
    assert (code, out, err) == (2, "", f"surface-lint: config error: {tmp_path / 'surface-lint.toml'}:{message}\n")


PYPROJECT_ERRORS = [
    ("[tool]\nsurface-lint = 3\n", "2:1: `tool.surface-lint` must be a table, not an integer"),
    ('[tool.surface-lint]\nseverity = ["x"]\n', "2:1: `severity` must be a table of predicate = level, not an array"),
    ('[tool.surface-lint]\nprofile = "contract"\n\n[tool.surface-lint.severity]\nSL999 = "off"\n',
     "5:1: severity key `SL999` names no predicate of the loaded lanes"),
]


@pytest.mark.parametrize(("config", "message"), PYPROJECT_ERRORS)
def test_pyproject_errors_are_exit_2_at_file_line_column(tmp_path: Path, config: str, message: str) -> None:
    code, out, err = check_with(tmp_path, "pyproject.toml", config)
    assert (code, out, err) == (2, "", f"surface-lint: config error: {tmp_path / 'pyproject.toml'}:{message}\n")


def test_a_pyproject_whose_tool_is_not_a_table_is_not_ours_unless_named(tmp_path: Path) -> None:
    code, _, err = check_with(tmp_path, "pyproject.toml", "tool = 3\n")
    assert (code, err) == (1, "")  # found on the way up, it has no [tool.surface-lint]: the defaults apply
    run = cli("check", "t.jsonl", "--config", "pyproject.toml", cwd=tmp_path)
    assert (run.code, run.err) == (2, "surface-lint: config error: pyproject.toml:1:1: `tool` must be a table, "
                                   "not an integer\n")


def test_a_config_path_that_is_missing_or_a_folder(tmp_path: Path) -> None:
    write_turns(tmp_path / "t.jsonl", TURNS)
    (tmp_path / "cfg").mkdir()
    run = cli("check", "t.jsonl", "--config", "none.toml", cwd=tmp_path)
    assert (run.code, run.err) == (2, "surface-lint: config error: none.toml:1: cannot read config: No such file or "
                                   "directory\n")
    run = cli("check", "t.jsonl", "--config", "cfg", cwd=tmp_path)
    assert (run.code, run.err) == (2, "surface-lint: config error: cfg:1: cannot read config: is a folder\n")


def test_the_resolver_maps_codes_names_and_aliases_and_later_keys_win() -> None:
    lanes = Engine().lane_set.lanes.values()
    table = resolve_severity({"SL103": "off", "complete_punctuation": "hint", "no_dotted_domain_inventory": "warn",
                              "sl101": "Error", "nope": "off", "SL104": "loud"}, lanes)
    assert table.levels == {"complete_punctuation": "hint", "no_dotted_inventory": "warning",
                            "no_placeholder": "error"}
    assert [(p.key, p.message) for p in table.problems] == [
        ("nope", "severity key `nope` names no predicate of the loaded lanes"),
        ("SL104", "severity of `SL104` must be one of error, warning, information, hint, off"),
    ]


def test_the_severity_levels_table_is_the_one_python_uses() -> None:
    data = json.loads((Path(__file__).resolve().parents[2] / "server" / "surface_lint" / "model" / "severity_levels.json")
                      .read_text("utf-8"))
    assert data["levels"] == ["error", "warning", "information", "hint", "off"]
    assert data["aliases"] == {"err": "error", "warn": "warning", "info": "information"}
    assert (LEVELS, ALIASES) == (tuple(data["levels"]), data["aliases"])
    assert [m.label for m in sorted(Severity, reverse=True)] == ["error", "warning", "information", "hint"]
    assert [Severity.parse(a).label for a in ("err", "warn", "info")] == ["error", "warning", "information"]
    assert [normalize_level(v) for v in (" WARN ", "off", "loud", 3, None)] == ["warning", "off", None, None, None]


def test_severity_problems_point_at_the_key_in_the_file_or_at_settings(tmp_path: Path) -> None:
    from surface_lint.engine.config import Config, load_config

    path = tmp_path / "surface-lint.toml"
    path.write_text('profile = "contract"\n\n[severity]\n   SL1O3 = "off"\n', "utf-8")
    config = load_config(path)
    # An editor merges its own keys in; they are not in the file.
    merged = Engine(Config(**{**config.__dict__, "severity": {**config.severity, "nope": "off"}}))
    assert [str(e) for e in merged.severity_errors] == [
        f"{path}:4:4: severity key `SL1O3` names no predicate of the loaded lanes (did you mean `SL103`?)",
        "<settings>:1:1: severity key `nope` names no predicate of the loaded lanes",
    ]


@pytest.mark.parametrize(("name", "hint"), [("SL1O3", " (did you mean `SL103`?)"),
                                            ("complete_punctuatio", " (did you mean `complete_punctuation`?)"),
                                            ("invalid_json", " (did you mean `invalid-json`?)"),
                                            ("zzzz", "")])
def test_rule_with_an_unknown_name_suggests_the_closest(name: str, hint: str) -> None:
    run = cli("rule", name)
    assert (run.code, run.out, run.err) == (2, "", f"surface-lint: error: no predicate or check named {name!r}{hint}\n")


def test_a_config_file_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    code, out, err = check_with(tmp_path, "surface-lint.toml", '\ufeff[severity]\nSL103 = "off"\n')
    assert (code, err) == (0, "")
    assert out == SL105_INFO + "Found 1 finding(s) (1 information) in 1 file(s); profile: contract.\n" + COUNTS + CHECK_LANE
