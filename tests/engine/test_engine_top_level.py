"""The top-level member scan (hot path of positions in JSONL) agrees with the full walk."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from surface_lint.model.positions import value_spans
from surface_lint.sources.base import top_level_members

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
                       max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(), _VALUES, max_size=6), st.sampled_from([None, 1, 2]), st.booleans())
def test_top_level_members_equal_the_full_walk(obj: dict[str, object], indent: int | None, ascii_only: bool) -> None:
    text = json.dumps(obj, indent=indent, ensure_ascii=ascii_only)
    full = value_spans(text, max_depth=len(text) + 1, want=1)
    expected = {path[0]: (span.start, span.end) for path, span in full.items() if len(path) == 1}
    assert top_level_members(text) == expected
