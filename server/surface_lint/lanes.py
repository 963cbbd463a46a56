"""rules/*.toml -> Lane objects; validation of rules with file:line messages."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import regex

from . import kinds_extra  # noqa: F401  (registers the case-driven kinds into KINDS)
from .predicates import KINDS, Evaluator, LaneAnalysis, SafePattern

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PROFILES = ("contract", "reference")
DEFAULT_PROFILE = "contract"
EXPECTED = "@expected"  # metric signal: every expected predicate of the case passes


class LaneError(Exception):
    """A rules file that cannot be used: names the file and the line."""

    def __init__(self, path: str, line: int, message: str, column: int = 1) -> None:
        super().__init__(f"{path}:{line}:{column}: {message}")
        self.path = path
        self.line = line
        self.column = column
        self.message = message


@dataclass(frozen=True, slots=True)
class PredicateSpec:
    name: str
    code: str
    kind: str
    unit: str
    evaluate: Evaluator
    default_severity: str
    report: bool
    aliases: tuple[str, ...]
    applies_if: str | None
    summary: str
    what: str
    why: str
    example_fail: str
    example_pass: str
    params: Mapping[str, Any]
    line: int  # where it is defined in its rules file

    @property
    def doc_anchor(self) -> str:
        return f"{self.code.lower()}-{self.name.replace('_', '-').replace('>=', 'ge')}"


@dataclass(frozen=True, slots=True)
class MetricSpec:
    name: str
    kind: str  # rate | count | thresholds_pass
    passing: tuple[str, ...] = ()
    over: tuple[str, ...] = ()
    empty: float = 1.0
    aliases: tuple[str, ...] = ()
    runner: bool = True
    description: str = ""
    better: str = "higher"  # which way is an improvement: higher | lower (diff, baseline)


@dataclass(frozen=True, slots=True)
class ThresholdCheck:
    metric: str
    op: str  # >=, <=, ==, ~=
    value: float
    tolerance: float = 0.0

    def passes(self, actual: float | None) -> bool:
        if actual is None:
            return False
        if self.op == ">=":
            return actual >= self.value
        if self.op == "<=":
            return actual <= self.value
        if self.op == "==":
            return actual == self.value
        return abs(actual - self.value) <= self.tolerance + 1e-12

    def describe(self) -> str:
        if self.op == "~=":
            return f"≈ {self.value:g} ± {self.tolerance:g}"
        return f"{self.op} {self.value:g}"


@dataclass(frozen=True, slots=True)
class ThresholdSet:
    name: str
    description: str
    checks: tuple[ThresholdCheck, ...]


@dataclass(frozen=True, slots=True)
class FieldSpec:
    name: str
    type: str
    required: bool
    predicate_list: bool


@dataclass(frozen=True, slots=True)
class CaseSchema:
    id_field: str
    fields: Mapping[str, FieldSpec]
    leak_fields: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ProposalCheck:
    code: str
    severity: str
    correction_pattern: SafePattern
    premises_field: str
    count_field: str


class VerdictMemo:
    """A lane's evaluation state (see scoring.evaluate): its predicate plan, built once, and
    its verdicts by key, bounded, and paused while it misses: on all-distinct surfaces a memo
    only costs, so after a window with almost no hits it stands aside for a while."""

    __slots__ = ("entries", "hits", "lookups", "needed", "paused", "plan")

    WINDOW = 4096  # lookups per check of the hit rate
    PAUSE = 65536  # evaluations without the memo after a window with under 1% hits

    def __init__(self) -> None:
        self.entries: dict[tuple[Any, ...], Any] = {}
        self.hits = 0
        self.lookups = 0
        self.paused = 0
        self.plan: tuple[tuple[Any, str | None], ...] | None = None  # (predicate, case field it needs)
        self.needed: tuple[str, ...] = ()  # those case fields, in plan order


@dataclass(frozen=True)
class Lane:
    name: str
    version: str
    title: str
    unit: str
    profile: str
    headline: str
    path: str
    predicates: tuple[PredicateSpec, ...]
    metrics: tuple[MetricSpec, ...]
    thresholds: Mapping[str, ThresholdSet]
    default_thresholds: str | None
    schema: CaseSchema
    analysis: LaneAnalysis
    expected_field: str | None
    informational_field: str | None
    proposal_check: ProposalCheck | None
    details: Mapping[str, str]
    _by_name: dict[str, PredicateSpec] = field(default_factory=dict, repr=False)
    # Verdicts by (surface, grounding, primed, the case fields predicates read): a deterministic
    # runtime repeats its surfaces, and a verdict depends on nothing else (see scoring.evaluate).
    _memo: VerdictMemo = field(default_factory=lambda: VerdictMemo(), repr=False, compare=False)

    def __post_init__(self) -> None:
        for spec in self.predicates:
            self._by_name[spec.name] = spec
            for alias in spec.aliases:
                self._by_name[alias] = spec

    def predicate(self, name: str) -> PredicateSpec | None:
        """A predicate by name or alias (`no_dotted_domain_inventory` -> `no_dotted_inventory`)."""
        return self._by_name.get(name)

    @property
    def predicate_names(self) -> list[str]:
        """Every accepted name (canonical names and aliases), sorted."""
        return sorted(self._by_name)

    def metric(self, name: str) -> MetricSpec | None:
        for m in self.metrics:
            if m.name == name or name in m.aliases:
                return m
        return None


# --- loading ---------------------------------------------------------------------------


def builtin_rules_dir() -> Path:
    """The rules shipped in the package (or, in a source checkout, the repo's rules/)."""
    packaged = resources.files("surface_lint") / "rules"
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[2] / "rules"


def builtin_rule_files() -> list[Path]:
    return sorted(builtin_rules_dir().glob("*.toml"))


class _Locator:
    """Finds the line of a key inside the Nth `[[array]]` table of a TOML text."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()

    def table_line(self, header: str, index: int | None = None) -> int:
        seen = -1
        for i, line in enumerate(self.lines):
            if line.strip() == header:
                seen += 1
                if index is None or seen == index:
                    return i + 1
        return 1

    def sub_key_line(self, start: int, header: str, key: str) -> int | None:
        """Line of `key` in the `header` sub-table of the [[array]] entry starting at line `start`."""
        inside = False
        for i in range(start, len(self.lines)):
            stripped = self.lines[i].strip()
            if stripped.startswith("[[") or (inside and stripped.startswith("[")):
                break
            if stripped == header:
                inside = True
            elif inside and stripped.split("=")[0].strip() == key:
                return i + 1
        return None

    def key_line(self, header: str, index: int | None, key: str) -> int:
        start = self.table_line(header, index)
        for i in range(start - 1, len(self.lines)):
            stripped = self.lines[i].strip()
            if i > start - 1 and stripped.startswith("[[") and stripped == header:
                break
            if stripped.split("=")[0].strip() == key:
                return i + 1
        return start


_TOML_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "list[string]": (list,),
}


def _check_type(value: Any, type_name: str) -> bool:
    if type_name == "integer" and isinstance(value, bool):
        return False
    if type_name == "number" and isinstance(value, bool):
        return False
    if not isinstance(value, _TOML_TYPES[type_name]):
        return False
    if type_name == "list[string]":
        return all(isinstance(v, str) for v in value)  # type: ignore[attr-defined]
    return True


def load_lane(path: Path, profile: str = DEFAULT_PROFILE, trusted: bool | None = None) -> Lane:
    """Parse and validate one rules file for one profile. Raises LaneError."""
    if profile not in PROFILES:
        raise LaneError(str(path), 1, f"unknown profile {profile!r} (expected one of {PROFILES})")
    shown = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise LaneError(shown, 1, f"cannot read rules file: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise LaneError(shown, line, "rules file is not valid UTF-8") from None
    if trusted is None:
        trusted = path.resolve().parent == builtin_rules_dir().resolve()
    return parse_lane(text, shown, profile, trusted)


def parse_lane(text: str, shown: str, profile: str = DEFAULT_PROFILE, trusted: bool = False) -> Lane:
    """Parse one rules file. `trusted` (the shipped rules only) lets its patterns use the
    stdlib fast path on short text; every user-supplied pattern runs with a time limit."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line, column = _toml_error_position(str(exc))
        raise LaneError(shown, line, f"invalid TOML: {exc}", column) from None
    loc = _Locator(text)

    def fail(message: str, line: int = 1) -> LaneError:
        return LaneError(shown, line, message)

    lane_t = data.get("lane")
    if not isinstance(lane_t, dict):
        raise fail("missing [lane] table")
    name = lane_t.get("name")
    if not isinstance(name, str) or not name:
        raise fail("[lane] needs a string `name`", loc.key_line("[lane]", None, "name"))
    for key in ("version", "title", "unit", "headline", "default_thresholds",
                "expected_field", "informational_field"):
        if key in lane_t and not isinstance(lane_t[key], str):
            raise fail(f"[lane] `{key}` must be a string", loc.key_line("[lane]", None, key))

    analysis = _load_analysis(data.get("analysis", {}), loc, fail, trusted)
    predicates = _load_predicates(data.get("predicates", []), profile, loc, fail, trusted)
    names = {p.name for p in predicates} | {a for p in predicates for a in p.aliases}
    schema = _load_schema(data.get("case_schema", {}), loc, fail)
    metrics = _load_metrics(data.get("metrics", []), names, schema, loc, fail)
    thresholds = _load_thresholds(data.get("thresholds", {}), {m.name for m in metrics}, loc, fail)
    default_thresholds = lane_t.get("default_thresholds")
    if default_thresholds is not None and default_thresholds not in thresholds:
        raise fail(
            f"default_thresholds {default_thresholds!r} names no [thresholds.*] set",
            loc.key_line("[lane]", None, "default_thresholds"),
        )
    headline = lane_t.get("headline") or (metrics[0].name if metrics else "")
    if metrics and not any(m.name == headline for m in metrics):
        raise fail(f"headline {headline!r} is not a metric", loc.key_line("[lane]", None, "headline"))
    proposal_check = _load_proposal_check(data.get("case_checks", {}), loc, fail)
    return Lane(
        name=name,
        version=str(lane_t.get("version", "v1")),
        title=str(lane_t.get("title", name)),
        unit=str(lane_t.get("unit", "surface")),
        profile=profile,
        headline=headline,
        path=shown,
        predicates=tuple(predicates),
        metrics=tuple(metrics),
        thresholds=thresholds,
        default_thresholds=default_thresholds,
        schema=schema,
        analysis=analysis,
        expected_field=lane_t.get("expected_field"),
        informational_field=lane_t.get("informational_field"),
        proposal_check=proposal_check,
        details=_load_details(data.get("details", {}), loc, fail),
    )


def _toml_error_position(message: str) -> tuple[int, int]:
    m = regex.search(r"line (\d+), column (\d+)", message)
    if m:
        return int(m.group(1)), int(m.group(2))
    return 1, 1


def _compile(pattern: Any, what: str, line: int, fail: Any, trusted: bool = False) -> SafePattern:
    if not isinstance(pattern, str):
        raise fail(f"{what} must be a string regex", line)
    try:
        return SafePattern(pattern, trusted)
    except regex.error as exc:
        raise fail(f"{what} does not compile: {exc}", line) from None


def _load_analysis(table: Any, loc: _Locator, fail: Any, trusted: bool) -> LaneAnalysis:
    if not isinstance(table, dict):
        raise fail("[analysis] must be a table", loc.table_line("[analysis]"))
    out = LaneAnalysis()
    tails = table.get("tail_patterns", [])
    if not isinstance(tails, list):
        raise fail("tail_patterns must be a list", loc.key_line("[analysis]", None, "tail_patterns"))
    line = loc.key_line("[analysis]", None, "tail_patterns")
    out.tail_patterns = [_compile(p, "tail pattern", line, fail, trusted) for p in tails]
    if "sentence_split" in table:
        line = loc.key_line("[analysis]", None, "sentence_split")
        out.sentence_split = _compile(table["sentence_split"], "sentence_split", line, fail, trusted)
    if "token_pattern" in table:
        line = loc.key_line("[analysis]", None, "token_pattern")
        out.token_pattern = _compile(table["token_pattern"], "token_pattern", line, fail, trusted)
    return out


_DOC_FIELDS = ("summary", "what", "why", "example_fail", "example_pass")


def _load_predicates(
    items: Any, profile: str, loc: _Locator, fail: Any, trusted: bool
) -> list[PredicateSpec]:
    if not isinstance(items, list):
        raise fail("`predicates` must be an array of tables ([[predicates]])")
    out: list[PredicateSpec] = []
    seen: dict[str, int] = {}
    codes: dict[str, str] = {}
    for index, item in enumerate(items):
        line = loc.table_line("[[predicates]]", index)

        def at(key: str, index: int = index) -> int:
            return loc.key_line("[[predicates]]", index, key)

        if not isinstance(item, dict):
            raise fail("a [[predicates]] entry must be a table", line)
        name = item.get("name")
        if not isinstance(name, str) or not name:
            raise fail("predicate needs a string `name`", line)
        if name in seen:
            raise fail(f"predicate {name!r} is defined twice", line)
        seen[name] = line
        kind_name = item.get("kind")
        if kind_name not in KINDS:
            known = ", ".join(sorted(KINDS))
            raise fail(f"predicate {name!r}: unknown kind {kind_name!r} (known: {known})", at("kind"))
        kind = KINDS[kind_name]
        code = item.get("code")
        if not isinstance(code, str) or not regex.fullmatch(r"[A-Z]+[0-9]+", code):
            raise fail(f"predicate {name!r}: `code` must look like SL101", at("code"))
        if code in codes:
            raise fail(f"predicate {name!r}: code {code} is already used by {codes[code]!r}", at("code"))
        codes[code] = name
        severity = item.get("default_severity", "warning")
        if severity not in ("error", "warning", "information", "hint"):
            raise fail(
                f"predicate {name!r}: default_severity must be error, warning, information or hint",
                at("default_severity"),
            )
        for key in _DOC_FIELDS:
            if key in item and not isinstance(item[key], str):
                raise fail(f"predicate {name!r}: `{key}` must be a string", at(key))
        aliases = item.get("aliases", [])
        if not _check_type(aliases, "list[string]"):
            raise fail(f"predicate {name!r}: `aliases` must be a list of strings", at("aliases"))
        applies_if = item.get("applies_if")
        if applies_if is not None and not isinstance(applies_if, str):
            raise fail(f"predicate {name!r}: `applies_if` must be a case field name", at("applies_if"))
        params = dict(item.get("params", {}))
        profiles = item.get("profiles", {})
        if not isinstance(profiles, dict) or any(p not in PROFILES for p in profiles):
            raise fail(f"predicate {name!r}: `profiles` may only name {PROFILES}", line)
        override = profiles.get(profile, {}).get("params", {})
        params.update(override)

        def param_at(key: str, index: int = index, start: int = line,
                     override: Mapping[str, Any] = override) -> int:
            """A parameter's line: the profile's override when it sets the key, else the base."""
            if key in override:
                found = loc.sub_key_line(start, f"[predicates.profiles.{profile}.params]", key)
                if found is not None:
                    return found
            return loc.key_line("[[predicates]]", index, key)

        for key, type_name in kind.params.items():
            if key not in params:
                if key in kind.optional:
                    continue
                raise fail(f"predicate {name!r} ({kind_name}): missing parameter `{key}`", line)
            if not _check_type(params[key], type_name):
                raise fail(
                    f"predicate {name!r}: parameter `{key}` must be {type_name}, "
                    f"not {type(params[key]).__name__}",
                    param_at(key),
                )
        for key in params:
            if key not in kind.params:
                raise fail(f"predicate {name!r} ({kind_name}): unknown parameter `{key}`", param_at(key))
        for key in kind.regex_params:
            params[key] = _compile(params[key], f"predicate {name!r}: `{key}`", param_at(key), fail, trusted)
        if kind_name == "words_present":
            for pattern in params.get("suffix_patterns", []):
                _compile(pattern, f"predicate {name!r}: suffix pattern", at("suffix_patterns"), fail)
        params["_trusted"] = trusted
        if kind.prepare is not None:
            try:
                kind.prepare(params)
            except regex.error as exc:
                raise fail(f"predicate {name!r}: a pattern does not compile: {exc}", line) from None
        out.append(
            PredicateSpec(
                name=name,
                code=code,
                kind=kind_name,
                unit=kind.unit,
                evaluate=kind.build(params),
                default_severity=severity,
                report=bool(item.get("report", True)),
                aliases=tuple(aliases),
                applies_if=applies_if,
                summary=item.get("summary", ""),
                what=item.get("what", ""),
                why=item.get("why", ""),
                example_fail=item.get("example_fail", ""),
                example_pass=item.get("example_pass", ""),
                params={k: v for k, v in params.items() if not k.startswith("_")},
                line=line,
            )
        )
    return out


def _load_schema(table: Any, loc: _Locator, fail: Any) -> CaseSchema:
    if not isinstance(table, dict):
        raise fail("[case_schema] must be a table", loc.table_line("[case_schema]"))
    fields: dict[str, FieldSpec] = {}
    for fname, spec in table.get("fields", {}).items():
        header = f"[case_schema.fields.{fname}]"
        if not isinstance(spec, dict):
            raise fail(f"case field {fname!r} must be a table", loc.table_line(header))
        type_name = spec.get("type", "string")
        if type_name not in _TOML_TYPES:
            raise fail(
                f"case field {fname!r}: unknown type {type_name!r} "
                f"(known: {', '.join(_TOML_TYPES)})",
                loc.key_line(header, None, "type"),
            )
        fields[fname] = FieldSpec(
            fname, type_name, bool(spec.get("required", False)), bool(spec.get("predicate_list", False))
        )
    leak = table.get("leak_fields", [])
    if not _check_type(leak, "list[string]"):
        raise fail("leak_fields must be a list of strings", loc.key_line("[case_schema]", None, "leak_fields"))
    return CaseSchema(str(table.get("id_field", "id")), fields, tuple(leak))


def _load_metrics(
    items: Any, names: set[str], schema: CaseSchema, loc: _Locator, fail: Any
) -> list[MetricSpec]:
    if not isinstance(items, list):
        raise fail("`metrics` must be an array of tables ([[metrics]])")
    out: list[MetricSpec] = []
    for index, item in enumerate(items):
        line = loc.table_line("[[metrics]]", index)
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise fail("a [[metrics]] entry needs a string `name`", line)
        kind = item.get("kind", "rate")
        if kind not in ("rate", "count", "thresholds_pass"):
            raise fail(f"metric {item['name']!r}: unknown kind {kind!r} (rate, count, thresholds_pass)", line)
        signals = list(item.get("passing", [])) + list(item.get("over", []))
        for signal in signals:
            bare = signal.lstrip("!")
            if bare != EXPECTED and bare not in names and bare not in schema.fields:
                raise fail(
                    f"metric {item['name']!r}: {signal!r} is neither a predicate nor a case field",
                    loc.key_line("[[metrics]]", index, "passing"),
                )
        better = item.get("better", "higher")
        if better not in ("higher", "lower"):
            raise fail(f"metric {item['name']!r}: `better` must be \"higher\" or \"lower\"", line)
        out.append(
            MetricSpec(
                better=better,
                name=item["name"],
                kind=kind,
                passing=tuple(item.get("passing", [])),
                over=tuple(item.get("over", [])),
                empty=float(item.get("empty", 1.0)),
                aliases=tuple(item.get("aliases", [])),
                runner=bool(item.get("runner", True)),
                description=str(item.get("description", "")),
            )
        )
    return out


def _load_thresholds(
    table: Any, metric_names: set[str], loc: _Locator, fail: Any
) -> dict[str, ThresholdSet]:
    out: dict[str, ThresholdSet] = {}
    if not isinstance(table, dict):
        raise fail("[thresholds] must be a table of named sets")
    for set_name, spec in table.items():
        header = f"[thresholds.{set_name}]"
        line = loc.table_line(header)
        if not isinstance(spec, dict) or not isinstance(spec.get("checks", []), list):
            raise fail(f"threshold set {set_name!r} needs a `checks` list", line)
        checks = []
        for check in spec.get("checks", []):
            if not isinstance(check, dict):
                raise fail(f"threshold set {set_name!r}: each check must be an inline table", line)
            metric = check.get("metric")
            op = check.get("op", ">=")
            value = check.get("value")
            if metric not in metric_names:
                raise fail(f"threshold set {set_name!r}: unknown metric {metric!r}", line)
            if op not in (">=", "<=", "==", "~="):
                raise fail(f"threshold set {set_name!r}: unknown op {op!r} (>=, <=, ==, ~=)", line)
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise fail(f"threshold set {set_name!r}: `value` of {metric!r} must be a number", line)
            tolerance = check.get("tolerance", 0.0)
            checks.append(ThresholdCheck(metric, op, float(value), float(tolerance)))
        out[set_name] = ThresholdSet(set_name, str(spec.get("description", "")), tuple(checks))
    return out


def _load_proposal_check(table: Any, loc: _Locator, fail: Any) -> ProposalCheck | None:
    spec = table.get("expected_proposals") if isinstance(table, dict) else None
    if spec is None:
        return None
    header = "[case_checks.expected_proposals]"
    line = loc.key_line(header, None, "correction_pattern")
    return ProposalCheck(
        code=str(spec.get("code", "SL007")),
        severity=str(spec.get("severity", "error")),
        correction_pattern=_compile(spec.get("correction_pattern"), "correction_pattern", line, fail),
        premises_field=str(spec.get("premises_field", "premises")),
        count_field=str(spec.get("count_field", "expected_proposals")),
    )


_DETAIL_SOURCES = ("case.", "turn.", "chain.", "signal.", "analysis.", "verdicts")


def _load_details(table: Any, loc: _Locator, fail: Any) -> dict[str, str]:
    if not isinstance(table, dict):
        raise fail("[details] must be a table of field = source", loc.table_line("[details]"))
    for key, source in table.items():
        if not isinstance(source, str) or not source.startswith(_DETAIL_SOURCES):
            raise fail(
                f"[details] `{key}`: source must start with one of {', '.join(_DETAIL_SOURCES)}",
                loc.key_line("[details]", None, key),
            )
    return dict(table)


@dataclass
class LaneSet:
    """All lanes available for one profile, plus the rules files that failed to load."""

    lanes: dict[str, Lane]
    errors: list[LaneError]

    def get(self, name: str) -> Lane | None:
        return self.lanes.get(name)


def load_lanes(
    profile: str = DEFAULT_PROFILE, extra_files: Iterable[Path] = ()
) -> LaneSet:
    """Built-in lanes, then the user's lane files (a user file replaces a built-in lane)."""
    lanes: dict[str, Lane] = {}
    errors: list[LaneError] = []
    builtin = builtin_rule_files()
    for path in [*builtin, *extra_files]:
        try:
            lane = load_lane(path, profile)
            if path not in builtin:
                # A user's file must hold in every profile, not only the one in use now:
                # a broken base pattern hidden by a profile override is still a broken file.
                for other in PROFILES:
                    if other != profile:
                        load_lane(path, other)
        except LaneError as exc:
            errors.append(exc)
            continue
        lanes[lane.name] = lane
    return LaneSet(lanes, errors)
