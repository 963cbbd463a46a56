"""The file and case checks that are not lane predicates: one table, the single source of truth.

Lane predicates live in rules/*.toml; these belong to the readers and the case linter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class Check:
    code: str
    name: str
    severity: str
    summary: str
    what: str
    why: str
    example_fail: str
    example_pass: str


_CHECKS = [
    Check("SL001", "invalid-json", "error",
          "A line (or document) that is not a valid JSON object.",
          "Points at the exact character where the JSON parser stopped; the line is skipped and every other line is still read.",
          "A case or turn that does not parse is silently missing from the lane's scores.",
          '{"id": "c1", "prompt": "What is truth?",}', '{"id": "c1", "prompt": "What is truth?"}'),
    Check("SL002", "missing-field", "error",
          "A field the lane's case schema (or the transcript format) requires is missing.",
          "Points at the record; the lane's `[case_schema]` says which fields are required.",
          "The runner reads these fields directly; a missing one crashes it or scores the case wrongly.",
          '{"id": "c1"}', '{"id": "c1", "prompt": "What is truth?", "expected_predicates": []}'),
    Check("SL003", "wrong-type", "error",
          "A field has the wrong JSON type for the lane's schema.",
          "Points at the value; says which type was expected.",
          "A string where a list belongs is iterated character by character by the runner.",
          '{"expected_predicates": "no_placeholder"}', '{"expected_predicates": ["no_placeholder"]}'),
    Check("SL004", "unknown-predicate", "error",
          "A predicate list names a predicate the lane does not define.",
          "Points at the name and offers the closest known name as a fix (aliases such as `no_dotted_domain_inventory` are accepted).",
          "The runner looks each name up and fails (or never checks it); a typo silently drops a check.",
          '"expected_predicates": ["no_placeholders"]', '"expected_predicates": ["no_placeholder"]'),
    Check("SL005", "duplicate-id", "error",
          "Two cases share an id, in one file or across the splits of a lane.",
          "Points at the later id and links the first one (relatedInformation); a fix renumbers it.",
          "Transcripts join to cases by id: a duplicate makes the join ambiguous and double-counts.",
          '{"id": "c1", ...}\\n{"id": "c1", ...}', '{"id": "c1", ...}\\n{"id": "c2", ...}'),
    Check("SL006", "holdout-leak", "error",
          "A dev or public case repeats a holdout case's prompt (or premise chain).",
          "Points at the leaking prompt and links the holdout it repeats.",
          "A holdout is only a holdout while its prompts stay out of the cases people tune against.",
          'public: "Explain evidence."  holdout: "Explain evidence."', 'public: "Explain truth."'),
    Check("SL007", "expected-proposals-mismatch", "error",
          "A symbolic case's `expected_proposals` differs from its count of correction-intent premises.",
          "Counts the premises that match the lane's `correction_pattern` (default: starting with `Actually`).",
          "The contract: `expected_proposals` is the count of correction-intent premises; a wrong count fails proposal_storage for the wrong reason.",
          '"premises": ["Actually truth is wisdom."], "expected_proposals": 2',
          '"premises": ["Actually truth is wisdom."], "expected_proposals": 1'),
    Check("SL008", "invalid-utf8", "error",
          "A line that is not valid UTF-8.",
          "Points at the first invalid byte (the column counts the characters before it); the line is skipped.",
          "JSON text must be UTF-8; the runtime never wrote these bytes.",
          "b'{\"id\": \"\\xff\"}'", '{"id": "c1"}'),
    Check("SL009", "encoding-notice", "information",
          "A byte-order mark or CRLF line endings.",
          "Reported once per file; the content is still read normally.",
          "JSON Lines files are UTF-8 without a BOM and end lines with LF; other tools may choke.",
          "\\ufeff{...}\\r\\n", "{...}\\n"),
    Check("SL010", "line-too-long", "error",
          "A line larger than the configured limit (`max-line-bytes`, default 32 MiB).",
          "The line is skipped without being held in memory; every other line is still read.",
          "A runaway line is almost always a capture bug, and parsing it would stall the editor.",
          "a 50 MB line", "one turn per line"),
    Check("SL011", "stored-flag-mismatch", "warning",
          "A lane report's stored per-case flag disagrees with what its raw fields give.",
          "Recomputes each stored verdict from the surface / counts with the reference profile and points at the stored flag.",
          "A report whose flags do not follow from its own data has been edited or produced by another runner version.",
          '"surface": "river flows valley", "predicates": {"complete_punctuation": true}',
          '"surface": "river flows valley", "predicates": {"complete_punctuation": false}'),
    Check("SL012", "unknown-field", "information",
          "A case field the lane's schema does not know.",
          "Points at the key; often a typo of a known field.",
          "The runner ignores unknown fields, so a misspelt optional field silently has no effect.",
          '{"expect_connective": true}', '{"expects_connective": true}'),
    Check("SL013", "regex-timeout", "error",
          "A user rule's regular expression was not run: the surface is longer than the pattern's budget.",
          "User patterns run on RE2 (linear time) on surfaces up to 2^28 / (the pattern's RE2 program size) "
          "characters; past that the predicate counts as failed for that surface. No clock is involved.",
          "A rule must not hang CI or the editor, and two runs must give the same verdicts.",
          "a{1000} on a 300,000-character surface", "a smaller pattern, or a shorter surface"),
    Check("SL014", "rules-file-error", "error",
          "A rules file (lane TOML) that cannot be loaded.",
          "Names the file, line and problem; the last good rules stay in force in the editor.",
          "A broken lane file would otherwise silently drop every predicate it defines.",
          'kind = "substring_absnet"', 'kind = "substring_absent"'),
    Check("SL015", "unjoined-record", "information",
          "A transcript turn whose case id matches no case, or a case with no transcript.",
          "Only reported when case files are given; the record is left out of the lane's metrics.",
          "Scores over a partial join look complete but are not.",
          'turn case_id "fluency_truth_01"', 'turn case_id "fluency_truth_001"'),
    Check("SL016", "unpaired-surrogate", "warning",
          "A JSON string holds half of a character: a `\\uD800`-`\\uDFFF` escape without its pair.",
          "Points at the escape; the record is still read and evaluated with U+FFFD in place of the lone half"
          " (one character for one, so every position stays exact).",
          "Half an emoji is text no UTF-8 tool can write: it is usually a surface cut in the middle of a character.",
          '"surface": "Truth is real \\ud83d"', '"surface": "Truth is real \\ud83d\\ude00"'),
    Check("SL017", "nothing-scored", "error",
          "A lane run with thresholds that scored no case at all.",
          "Reported once per run at the first transcript, and says why: an empty transcript, turns without `case_id`, "
          "ids that match no case, or lines that could not be read; the run exits 1.",
          "A threshold checked over zero cases says nothing; a CI step must not pass on it.",
          'an empty transcripts file', 'a transcript with one scored turn per case'),
    Check("SL018", "case-check-failed", "warning",
          "A case-driven lane's case fails on a value of its own, not on one turn's predicate.",
          "`check --cases` on a `[casework]` lane reports what makes each case fail, as `--lane` scores it; a "
          "value with no turn of its own (`premises_stored_pass`, `no_topic_drift`, the verdict `passed`) is "
          "reported here, at the case id of the case's first captured turn.",
          "The case is counted as failed by the lane's metrics; the editor and CI say why, where the case begins.",
          '"case_id": "CAL-1" (inferred class coherent, expected no_grounding)',
          '"case_id": "CAL-1" (inferred class no_grounding, as expected)'),
    Check("SL019", "expression-failed", "error",
          "A case-driven lane's expression failed at run time on a case (a division by zero, `len(5)`, `min([])`).",
          "Names the expression, where the lane file wrote it (`file:line:column`) and the error; the case is "
          "not judged: it counts as failed, and the values the expression and those after it give are null.",
          "An expression that cannot be evaluated says nothing about the surface; the lane file needs a fix "
          "(a guard such as `default(x, 0)` or `if len(xs) else`), and the run must not stop at that case.",
          'expr = "hits / len(case.premises)" with "premises": []',
          'expr = "hits / len(case.premises) if case.premises else 0.0"'),
    Check("SL020", "expression-budget", "error",
          "A case-driven lane's expression ran past the evaluation budget on a case.",
          "Evaluation is counted, never timed: steps, characters and list items built, the size of one string, "
          "list or integer (docs/lanes/README.md, \"Limits\"). Past a limit the case is not judged (it counts "
          "as failed), named with the expression's `file:line:column`.",
          "A rule must not hang CI or the editor or exhaust its memory, and two runs must stop at the same place.",
          "expr = \"'a' * 100000000000\"", "expr = \"'a' * 10\""),
    Check("SL021", "detail-not-json", "warning",
          "A case-driven lane's `[casework.details]` value is not a JSON value.",
          "A NaN or infinite number, a dict with a key that is not a string, or another non-JSON value: the "
          "field is written as null in the case's record, and this finding names the field and the expression's "
          "`file:line:column`. The case's verdict stands.",
          "A report with `NaN` or a mixed-key object is not JSON; another tool would refuse the whole file.",
          'rate = "hits / 0.0 if false else float(\'nan\')"', 'rate = "hits / total if total else null"'),
]

CHECKS: dict[str, Check] = {c.code: c for c in _CHECKS}


class CheckCode:
    """The check codes as typed constants: code refers to these, never to `"SL0.."` literals."""

    INVALID_JSON: Final = "SL001"
    MISSING_FIELD: Final = "SL002"
    WRONG_TYPE: Final = "SL003"
    UNKNOWN_PREDICATE: Final = "SL004"
    DUPLICATE_ID: Final = "SL005"
    HOLDOUT_LEAK: Final = "SL006"
    EXPECTED_PROPOSALS: Final = "SL007"
    INVALID_UTF8: Final = "SL008"
    ENCODING_NOTICE: Final = "SL009"
    LINE_TOO_LONG: Final = "SL010"
    STORED_MISMATCH: Final = "SL011"
    UNKNOWN_FIELD: Final = "SL012"
    PATTERN_LIMIT: Final = "SL013"
    RULES_FILE: Final = "SL014"
    UNJOINED: Final = "SL015"
    UNPAIRED_SURROGATE: Final = "SL016"
    NOTHING_SCORED: Final = "SL017"
    CASE_CHECK: Final = "SL018"
    EXPR_ERROR: Final = "SL019"
    EXPR_BUDGET: Final = "SL020"
    DETAIL_VALUE: Final = "SL021"


CHECK_CODES = CheckCode

# The checks a case-driven lane's case can fail on besides its predicates: reports list them
# beside the predicates (a failing JUnit testcase, Markdown's per-check lists).
CASE_LEVEL: tuple[str, ...] = (CheckCode.CASE_CHECK, CheckCode.EXPR_ERROR, CheckCode.EXPR_BUDGET)
# Problems a case's evaluation met that do not decide its verdict (a wrong-typed field read as
# null, a detail written as null): reported, never a failed check of the case.
CASE_PROBLEMS: tuple[str, ...] = (CheckCode.WRONG_TYPE, CheckCode.DETAIL_VALUE)
