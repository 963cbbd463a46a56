"""Case-file checks (SL001-SL007, SL012): schema, predicate names, duplicates, holdout leaks,
expected_proposals; exact positions, related locations and fixes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_support import assert_counts, check, ft, fts, write

from surface_lint.engine import Engine
from surface_lint.model.findings import Finding

FLU = "deterministic_fluency"
MSR = "multi_sentence_response"
SYM = "symbolic_logic"
P = "cases.jsonl"


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


def case_findings(engine: Engine, lines: list[str], lane: str) -> list[Finding]:
    result = check(lines, path=P, engine=engine, kind="cases", lane_name=lane)
    assert result.kind == "cases" and result.lane == lane
    assert_counts(result.stats)
    return result.findings


def fix_of(f: Finding) -> tuple[str, int, int, int, int, str]:
    (fix,) = f.fixes
    loc = fix.location
    return (fix.title, loc.line, loc.column, loc.end_line, loc.end_column, fix.replacement)


# --- SL001 invalid JSON --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "column", "message"),
    [
        ('{"id": "c1", "prompt": "What is truth?",}', 41, "invalid JSON: Expecting property name enclosed in double quotes"),
        ('{"id": "c1" "prompt": "What is truth?"}', 13, "invalid JSON: Expecting ',' delimiter"),
        ('{"id": "c1", "prompt": "What is \\x truth?"}', 33, "invalid JSON: Invalid \\escape"),
        ('{"id": "c1", "prompt": tru}', 24, "invalid JSON: Expecting value"),
    ],
)
def test_sl001_points_at_the_character_where_parsing_stopped(engine: Engine, line: str, column: int,
                                                             message: str) -> None:
    good = '{"id": "c2", "prompt": "What is light?", "expected_predicates": []}'
    result = check([good, line, good.replace("c2", "c3")], path=P, engine=engine, kind="cases", lane_name=FLU)
    assert fts(result.findings) == [(P, 2, column, 2, column + 1, "SL001", "error", message)]
    assert (result.stats.lines, result.stats.records, result.stats.errors) == (3, 2, 1)
    assert [r.id for r in result.records] == ["c2", "c3"]


# --- SL002 missing / SL003 mistyped fields, per lane schema --------------------------------


def test_sl002_every_missing_required_field_of_the_fluency_schema(engine: Engine) -> None:
    assert fts(case_findings(engine, ['{"id": "c1"}'], FLU)) == [
        (P, 1, 1, 1, 13, "SL002", "error",
         "missing required field `expected_predicates` (an array of strings) for lane deterministic_fluency"),
        (P, 1, 1, 1, 13, "SL002", "error", "missing required field `prompt` (a string) for lane deterministic_fluency"),
    ]


def test_sl002_symbolic_schema(engine: Engine) -> None:
    line = '{"id": "S1", "premises": ["Actually truth is wisdom."], "probe": "What is truth?"}'
    assert fts(case_findings(engine, [line], SYM)) == [
        (P, 1, 1, 1, 83, "SL002", "error",
         "missing required field `expected_proposals` (an integer) for lane symbolic_logic"),
        (P, 1, 1, 1, 83, "SL002", "error", "missing required field `min_vault_hits` (an integer) for lane symbolic_logic"),
    ]


def test_sl002_missing_id_is_reported_and_the_record_is_not_a_case(engine: Engine) -> None:
    line = '{"prompt": "Explain truth."}'
    result = check([line], path=P, engine=engine, kind="cases", lane_name=MSR)
    assert fts(result.findings) == [
        (P, 1, 1, 1, 29, "SL002", "error", "missing required field `id` (a string) for lane multi_sentence_response"),
    ]
    assert result.records == []


@pytest.mark.parametrize(
    ("lane", "line", "value", "message"),
    [
        (FLU, '{"id": "c1", "prompt": "What is truth?", "expected_predicates": "no_placeholder"}',
         '"no_placeholder"', "`expected_predicates` must be an array of strings, not a string"),
        (FLU, '{"id": "c1", "prompt": ["What is truth?"], "expected_predicates": []}',
         '["What is truth?"]', "`prompt` must be a string, not an array"),
        (MSR, '{"id": "m1", "prompt": "Explain truth.", "expects_connective": "yes"}',
         '"yes"', "`expects_connective` must be a boolean, not a string"),
        (MSR, '{"id": "m1", "prompt": "Explain truth.", "priming_prompts": ["What is truth?", 3]}',
         '["What is truth?", 3]', "`priming_prompts` must be an array of strings, not an array"),
        (SYM, '{"id": "S1", "premises": [], "probe": "What?", "expected_proposals": true, "min_vault_hits": 1}',
         "true", "`expected_proposals` must be an integer, not a boolean"),
        (SYM, '{"id": "S1", "premises": [], "probe": "What?", "expected_proposals": 0, "min_vault_hits": 1.5}',
         "1.5", "`min_vault_hits` must be an integer, not a number"),
        (SYM, '{"id": 7, "premises": [], "probe": "What?", "expected_proposals": 0, "min_vault_hits": 1}',
         "7", "`id` must be a string, not a number"),
    ],
)
def test_sl003_points_at_the_mistyped_value(engine: Engine, lane: str, line: str, value: str, message: str) -> None:
    start = line.index(value) + 1
    found = case_findings(engine, [line], lane)
    assert fts(found) == [(P, 1, start, 1, start + len(value), "SL003", "error", message)]


# --- SL004 unknown predicate names -----------------------------------------------------------


def test_sl004_unknown_name_with_the_closest_name_as_fix(engine: Engine) -> None:
    line = (
        '{"id": "c1", "prompt": "What is truth?", '
        '"expected_predicates": ["no_placeholders", "complete_punctuation"], '
        '"post_gloss_predicates": ["no_dotted_domain_inventory", "no_dotted_inventory", "zzz"]}'
    )
    found = case_findings(engine, [line], FLU)
    first = line.index('"no_placeholders"') + 1
    zzz = line.index('"zzz"') + 1
    assert fts(found) == [
        (P, 1, first, 1, first + 17, "SL004", "error",
         "unknown predicate `no_placeholders` for lane deterministic_fluency; did you mean `no_placeholder`?"),
        (P, 1, zzz, 1, zzz + 5, "SL004", "error", "unknown predicate `zzz` for lane deterministic_fluency"),
    ]
    assert fix_of(found[0]) == ("Replace with `no_placeholder`", 1, first, 1, first + 17, '"no_placeholder"')
    assert found[1].fixes == ()


@pytest.mark.parametrize("name", ["no_dotted_inventory", "no_dotted_domain_inventory"])
def test_sl004_accepts_both_names_of_the_dotted_inventory_predicate(engine: Engine, name: str) -> None:
    line = json.dumps({"id": "c1", "prompt": "What is truth?", "expected_predicates": [name]})
    assert case_findings(engine, [line], FLU) == []


def test_sl004_fix_for_the_contracts_misspelt_alias(engine: Engine) -> None:
    line = '{"id": "c1", "prompt": "What is truth?", "expected_predicates": ["no_dotted_domain_inventroy"]}'
    (found,) = case_findings(engine, [line], FLU)
    assert found.code == "SL004"
    assert fix_of(found)[-1] == '"no_dotted_domain_inventory"'


# --- SL012 unknown field ---------------------------------------------------------------------


def test_sl012_points_at_the_key_with_a_hint(engine: Engine) -> None:
    line = '{"id": "m1", "prompt": "Explain truth.", "expect_connective": true, "notes": "x"}'
    key = line.index('"expect_connective"') + 1
    notes = line.index('"notes"') + 1
    assert fts(case_findings(engine, [line], MSR)) == [
        (P, 1, key, 1, key + 19, "SL012", "information",
         "unknown field `expect_connective` for lane multi_sentence_response; did you mean `expects_connective`?"),
        (P, 1, notes, 1, notes + 7, "SL012", "information", "unknown field `notes` for lane multi_sentence_response"),
    ]


# --- SL005 duplicate ids -----------------------------------------------------------------------


def test_sl005_duplicate_within_a_file_links_the_first(engine: Engine) -> None:
    lines = [
        '{"id": "c1", "prompt": "What is truth?", "expected_predicates": []}',
        '{"id": "c2", "prompt": "What is light?", "expected_predicates": []}',
        '{"id": "c1", "prompt": "What is order?", "expected_predicates": []}',
    ]
    (found,) = case_findings(engine, lines, FLU)
    assert ft(found) == (P, 3, 8, 3, 12, "SL005", "error", "duplicate case id `c1` (first at this file:1)")
    (related,) = found.related
    assert (related.location.path, related.location.line, related.location.column,
            related.location.end_column, related.message) == (P, 1, 8, 12, "first `c1`")
    assert fix_of(found) == ("Renumber to `c3`", 3, 8, 3, 12, '"c3"')


def _tree(root: Path, lane: str, dev: list[dict], public: list[dict], holdouts: list[dict]) -> dict[str, Path]:
    base = root / "evals" / lane
    return {
        "dev": write(base / "dev" / "cases.jsonl", dev),
        "public": write(base / "public" / "v1" / "cases.jsonl", public),
        "holdouts": write(base / "holdouts" / "v1" / "cases.jsonl", holdouts),
    }


def _fluency_tree(tmp_path: Path) -> dict[str, Path]:
    return _tree(
        tmp_path, FLU,
        dev=[{"id": "fl_001", "prompt": "What is truth?", "expected_predicates": []}],
        public=[
            {"id": "fl_002", "prompt": "What is light?", "expected_predicates": []},
            {"id": "fl_001", "prompt": "Explain   EVIDENCE.", "expected_predicates": []},
        ],
        holdouts=[{"id": "fl_h01", "prompt": "explain evidence.", "expected_predicates": []}],
    )


def test_sl005_and_sl006_across_the_splits_of_a_lane(engine: Engine, tmp_path: Path) -> None:
    paths = _fluency_tree(tmp_path)
    public = str(paths["public"])
    result = engine.check_bytes(public, paths["public"].read_bytes())  # lane and kind from path/content
    assert (result.kind, result.lane) == ("cases", FLU)
    dup, leak = result.findings
    assert ft(dup) == (public, 2, 8, 2, 16, "SL005", "error",
                       f"duplicate case id `fl_001` (first at {paths['dev'].resolve()}:1)")
    (twin,) = dup.related
    assert (twin.location.path, twin.location.line, twin.location.column, twin.location.end_column) == (
        str(paths["dev"].resolve()), 1, 8, 16)
    assert fix_of(dup) == ("Renumber to `fl_003`", 2, 8, 2, 16, '"fl_003"')
    assert ft(leak) == (public, 2, 28, 2, 49, "SL006", "error",
                        f"this public case repeats the prompt of holdout `fl_h01` ({paths['holdouts'].resolve()}:1)")
    (holdout,) = leak.related
    assert (holdout.location.path, holdout.location.line, holdout.location.column,
            holdout.location.end_column, holdout.message) == (
        str(paths["holdouts"].resolve()), 1, 28, 47, "holdout `fl_h01`")


def test_cross_split_findings_land_only_in_the_later_file(engine: Engine, tmp_path: Path) -> None:
    paths = _fluency_tree(tmp_path)
    for split in ("dev", "holdouts"):
        result = engine.check_bytes(str(paths[split]), paths[split].read_bytes())
        assert result.findings == [], split


def test_load_cases_reports_cross_file_duplicates_and_leaks_once(engine: Engine, tmp_path: Path) -> None:
    paths = _fluency_tree(tmp_path)
    _, index = engine.load_cases([str(paths["dev"]), str(paths["public"]), str(paths["holdouts"])])
    assert [(f.code, f.path, f.location.line) for f in index.findings] == [
        ("SL005", str(paths["public"]), 2),
        ("SL006", str(paths["public"]), 2),
    ]
    assert sorted(index.by_id) == ["fl_001", "fl_002", "fl_h01"]
    assert index.by_id["fl_001"].path == str(paths["dev"])  # the first of duplicates wins


def test_sl006_symbolic_leak_is_the_premise_chain_and_probe(engine: Engine, tmp_path: Path) -> None:
    chain = ["What is truth?", "Actually truth is wisdom."]
    paths = _tree(
        tmp_path, SYM,
        dev=[{"id": "D1", "premises": chain, "probe": "What is wisdom?", "expected_proposals": 1, "min_vault_hits": 1}],
        public=[{"id": "P1", "premises": [" what is  truth?", "Actually truth is wisdom."], "probe": "What is truth?",
                 "expected_proposals": 1, "min_vault_hits": 1}],
        holdouts=[{"id": "H1", "premises": chain, "probe": "What is truth?", "expected_proposals": 1,
                   "min_vault_hits": 1}],
    )
    dev = engine.check_bytes(str(paths["dev"]), paths["dev"].read_bytes())
    assert dev.findings == []  # same premises, different probe: not a leak
    public = engine.check_bytes(str(paths["public"]), paths["public"].read_bytes())
    (leak,) = public.findings
    line = paths["public"].read_text().splitlines()[0]
    start = line.index("[") + 1
    end = line.index("]") + 2
    assert ft(leak) == (str(paths["public"]), 1, start, 1, end, "SL006", "error",
                        f"this public case repeats the premises + probe of holdout `H1` ({paths['holdouts'].resolve()}:1)")


# --- SL007 expected_proposals vs correction-intent premises ----------------------------------


def test_sl007_counts_premises_matching_the_correction_pattern(engine: Engine) -> None:
    line = (
        '{"id": "S1", "premises": ["What is truth?", "Actually truth is wisdom.", "  Actually wisdom is light.", '
        '"actually lower case is not one", "Factually no."], "probe": "What is truth?", '
        '"expected_proposals": 3, "min_vault_hits": 1}'
    )
    (found,) = case_findings(engine, [line], SYM)
    col = line.index('"expected_proposals": 3') + len('"expected_proposals": ') + 1
    assert ft(found) == (P, 1, col, 1, col + 1, "SL007", "error",
                         "`expected_proposals` is 3 but 2 premise(s) are correction-intent (match `^\\s*Actually\\b`)")
    assert fix_of(found) == ("Set expected_proposals to 2", 1, col, 1, col + 1, "2")


def test_sl007_passes_when_the_count_matches(engine: Engine) -> None:
    line = ('{"id": "S1", "premises": ["What is truth?", "Actually truth is wisdom."], "probe": "What is truth?", '
            '"expected_proposals": 1, "min_vault_hits": 1}')
    assert case_findings(engine, [line], SYM) == []


def test_sl007_skipped_when_the_fields_are_mistyped(engine: Engine) -> None:
    line = ('{"id": "S1", "premises": "Actually truth is wisdom.", "probe": "What is truth?", '
            '"expected_proposals": 2, "min_vault_hits": 1}')
    assert [f.code for f in case_findings(engine, [line], SYM)] == ["SL003"]


def test_case_checks_from_a_user_lane_correction_pattern(tmp_path: Path) -> None:
    """The correction pattern is data: a user lane that changes it changes the count."""
    from surface_lint.engine.config import Config

    text = (Path(__file__).resolve().parents[2] / "rules" / "symbolic_logic.toml").read_text("utf-8")
    text = text.replace("correction_pattern = '^\\s*Actually\\b'", "correction_pattern = '^\\s*(Actually|In fact)\\b'")
    assert "In fact" in text
    lane_file = write(tmp_path / "symbolic_user.toml", text)
    engine = Engine(Config(lane_files=[lane_file]))
    assert engine.lane_errors == []
    line = ('{"id": "S1", "premises": ["Actually truth is wisdom.", "In fact wisdom is light."], "probe": "What?", '
            '"expected_proposals": 2, "min_vault_hits": 1}')
    assert case_findings(engine, [line], SYM) == []


def test_sl002_an_empty_id_is_reported_not_silently_dropped(engine: Engine) -> None:
    line = '{"id": "", "prompt": "What is truth?", "expected_predicates": []}'
    result = check([line], path=P, engine=engine, kind="cases", lane_name=FLU)
    assert fts(result.findings) == [
        (P, 1, 8, 1, 10, "SL002", "error",
         "`id` is empty: the case cannot be joined to a transcript and is left out"),
    ]
    assert result.records == []
