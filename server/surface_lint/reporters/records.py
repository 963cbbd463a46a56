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
from typing import Any, Literal

from ..model.findings import Finding, Severity, packed_finding, unpacked_finding

_SLOT = "\0surface-lint-slot-%d\0"  # a value's place in a record, unique in the encoded text
PARTIAL_AFTER = 8  # writes of one finding's strings (path, code, message, ...) before they get their own template
_SEEN_KEPT = 4096  # strings counted toward it (cleared when full)
_PARTIALS_KEPT = 1024  # partly written templates per encoder (a run repeats a few messages; cleared when full)
_TEMPLATES_KEPT = 256  # record shapes remembered per encoder (findings take few: related and fixes are rare)
_LABELS = {s: s.label for s in Severity}
_INT_LABELS = {int(s): s.label for s in Severity}  # a packed finding's severity is its number

Encode = Callable[[Any], str]
Reorder = Callable[[Sequence[Any]], tuple[Any, ...]]
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

    __slots__ = ("encode", "head", "partials", "seen", "templates")

    def __init__(self, encode: Encode, head: dict[str, Any] | None = None) -> None:
        self.encode = encode
        self.head = dict(head or {})  # members written before the finding's own (json-lines' `type`)
        # (related count, fixes count, has a record id) -> template, reorder, the values' types, their encoders
        self.templates: dict[tuple[int, int, bool], _Template] = {}
        # (path, code, rule, severity, message, has a record id[, fix title, fix replacement]) -> a
        # template with those written (`_partly`), or False when they are not what it writes.
        self.partials: dict[tuple[Any, ...], tuple[str, Reorder | None] | Literal[False]] = {}
        self.seen: dict[tuple[Any, ...], int] = {}  # those strings' writes before their template is made

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
        if not related and len(fixes) <= 1 and (record_id is None or type(record_id) is str) and (
                type(loc.path) is type(f.code) is type(f.rule) is type(f.message) is str) and (
                not fixes or type(fixes[0].title) is type(fixes[0].replacement) is str):
            # As its packed tuple when it is a plain one (the spool's last findings, a --jobs merge's).
            try:
                packed = packed_finding(f)
            except ValueError:
                pass
            else:
                text = self._partly(packed)
                if text is not None:
                    return text
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
        if not related and len(fixes) <= 1 and (record_id is None or type(record_id) is str):
            text = self._partly(packed)
            if text is not None:
                return text
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

    def _partly(self, packed: tuple[Any, ...]) -> str | None:
        """`_packed(packed)` for a finding without related locations and with at most one fix, by
        a template of its shape with its strings but the record id already written (a run's
        findings repeat a few messages): only the positions and the record id go in. None when a
        position is not an int or the strings are not yet PARTIAL_AFTER writes old (the caller takes
        the whole template)."""
        loc, code, rule, severity, message, record_id, _, fixes, _, _ = packed
        _, line, column, end_line, end_column = loc
        if not type(line) is type(column) is type(end_line) is type(end_column) is int:
            return None
        case = record_id is not None
        if fixes:
            title, at, replacement = fixes[0]
            _, fix_line, fix_column, fix_end_line, fix_end_column = at
            if not type(fix_line) is type(fix_column) is type(fix_end_line) is type(fix_end_column) is int:
                return None
            key: tuple[Any, ...] = (loc[0], code, rule, severity, message, case, title, replacement)
        else:
            key = (loc[0], code, rule, severity, message, case)
        found = self.partials.get(key)
        if found is None:
            # A template costs tens of writes: made for strings that have come back PARTIAL_AFTER
            # times (a run with many distinct messages writes those the whole template's way).
            seen = self.seen.get(key, 0) + 1
            if seen < PARTIAL_AFTER:
                if len(self.seen) >= _SEEN_KEPT:
                    self.seen.clear()
                self.seen[key] = seen
                return None
            self.seen.pop(key, None)
            found = self._partial(packed)
            if len(self.partials) >= _PARTIALS_KEPT:
                self.partials.clear()
            self.partials[key] = found
        if found is False:
            return None
        template, reorder = found
        if fixes:
            values: tuple[Any, ...] = ((line, column, end_line, end_column, encode_basestring(record_id), fix_line,
                                        fix_column, fix_end_line, fix_end_column) if case else
                                       (line, column, end_line, end_column, fix_line, fix_column, fix_end_line,
                                        fix_end_column))
        elif case:
            values = (line, column, end_line, end_column, encode_basestring(record_id))
        else:
            values = (line, column, end_line, end_column)
        return template % (values if reorder is None else reorder(values))

    def _partial(self, packed: tuple[Any, ...]) -> tuple[str, Reorder | None] | Literal[False]:
        """The template `_partly` fills for findings like `packed`: the record of its shape with its
        strings written by the encoder and a slot at each position and the record id (ints and a
        string, as `_written` encodes them). False when one of its values is not of the type the
        whole template takes (the caller takes the encoder, as `_written` would)."""
        loc, code, rule, severity, message, record_id, _, fixes, _, _ = packed
        label = _INT_LABELS.get(severity)
        if not (type(loc[0]) is type(code) is type(rule) is type(message) is str and label is not None) or (
                fixes and not (type(fixes[0][0]) is type(fixes[0][2]) is str)):
            return False

        def build(slot: Callable[[], str]) -> dict[str, Any]:
            record: dict[str, Any] = dict(self.head)
            record.update(path=loc[0], line=slot(), column=slot(), end_line=slot(), end_column=slot(), code=code,
                          rule=rule, severity=label, message=message)
            if record_id is not None:
                record["record_id"] = slot()
            if fixes:
                title, _, replacement = fixes[0]
                record["fixes"] = [{"title": title, "line": slot(), "column": slot(), "end_line": slot(),
                                    "end_column": slot(), "replacement": replacement}]
            return record

        try:
            text, reorder = slot_template(build, self.encode)
        except ValueError:  # a string spelled like a slot: the whole template's way
            return False
        count = 4 + (record_id is not None) + 4 * bool(fixes)
        kept = reorder(range(count))
        return text, (None if list(kept) == list(range(count)) else reorder)

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
