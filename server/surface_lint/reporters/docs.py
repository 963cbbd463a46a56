"""Rule documentation from one source (rules/*.toml and checks.py): CLI, hover, README table."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..engine import Engine
from ..model.checks import CHECKS, Check
from ..rules.kinds.core import Kind, KindExample, Subject, Verdict
from ..rules.kinds.registry import KINDS
from ..rules.loader import Lane, PredicateSpec
from ..rules.schema import ArrayOf, MapOf, Table, Value, type_text


def rule_url(spec: PredicateSpec, lane: Lane) -> str:
    """Where a predicate is defined and documented: its lane file, at its line."""
    return Path(lane.path).resolve().as_uri() + f"#L{spec.line}"


def check_url(code: str) -> str:
    return (Path(__file__).resolve().parent / "checks.py").as_uri() + f"#{code}"


def find(engine: Engine, name: str) -> list[tuple[Lane, PredicateSpec]]:
    found = []
    for lane_name in sorted(engine.lane_set.lanes):
        lane = engine.lane_set.lanes[lane_name]
        for spec in lane.predicates:
            if name in (spec.name, spec.code, *spec.aliases):
                found.append((lane, spec))
    return found


def predicate_markdown(spec: PredicateSpec, lane: Lane) -> str:
    """The four sections every rule has (ruff's shape), in Markdown."""
    aliases = f" (alias: {', '.join(f'`{a}`' for a in spec.aliases)})" if spec.aliases else ""
    return (
        f"### {spec.code} `{spec.name}`{aliases}\n\n"
        f"Lane `{lane.name}` · kind `{spec.kind}` · default severity {spec.default_severity}\n\n"
        f"{spec.summary}\n\n"
        f"**What it does.** {spec.what}\n\n"
        f"**Why is this bad?** {spec.why}\n\n"
        f"**Example.** `{spec.example_fail}`\n\n"
        f"**Use instead.** `{spec.example_pass}`\n"
    )


def check_markdown(c: Check) -> str:
    return (
        f"### {c.code} `{c.name}`\n\n"
        f"Case files and transcripts · default severity {c.severity}\n\n"
        f"{c.summary}\n\n"
        f"**What it does.** {c.what}\n\n"
        f"**Why is this bad?** {c.why}\n\n"
        f"**Example.** `{c.example_fail}`\n\n"
        f"**Use instead.** `{c.example_pass}`\n"
    )


def render_rule(engine: Engine, name: str | None) -> str:
    parts: list[str] = []
    if name is None:
        for lane_name in sorted(engine.lane_set.lanes):
            lane = engine.lane_set.lanes[lane_name]
            parts.extend(predicate_markdown(s, lane) for s in lane.predicates if not s.hidden)
        parts.extend(check_markdown(c) for c in CHECKS.values())
        return "\n".join(parts)
    parts.extend(predicate_markdown(s, lane) for lane, s in find(engine, name))
    for c in CHECKS.values():
        if name in (c.code, c.name):
            parts.append(check_markdown(c))
    return "\n".join(parts)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_rules_table(engine: Engine) -> str:
    rows = ["| Code | Name | Lane | Kind | Default severity | What it checks |", "|---|---|---|---|---|---|"]
    for lane_name in sorted(engine.lane_set.lanes):
        lane = engine.lane_set.lanes[lane_name]
        for s in lane.predicates:
            if s.hidden:
                continue
            name = s.name + (f" (alias {', '.join(s.aliases)})" if s.aliases else "")
            severity = s.default_severity if s.report else "signal (no finding)"
            rows.append(f"| {s.code} | `{_cell(name)}` | {lane.name} | {s.kind} | {severity} | {_cell(s.summary)} |")
    for c in CHECKS.values():
        rows.append(f"| {c.code} | `{c.name}` | (files) | check | {c.severity} | {_cell(c.summary)} |")
    return "\n".join(rows) + "\n"


def rules_json(engine: Engine) -> str:
    out = []
    for lane_name in sorted(engine.lane_set.lanes):
        lane = engine.lane_set.lanes[lane_name]
        for s in lane.predicates:
            if s.hidden:
                continue
            out.append({"code": s.code, "name": s.name, "lane": lane.name, "kind": s.kind,
                        "aliases": list(s.aliases), "default_severity": s.default_severity,
                        "report": s.report, "summary": s.summary, "what": s.what, "why": s.why,
                        "example_fail": s.example_fail, "example_pass": s.example_pass})
    for c in CHECKS.values():
        out.append({"code": c.code, "name": c.name, "lane": None, "kind": "check",
                    "default_severity": c.severity, "summary": c.summary, "what": c.what,
                    "why": c.why, "example_fail": c.example_fail, "example_pass": c.example_pass})
    return json.dumps(out, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


# --- the rules-file reference: generated from the schema and the kind registry ---------------------


def _toml(value: Any) -> str:
    """A TOML literal of a plain value (strings, numbers, booleans, lists, inline tables)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML for {value!r}")


def example_rules(name: str, kind: Kind, example: KindExample) -> str:
    """The example's predicate as a rules file of one lane (what an author copies)."""
    fields = "".join(f"[case_schema.fields.{f}]\ntype = \"{_json_type(v)}\"\n" for f, v in (example.case or {}).items())
    params = "".join(f"{k} = {_toml(v)}\n" for k, v in example.params.items())
    analysis = "".join(f"{k} = {_toml(v)}\n" for k, v in (example.analysis or {}).items())
    return (f'[lane]\nname = "example_{name}"\n' + (f"[analysis]\n{analysis}" if analysis else "")
            + (f"[case_schema]\n{fields}" if fields else "")
            + f'\n[[predicates]]\nname = "example"\ncode = "EX1"\nkind = "{name}"\n'
            + (f"[predicates.params]\n{params}" if params else ""))


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "list[string]"
    if isinstance(value, dict):
        return "object"
    return "string"


def run_example(name: str, kind: Kind, example: KindExample) -> Verdict | None:
    """Load the example as a real rules file and judge its subject (the reference shows this)."""
    from ..engine.scoring import evaluate
    from ..rules.loader import parse_lane

    lane = parse_lane(example_rules(name, kind, example), f"<example {name}>")
    subject = Subject(example.surface, example.grounding, example.case, primed=False)
    return evaluate(lane, subject, None, example.case or {}).get("example")


def _default(value: Value) -> str:
    if value.required:
        return "required"
    if value.default is None:
        return "—"
    return f"`{_toml(value.default)}`"


def _keys_table(keys: Mapping[str, Any]) -> list[str]:
    rows = ["| key | type | default | meaning |", "|---|---|---|---|"]
    for key, node in keys.items():
        if isinstance(node, Value):
            choices = f" One of {', '.join(f'`{c}`' for c in node.choices)}." if node.choices else ""
            rows.append(f"| `{key}` | {type_text(node.type)} | {_default(node)} | {_cell(node.doc + choices)} |")
        else:
            rows.append(f"| `{key}` | {type(node).__name__.lower()} | — | {_cell(getattr(node, 'doc', ''))} |")
    return rows


def kinds_reference() -> str:
    """Every registered kind: parameters (type, default, meaning), message facts, an executed example."""
    parts = ["## Predicate kinds", "",
             "Generated from the kind registry (`surface-lint rule --kinds`); every example below is run "
             "by the tests and its result printed as the engine gives it.", ""]
    for name in sorted(KINDS):
        parts += kind_markdown_lines(name)
    return "\n".join(parts)


def kind_markdown_lines(name: str) -> list[str]:
    """One kind's reference entry (the generated reference and the editor's hover show it)."""
    kind = KINDS[name]
    parts = [f"### `{name}`", "", kind.summary or "(no summary)"]
    if kind.case_params:
        how = "judged anyway" if kind.judged_without_case else "not judged"
        parts.append("")
        parts.append(f"Reads the case through {', '.join(f'`{p}`' for p in kind.case_params)}; "
                     f"a case without that field is {how}.")
    parts.append("")
    if kind.params:
        parts += _keys_table(kind.params)
    else:
        parts.append("No parameters.")
    parts.append("")
    if kind.facts:
        parts.append("Message placeholders: " + "; ".join(f"`{{{k}}}` {v}" for k, v in kind.facts.items()) + ".")
    parts.append(f"Default message: `{kind.message}`." if kind.message else
                 "Default message: worded by case (see the example).")
    example = kind.example
    if example is not None:
        verdict = run_example(name, kind, example)
        result = ("not judged" if verdict is None else "passes" if verdict.passed
                  else f"fails: `` {verdict.message} ``" if verdict.message else "fails (a signal: no message)")
        case = f"case `{json.dumps(example.case, ensure_ascii=False)}`, " if example.case else ""
        grounding = f"grounding_source `{example.grounding}`, " if example.grounding != "none" else ""
        parts += ["", "```toml", example_rules(name, kind, example).rstrip("\n"), "```",
                  f"On {case}{grounding}surface `` {example.surface} ``"
                  + f": **{result}**."]
    parts.append("")
    return parts


def rules_file_reference() -> str:
    """Every table and key of a rules file, from the declarative schema (lanes.RULES_FILE)."""
    from ..rules.loader import DETAIL_ANALYSIS_FIELDS, DETAIL_TURN_FIELDS, RULES_FILE

    parts = ["## Tables and keys", "", "Generated from the schema the validator checks (`lanes.RULES_FILE`); "
             "an unknown table or key, a wrong type, `nan`/`inf` or an empty term is a `file:line:column` error.", ""]
    for table, node in RULES_FILE.keys.items():
        header = f"[[{table}]]" if isinstance(node, ArrayOf) else f"[{table}]"
        parts += [f"### `{header}`", ""]
        inner = node.table if isinstance(node, ArrayOf) else node
        if isinstance(inner, MapOf):
            parts.append(inner.doc)
            value = inner.value
            if isinstance(value, Table):
                for key, sub in value.keys.items():
                    if isinstance(sub, ArrayOf):
                        parts += ["", *_keys_table(value.keys), "", f"Each of `{key}`:", "", *_keys_table(sub.table.keys)]
                        break
                else:
                    parts += ["", *_keys_table(value.keys)]
            else:
                parts += ["", "Each key is a detail field; its value is an expression (the one language of "
                          "`when` and `[casework]`) over `case` (the case's fields), `turn.` + one of "
                          + ", ".join(f"`{f}`" for f in DETAIL_TURN_FIELDS)
                          + ", `analysis.` + one of " + ", ".join(f"`{f}`" for f in DETAIL_ANALYSIS_FIELDS)
                          + ", `verdicts` (every reported predicate's verdict) and `signal('NAME')` (a predicate, "
                          "case field or `@expected` signal); `default(case.FIELD, VALUE)` gives a value when the "
                          "field is missing. The old `SOURCE|DEFAULT` and `signal.A&B` forms are load errors that "
                          "give the expression to write (docs/rules.md, \"Details\")."]
        elif isinstance(inner, Table):
            parts += _keys_table(inner.keys)
            for key, sub in inner.keys.items():
                if isinstance(sub, MapOf) and isinstance(sub.value, Table):
                    parts += ["", f"Each entry of `{key}`:", "", *_keys_table(sub.value.keys)]
                elif isinstance(sub, Table):
                    parts += ["", f"`{key}`:", "", *_keys_table(sub.keys)]
        parts.append("")
    from ..model.operators import METRIC_KINDS, OPERATORS
    from ..rules.extends import EXTENDING_KEYS

    parts += ["### Under `extends`: `remove` and `renames`", "",
              "Keys an entry of a named array (`[[predicates]]`, `[[metrics]]`, `[[casework.values]]`, "
              "`[[casework.metrics]]`) or a table takes only in a file with `[lane] extends`; elsewhere they are "
              "unknown keys, and one naming nothing inherited is an error at its key with a did-you-mean "
              "(docs/rules.md, \"Extending a lane\").", "", *_keys_table(EXTENDING_KEYS), ""]
    parts += ["## Threshold operators", "", "One list (`operators.OPERATORS`) and one compare function for "
              "`[thresholds.*]` checks and `kind = \"thresholds\"` metrics' checks:", "",
              "| op | passes when the metric is | better |", "|---|---|---|",
              *[f"| `{op}` | {meaning} | {better} |" for op, (meaning, better) in OPERATORS.items()], "",
              "## Metric kinds", "", "One list (`operators.METRIC_KINDS`) for the one `[[metrics]]` table; each kind "
              "names the sorts of lane that compute it:", "",
              "| kind | computes | classic lane | case-driven lane |", "|---|---|---|---|",
              *[f"| `{kind}` | {what} | {'yes' if 'metrics' in tables else '—'} | "
                f"{'yes' if 'casework' in tables else '—'} |" for kind, (what, tables) in METRIC_KINDS.items()], ""]
    return "\n".join(parts)


def reference_markdown() -> str:
    return ("# Rules files: the reference\n\n<!-- Generated by `python -m surface_lint.reporters.docs --reference "
            "docs/rules-reference.md`; a test fails when it is stale. -->\n\n" + rules_file_reference()
            + "\n" + kinds_reference())


def update_readme(readme: Path, engine: Engine) -> bool:
    """Rewrite the table between the rules-table markers; True when the file changed."""
    text = readme.read_text(encoding="utf-8")
    start, end = "<!-- rules-table:start -->\n", "<!-- rules-table:end -->"
    head, _, rest = text.partition(start)
    _, _, tail = rest.partition(end)
    new = head + start + render_rules_table(engine) + end + tail
    if new != text:
        readme.write_text(new, encoding="utf-8")
        return True
    return False


if __name__ == "__main__":  # python -m surface_lint.reporters.docs README.md  |  --reference docs/rules-reference.md
    import sys

    if len(sys.argv) > 2 and sys.argv[1] == "--reference":
        Path(sys.argv[2]).write_text(reference_markdown(), encoding="utf-8")
        raise SystemExit(0)
    changed = update_readme(Path(sys.argv[1] if len(sys.argv) > 1 else "README.md"), Engine())
    print("README.md updated" if changed else "README.md already current")


def key_markdown(key: str, node: Any) -> str:
    """One key of a rules file as its reference entry says it (the editor's hover on the key)."""
    if isinstance(node, Value):
        choices = f" One of {', '.join(f'`{c}`' for c in node.choices)}." if node.choices else ""
        return f"`{key}`: {type_text(node.type)}, default {_default(node)}.\n\n{node.doc}{choices}".rstrip()
    shape = "an array of tables" if isinstance(node, ArrayOf) else "a table"
    return f"`{key}`: {shape}.\n\n{getattr(node, 'doc', '')}".rstrip()
