"""What hover and completion say about a lane's case fields (nested ones too) and about the
names a case-driven lane's `[casework]` gives its per-case values and report fields."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...reporters.docs import predicate_markdown
from ...rules.loader import FieldSpec, Lane
from .common import md_code, md_text, no_html

# One step of a path into a case record: (field name, whether the step enters one item of a list).
FieldStep = tuple[str, bool]


def fields_at(fields: Mapping[str, FieldSpec], path: Sequence[FieldStep]) -> Mapping[str, FieldSpec] | None:
    """The fields declared inside the object at `path` (None when the schema does not type it):
    a step into an object field needs type `object`, into a list item `list[object]`."""
    for name, item in path:
        spec = fields.get(name)
        if spec is None or spec.type != ("list[object]" if item else "object"):
            return None
        fields = spec.fields
    return fields


def dotted(path: Sequence[FieldStep], name: str) -> str:
    """`constraints.must_contain`, `turns[].prompt`: how the docs and kinds name a nested field."""
    return ".".join([*(f"{n}[]" if item else n for n, item in path), name])


def field_detail(spec: FieldSpec) -> str:
    need = "required" if spec.required else "optional"
    return f"{spec.type}, {need}" + (", predicate names" if spec.predicate_list else "")


def field_markdown(lane: Lane, path: Sequence[FieldStep], spec: FieldSpec) -> str:
    """`Case field `a.b` of lane `x`: type, required.` then its description and inner fields."""
    text = f"Case field {md_code(dotted(path, spec.name))} of lane {md_code(lane.name)}: {md_text(field_detail(spec))}."
    if spec.description:
        text += "\n\n" + md_text(spec.description)
    if spec.fields:
        inner = ", ".join(f"{md_code(n)} ({md_text(f.type)})" for n, f in spec.fields.items())
        text += f"\n\nFields: {inner}."
    return text


def casework_markdown(lane: Lane, name: str) -> str | None:
    """Docs for a name of the lane's `[casework]`: a per-case or per-turn value (with its
    predicate's docs when a predicate gives it) or a report field of `[casework.details]`."""
    work: Any = getattr(lane, "casework", None)
    if work is None:
        return None
    parts: list[str] = []
    detail = getattr(work, "details", {}).get(name)
    value = next((v for v in (*getattr(work, "values", ()), *getattr(work, "turn_values", ())) if v.name == name), None)
    if detail is not None:
        parts.append(f"Report field {md_code(name)} of lane {md_code(lane.name)} (`[casework.details]`): "
                     f"{md_code(_oneline(detail.text))}.")
        if value is None and _oneline(detail.text) != name:
            value = next((v for v in getattr(work, "values", ()) if v.name == _oneline(detail.text)), None)
    if value is not None:
        parts.append(_value_markdown(lane, value))
    return "\n\n".join(parts) if parts else None


def _value_markdown(lane: Lane, value: Any) -> str:
    where = "per-turn value" if not hasattr(value, "quantifier") else "per-case value"
    head = f"Casework {where} {md_code(value.name)} of lane {md_code(lane.name)}"
    if value.predicate is not None:
        quantifier = getattr(value, "quantifier", None)
        text = f"{head}: predicate {md_code(value.predicate)} on the turns of view {md_code(value.view)}"
        if quantifier is not None:
            text += f" (quantifier {md_code(quantifier)})"
    else:
        text = f"{head}: {md_code(_oneline(value.expr.text))}"
    if value.when is not None:
        text += f", when {md_code(_oneline(value.when.text))}"
    text += "."
    spec = lane.predicate(value.predicate) if value.predicate is not None else None
    if spec is not None:
        text += "\n\n" + no_html(predicate_markdown(spec, lane))
    return text


def _oneline(text: str) -> str:
    return " ".join(text.split())
