"""Rule documentation from one source (rules/*.toml and checks.py): CLI, hover, README table."""

from __future__ import annotations

import json
from pathlib import Path

from .checks import CHECKS, Check
from .engine import Engine
from .lanes import Lane, PredicateSpec


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
            parts.extend(predicate_markdown(s, lane) for s in lane.predicates)
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
            out.append({"code": s.code, "name": s.name, "lane": lane.name, "kind": s.kind,
                        "aliases": list(s.aliases), "default_severity": s.default_severity,
                        "report": s.report, "summary": s.summary, "what": s.what, "why": s.why,
                        "example_fail": s.example_fail, "example_pass": s.example_pass})
    for c in CHECKS.values():
        out.append({"code": c.code, "name": c.name, "lane": None, "kind": "check",
                    "default_severity": c.severity, "summary": c.summary, "what": c.what,
                    "why": c.why, "example_fail": c.example_fail, "example_pass": c.example_pass})
    return json.dumps(out, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


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


if __name__ == "__main__":  # python -m surface_lint.docs README.md
    import sys

    changed = update_readme(Path(sys.argv[1] if len(sys.argv) > 1 else "README.md"), Engine())
    print("README.md updated" if changed else "README.md already current")
