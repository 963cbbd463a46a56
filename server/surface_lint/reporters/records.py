"""A finding as a JSON record, encoded once per finding for every format that writes findings as
JSON (json, json-lines, SARIF's results).

Each record shape gets one %-template, made by the format's own encoder from the record with every
value a slot; a finding's values are then encoded as that encoder encodes them (strings by json's
`encode_basestring`, ints by `int.__repr__`) and put in the template's slots. A value of another
type (an int subclass, a record id that is not a string) takes the format's encoder on the whole
record, so the text is the encoder's own in every case.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from json.encoder import encode_basestring
from operator import call, itemgetter
from typing import Any

from ..model.findings import Finding, Severity, unpacked_finding

_SLOT = "\0surface-lint-slot-%d\0"  # a value's place in a record, unique in the encoded text
_TEMPLATES_KEPT = 256  # record shapes remembered per encoder (findings take few: related and fixes are rare)
_LABELS = {s: s.label for s in Severity}
_INT_LABELS = {int(s): s.label for s in Severity}  # a packed finding's severity is its number

Encode = Callable[[Any], str]
Reorder = Callable[[Sequence[str]], tuple[str, ...]]
_Template = tuple[str, Reorder, tuple[type, ...], tuple[Encode, ...]]


def slot_template(build: Callable[[Callable[[], str]], Any], encode: Encode) -> tuple[str, Reorder]:
    """`encode(build(slot))` with each slot's encoded text made `%s`, and what puts values given in
    the order `build` asked for its slots into the order of the template's (a sorting encoder
    writes them in key order)."""
    count = 0

    def slot() -> str:
        nonlocal count
        count += 1
        return _SLOT % (count - 1)

    text = encode(build(slot)).replace("%", "%%")
    marks = [encode_basestring(_SLOT % i) for i in range(count)]
    if any(text.count(mark) != 1 for mark in marks):
        raise ValueError("a slot is not written exactly once")
    order = sorted(range(count), key=lambda i: text.index(marks[i]))
    for mark in marks:
        text = text.replace(mark, "%s", 1)
    if count == 1:
        return text, lambda values: (values[0],)
    return text, itemgetter(*order)


class FindingRecords:
    """`encode({**head, **f.to_dict()})` for each finding `f`, by template (see the module)."""

    __slots__ = ("encode", "head", "templates")

    def __init__(self, encode: Encode, head: dict[str, Any] | None = None) -> None:
        self.encode = encode
        self.head = dict(head or {})  # members written before the finding's own (json-lines' `type`)
        # (related count, fixes count, has a record id) -> template, reorder, the values' types, their encoders
        self.templates: dict[tuple[int, int, bool], _Template] = {}

    def _whole(self, f: Finding) -> str:
        return self.encode({**self.head, **f.to_dict()}) if self.head else self.encode(f.to_dict())

    def _template(self, shape: tuple[int, int, bool]) -> _Template:
        related, fixes, case = shape

        def build(slot: Callable[[], str]) -> dict[str, Any]:
            record: dict[str, Any] = dict(self.head)
            record.update(path=slot(), line=slot(), column=slot(), end_line=slot(), end_column=slot(), code=slot(),
                          rule=slot(), severity=slot(), message=slot())
            if case:
                record["record_id"] = slot()
            if related:
                record["related"] = [{"path": slot(), "line": slot(), "column": slot(), "end_line": slot(),
                                      "end_column": slot(), "message": slot()} for _ in range(related)]
            if fixes:
                record["fixes"] = [{"title": slot(), "line": slot(), "column": slot(), "end_line": slot(),
                                    "end_column": slot(), "replacement": slot()} for _ in range(fixes)]
            return record

        text, reorder = slot_template(build, self.encode)
        types = (str, int, int, int, int, str, str, str, str, *((str,) if case else ()),
                 *((str, int, int, int, int, str) * related), *((str, int, int, int, int, str) * fixes))
        return text, reorder, types, tuple(encode_basestring if t is str else int.__repr__ for t in types)

    def __call__(self, f: Finding | tuple[Any, ...]) -> str:
        if type(f) is tuple:
            return self._packed(f)
        assert isinstance(f, Finding)
        loc = f.location
        related, fixes, record_id = f.related, f.fixes, f.record_id
        shape = (len(related), len(fixes), record_id is not None)
        label = _LABELS.get(f.severity) if type(f.severity) is Severity else None
        values: list[Any] = [loc.path, loc.line, loc.column, loc.end_line, loc.end_column, f.code, f.rule, label,
                             f.message]
        if record_id is not None:
            values.append(record_id)
        for r in related:
            at = r.location
            values += (at.path, at.line, at.column, at.end_line, at.end_column, r.message)
        for x in fixes:
            at = x.location
            values += (x.title, at.line, at.column, at.end_line, at.end_column, x.replacement)
        text = self._written(shape, values)
        return text if text is not None else self._whole(f)

    def _packed(self, packed: tuple[Any, ...]) -> str:
        """`self(unpacked_finding(packed))`, from the tuple (model/findings.py packed_finding)."""
        loc, code, rule, severity, message, record_id, related, fixes, _, _ = packed
        shape = (len(related), len(fixes), record_id is not None)
        values: list[Any] = [*loc, code, rule, _INT_LABELS.get(severity), message]
        if record_id is not None:
            values.append(record_id)
        for at, note in related:
            values += (*at, note)
        for title, at, replacement in fixes:
            values += (title, *at[1:], replacement)
        text = self._written(shape, values)
        return text if text is not None else self._whole(unpacked_finding(packed))

    def _written(self, shape: tuple[int, int, bool], values: list[Any]) -> str | None:
        """A record of this shape with these values by its template; None when a value is not of
        the type the template encodes as the encoder would (the caller takes the encoder)."""
        found = self.templates.get(shape)
        if found is None:
            found = self._template(shape)
            if len(self.templates) < _TEMPLATES_KEPT:
                self.templates[shape] = found
        template, reorder, types, encoders = found
        if tuple(map(type, values)) != types:
            return None
        return template % reorder(list(map(call, encoders, values)))


def stored_findings(findings: Iterable[Finding]) -> Iterable[Finding | tuple[Any, ...]]:
    """The findings as their run keeps them (engine/score.py KeptFindings.stored_items: a Finding or its
    packed tuple), else as they are: what `FindingRecords` encodes without rebuilding them."""
    stored = getattr(findings, "stored_items", None)
    return stored() if stored is not None else findings
