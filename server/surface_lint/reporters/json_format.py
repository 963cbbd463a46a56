"""JSON output: sorted keys, no timestamps; the lane's per-case details match the runner's.

Written as the rows stream by (cases, findings), byte for byte what
`json.dumps(payload, sort_keys=True, indent=2, ensure_ascii=False)` gives for the whole payload.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import partial
from json.encoder import encode_basestring
from operator import call, itemgetter
from typing import TYPE_CHECKING, Any, TextIO

from ..engine import LaneResult
from ..engine.details import SharedDetails
from ..engine.scoring import Outcome
from ..engine.spool import Spool
from ..model.findings import Finding
from .common import FindingFilter, LaneChoices, SafeOut, capture, lane_records
from .records import FindingRecords, stored_findings

if TYPE_CHECKING:
    from .options import CheckRun

_encode_str: Callable[[str], str] = encode_basestring
_INF = float("inf")


def dumps(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == _INF:
        return "Infinity"
    if value == -_INF:
        return "-Infinity"
    return float.__repr__(value)


def indented(value: Any, pad: str = "", sort_keys: bool = True) -> str:
    """`json.dumps(value, indent=2, sort_keys=sort_keys, ensure_ascii=False)` at indentation
    `pad` (its first line unpadded): the same text, without the pure-Python encoder's cost."""
    t = type(value)
    if t is str:
        return _encode_str(value)
    if t is dict:
        if not value:
            return "{}"
        if sort_keys:
            shape = _shape(value, pad)
            if shape is not None:
                return shape.write(value)
        inner = pad + "  "
        sep = ",\n" + inner
        items = sorted(value.items()) if sort_keys else value.items()
        keys = _KEYS
        parts = []
        for k, v in items:
            ek = keys.get(k)
            if ek is None:
                ek = _key(k)
                if len(keys) < 4096 and type(k) is str:  # 1 and True are one dict key, not one JSON key
                    keys[k] = ek
            tv = type(v)
            if tv is str:
                parts.append(ek + _encode_str(v))
            elif tv is bool:
                parts.append(ek + ("true" if v else "false"))
            elif v is None:
                parts.append(ek + "null")
            elif tv is int:
                parts.append(ek + int.__repr__(v))
            elif tv is dict and sort_keys:
                parts.append(ek + _small_dict(v, inner))
            else:
                parts.append(ek + indented(v, inner, sort_keys))
        return "{\n" + inner + sep.join(parts) + "\n" + pad + "}"
    if t is list or t is tuple:
        if not value:
            return "[]"
        inner = pad + "  "
        sep = ",\n" + inner
        if all(type(v) is str for v in value):
            return "[\n" + inner + sep.join(map(_encode_str, value)) + "\n" + pad + "]"
        return "[\n" + inner + sep.join(indented(v, inner, sort_keys) for v in value) + "\n" + pad + "]"
    if value is None:
        return "null"
    if t is bool:
        return "true" if value else "false"
    if t is int:
        return int.__repr__(value)
    if t is float:
        return _float(value)
    if isinstance(value, Mapping):
        return indented(dict(value), pad, sort_keys)
    # Anything else (an int or float subclass, an enum): as the json module writes it.
    return json.dumps(value, indent=2, sort_keys=sort_keys, ensure_ascii=False).replace("\n", "\n" + pad)


_KEYS: dict[Any, str] = {}  # encoded `"key": ` prefixes (detail and finding keys repeat)


class _Shape:
    """A dict shape (its keys in insertion order, at one indentation): its values read in sorted
    key order by one C call, and the text around them as one %-template. Case details and
    findings take few shapes, and each shape few value-type signatures."""

    __slots__ = ("encoders", "inner", "read", "template")

    def __init__(self, keys: tuple[str, ...], pad: str) -> None:
        self.inner = inner = pad + "  "
        ordered = sorted(keys)
        self.read: Callable[[dict[str, Any]], tuple[Any, ...]] = _tuple_getter(ordered)
        text = "{" + "".join(("\n" if i == 0 else ",\n") + inner + _key(k).replace("%", "%%") + "%s"
                             for i, k in enumerate(ordered))
        self.template = text + "\n" + pad + "}"
        # Value types (in sorted key order) -> one encoder per value (what _encoder picks for its type).
        self.encoders: dict[tuple[type, ...], tuple[Callable[[Any], str], ...]] = {}

    def write(self, value: dict[str, Any]) -> str:
        values = self.read(value)
        types = tuple(map(type, values))
        encoders = self.encoders.get(types)
        if encoders is None:
            encoders = tuple(_encoder(t, self.inner) for t in types)
            if len(self.encoders) < 64:
                self.encoders[types] = encoders
        return self.template % tuple(map(call, encoders, values))


def _tuple_getter(keys: list[str]) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    if len(keys) == 1:
        only = keys[0]
        return lambda value: (value[only],)
    return itemgetter(*keys)


_BOOL_TEXT = {True: "true", False: "false"}.__getitem__
_NULL_TEXT = {None: "null"}.__getitem__


def _encoder(t: type, pad: str) -> Callable[[Any], str]:
    """How a member's value of exact type `t` is written at indentation `pad` (as `indented`)."""
    if t is str:
        return _encode_str
    if t is bool:
        return _BOOL_TEXT
    if t is type(None):
        return _NULL_TEXT
    if t is int:
        return int.__repr__
    if t is dict:
        return partial(_small_dict, pad=pad)
    return partial(indented, pad=pad)


_SHAPES: dict[tuple[tuple[str, ...], str], _Shape] = {}


def _shape(value: dict[Any, Any], pad: str) -> _Shape | None:
    keys = tuple(value)
    found = _SHAPES.get((keys, pad))
    if found is not None:  # equal to a tuple of str keys: all str too (a str equals no other type)
        return found
    if len(_SHAPES) >= 4096 or not all(type(k) is str for k in keys):
        return None
    found = _SHAPES[(keys, pad)] = _Shape(keys, pad)
    return found


_SMALL: dict[tuple[str, tuple[tuple[Any, Any], ...], tuple[type, ...]], str] = {}  # nested dicts of scalars that repeat


def _small_dict(value: dict[Any, Any], pad: str) -> str:
    """A nested object (sorted keys), remembered when its items are hashable scalars: a case's
    `predicates` verdict map takes few distinct values however many cases there are."""
    try:
        # Key and value types are part of the key: True == 1 == 1.0, but each is written its own way.
        key = (pad, tuple(value.items()), (*map(type, value), *map(type, value.values())))
        hit = _SMALL.get(key)
    except TypeError:  # a list or dict inside: not remembered
        return indented(value, pad)
    if hit is None:
        hit = indented(value, pad)
        if len(_SMALL) < 4096:
            _SMALL[key] = hit
    return hit


WRITE_ITEMS = 256  # an array's or object's items joined into one write (bounded: a few hundred short texts)

# A case's indentation in the report's `cases` array (the top-level object's array items).
CASE_PAD = "    "
# The value put at a case id's place to find where its text goes (a NUL never ends up in a case
# id or a detail unescaped; a detail that holds this very text makes the split refuse).
_ID_MARK = "\x00surface-lint case id\x00"
_ID_MARK_TEXT = _encode_str(_ID_MARK)


def case_text(details: Mapping[str, Any]) -> str:
    """A case's details as the report writes them in `cases`."""
    return indented(details, CASE_PAD)


def case_id_text(value: Any) -> str:
    """A detail's value as it is written at a case's member indentation (the case id's)."""
    return _encode_str(value) if type(value) is str else indented(value, CASE_PAD + "  ")


def case_text_around(details: Mapping[str, Any], id_key: str) -> tuple[str, str] | None:
    """`case_text(details)` as the text before and after `id_key`'s value (whatever the value:
    it is replaced), for a case whose details repeat another's but for its id; None when that
    place cannot be told from the text (another value holds the mark)."""
    text = case_text({**details, id_key: _ID_MARK})
    at = text.find(_ID_MARK_TEXT)
    if at < 0 or text.find(_ID_MARK_TEXT, at + 1) >= 0:
        return None
    return text[:at], text[at + len(_ID_MARK_TEXT):]


class SharedCases:
    """The text of shared case details (engine/details.py `SharedDetails`): the text around the
    id made once per serial (at most 4,096 remembered), the id's own text per case."""

    def __init__(self) -> None:
        self._around: dict[int, tuple[str, ...]] = {}  # () when the id cannot be told apart in the text

    def __call__(self, shared: SharedDetails) -> str:
        serial, details, id_key, id_value = shared
        around = self._around.get(serial)
        if around is None:
            made = case_text_around(details, id_key) if id_key else (case_text(details), "")
            around = made if made is not None else ()
            if len(self._around) >= 4096:
                self._around.clear()
            self._around[serial] = around
        if not around:  # the whole text, each time
            return case_text({**details, id_key: id_value})
        if not id_key:
            return around[0]
        return around[0] + (_encode_str(id_value) if type(id_value) is str else case_id_text(id_value)) + around[1]


def _key(key: Any) -> str:
    if isinstance(key, str):
        return _encode_str(key) + ": "
    if isinstance(key, bool):
        return ('"true"' if key else '"false"') + ": "
    if key is None:
        return '"null": '
    return _encode_str(indented(key)) + ": "


class ObjectWriter:
    """A JSON object written member by member (in the order given), at indentation 2 per level;
    a member's value may be a stream of items (an array written as they come)."""

    def __init__(self, write: Callable[[str], None], pad: str = "", sort_keys: bool = True) -> None:
        self.write = write
        self.pad = pad
        self.inner = pad + "  "
        self.sort_keys = sort_keys
        self.first = True

    def _member(self, key: str) -> None:
        self.write(("{\n" if self.first else ",\n") + self.inner + _key(key))
        self.first = False

    def value(self, key: str, value: Any) -> None:
        self._member(key)
        self.write(indented(value, self.inner, self.sort_keys))

    def array(self, key: str, items: Iterable[Any]) -> None:
        pad = self.item_pad
        self.encoded(key, (indented(item, pad, self.sort_keys) for item in items))

    def encoded(self, key: str, texts: Iterable[str]) -> None:
        """An array member whose items come encoded, each at this array's item indentation
        (`item_pad`)."""
        self._member(key)
        self._items(texts, "[", "]")

    def _items(self, texts: Iterable[str], opening: str, closing: str) -> None:
        # Written WRITE_ITEMS items to a write (a run writes hundreds of thousands of items; the
        # stream's write, and SafeOut's escape of what it cannot encode, work the same on the join).
        write = self.write
        separator = ",\n" + self.item_pad
        it = iter(texts)
        first = next(it, None)
        if first is None:
            write(opening + closing)
            return
        parts = [opening + "\n" + self.item_pad + first]
        append = parts.append
        for text in it:
            append(text)
            if len(parts) > WRITE_ITEMS:
                write(separator.join(parts))
                parts = [""]
                append = parts.append
        write(separator.join(parts) + "\n" + self.inner + closing)

    @property
    def item_pad(self) -> str:
        return self.inner + "  "

    def findings(self, key: str, findings: Iterable[Finding]) -> None:
        """An array of findings, each as `Finding.to_dict` gives it (one template per record shape)."""
        pad = self.item_pad
        self.encoded(key, map(FindingRecords(lambda record: indented(record, pad, self.sort_keys)),
                              stored_findings(findings)))

    def mapping(self, key: str, items: Iterable[tuple[str, Any]]) -> None:
        """An object member whose own members stream by (keys already in order)."""
        pad = self.inner + "  "
        self.members(key, (_key(k) + indented(v, pad, self.sort_keys) for k, v in items))

    def members(self, key: str, texts: Iterable[str]) -> None:
        """An object member whose own members come encoded (`"key": value`, keys in order), each
        at this object's member indentation (`item_pad`)."""
        self._member(key)
        self._items(texts, "{", "}")

    def close(self) -> None:
        self.write("{}" if self.first else "\n" + self.pad + "}")


def write_check(run: CheckRun, out: TextIO, lanes: LaneChoices = ()) -> None:
    w = SafeOut(out).write
    obj = ObjectWriter(w)
    n = 0

    def counted() -> Iterable[Finding]:
        nonlocal n
        for f in run.findings:
            n += 1
            yield f

    # Sorted keys: counts (which holds the findings count) comes before findings.
    obj.value("counts", {"blank": run.blank, "errors": run.errors, "findings": len(run.findings),
                         "lines": run.lines, "records": run.records, "skipped": run.skipped})
    obj.value("files", run.files)
    obj.findings("findings", counted())
    if lanes:  # each lane and how it was chosen, with its files
        obj.value("lanes", lane_records(lanes))
    obj.value("profile", run.profile)
    obj.value("tool", "surface-lint")
    obj.close()
    w("\n")


def check_payload(run: CheckRun) -> dict[str, Any]:
    return json.loads(capture(lambda out: write_check(run, out)))  # type: ignore[no-any-return]


def render_check(run: CheckRun, colour: bool = False) -> str:
    return capture(lambda out: write_check(run, out))


def _thresholds(result: LaneResult) -> list[dict[str, Any]]:
    return [
        {"metric": t.check.metric, "op": t.check.op, "value": t.check.value, "tolerance": t.check.tolerance,
         "actual": t.actual, "passed": t.passed}
        for t in result.thresholds
    ]


def write_lane(result: LaneResult, out: TextIO, lanes: LaneChoices = (),
               findings_filter: FindingFilter | None = None) -> None:
    w = SafeOut(out).write
    obj = ObjectWriter(w)
    # failed_predicates is keyed by case id (sorted): gathered while the cases stream by.
    failed: Spool[tuple[str, tuple[str, ...]]] = Spool(key=_first)  # in order already, mostly: cheap to sort

    rows = result.case_rows

    def cases() -> Iterator[str]:
        append = failed.append
        shared = SharedCases()
        for case_id, failed_names, details in rows if rows is not None else _light(result.outcomes):
            if failed_names:
                append((case_id, failed_names if type(failed_names) is tuple else tuple(failed_names)))
            if isinstance(details, tuple):  # shared by repeated cases (engine/score.py light_row)
                yield shared(details)
            elif details is not None:
                yield case_text(details)

    assert obj.item_pad == CASE_PAD
    obj.encoded("cases", cases())
    s = result.stats
    obj.value("counts", {"blank": s.blank, "cases": len(result.outcomes), "errors": s.errors, "lines": s.lines,
                         "records": s.records, "skipped": s.skipped})
    obj.members("failed_predicates", _failed_members(failed, obj.item_pad))
    failed.close()
    obj.findings("findings", result.findings)
    obj.value("headline", result.headline)
    obj.value("lane", result.lane)
    if lanes:  # how the lane was chosen (beside the runner-shaped keys, which stay as they are)
        obj.value("lane_choice", lane_records(lanes)[0])
    obj.value("metric_aliases", result.metric_aliases)
    obj.value("metrics", result.metrics)
    obj.array("missing_transcripts", result.missing_transcripts)  # streamed: the ids may be kept on disk
    if result.nothing_scored is not None:
        obj.value("nothing_scored", result.nothing_scored)
    obj.value("passed", result.passed)
    obj.value("profile", result.profile)
    if result.sections:  # a case-driven lane's report sections beside `metrics` (`by_class`)
        obj.value("sections", dict(result.sections))
    if findings_filter is not None:  # --select/--ignore: the findings shown and hidden
        obj.value("selection", findings_filter.record())
    obj.value("sources", result.sources)
    if result.split is not None:
        obj.value("split", result.split)
    obj.value("threshold_set", result.threshold_set)
    obj.value("thresholds", _thresholds(result))
    if result.timestamp is not None:
        obj.value("timestamp", result.timestamp)
    obj.value("tool", "surface-lint")
    obj.array("unbucketed_cases", result.remainder)  # streamed: the ids may be kept on disk
    obj.array("unknown_cases", result.unknown_cases)  # streamed: the ids may be kept on disk
    obj.value("version", result.version)
    obj.close()
    w("\n")


def _light(outcomes: Iterable[Outcome]) -> Iterator[tuple[str, tuple[str, ...], dict[str, Any] | None]]:
    """A result built without `case_rows`: the same view from its outcomes."""
    for o in outcomes:
        yield o.case_id, o.failed, o.details


_first: Callable[[tuple[str, tuple[str, ...]]], str] = itemgetter(0)


def _failed_members(failed: Iterable[tuple[str, tuple[str, ...]]], pad: str) -> Iterator[str]:
    """`failed_predicates`' members: each case's failed names, one text per set of names (a
    lane's failing cases fail few distinct sets)."""
    texts: dict[tuple[str, ...], str] = {}
    for case_id, names in failed:
        text = texts.get(names)
        if text is None:
            text = indented(names, pad)
            if len(texts) >= 4096:
                texts.clear()
            texts[names] = text
        yield (_encode_str(case_id) + ": " if type(case_id) is str else _key(case_id)) + text


def lane_payload(result: LaneResult) -> dict[str, Any]:
    """The whole JSON report as one object (small runs: the baseline, tests)."""
    return json.loads(capture(lambda out: write_lane(result, out)))  # type: ignore[no-any-return]


def render_lane(result: LaneResult, colour: bool = False) -> str:
    return capture(lambda out: write_lane(result, out))
