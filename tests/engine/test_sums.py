"""engine/sums.py: one summation keeping the in-order sum and the exact sum of the same numbers."""

from __future__ import annotations

import math

from surface_lint.engine.sums import Sum


def _sum(*numbers: float) -> Sum:
    out = Sum()
    for x in numbers:
        out.add(x)
    return out


def test_in_order_and_exact_differ_where_floats_cancel() -> None:
    s = _sum(1e16, 1.0, -1e16)
    assert s.in_order() == 0.0  # (0 + 1e16) + 1.0 rounds to 1e16: the 1.0 is lost
    assert s.exact() == 1.0
    assert (s.count, s.low, s.high) == (3, -1e16, 1e16)


def test_tenths_sum_to_one_exactly_and_not_in_order() -> None:
    s = _sum(*[0.1] * 10)
    assert s.in_order() == 0.9999999999999999
    assert s.exact() == 1.0


def test_ints_stay_ints_in_both_sums() -> None:
    s = _sum(2**61, 14)
    assert s.in_order() == 2305843009213693966 and type(s.in_order()) is int
    assert s.exact() == 2305843009213693966 and type(s.exact()) is int
    assert s.partials is None


def test_ints_then_a_float_sum_as_python_does() -> None:
    s = _sum(1, 2, 0.5)
    assert s.in_order() == 3.5
    assert s.exact() == 3.5


def test_merge_is_exact_whatever_the_grouping() -> None:
    left, right = _sum(1e16, 1.0), _sum(-1e16)
    left.merge(right)
    assert left.exact() == 1.0
    assert left.in_order() == 0.0  # the parts' in-order sums added: 1e16 + -1e16
    assert (left.count, left.low, left.high) == (3, -1e16, 1e16)
    other = _sum(-1e16)
    other.merge(_sum(1.0, 1e16))
    assert other.exact() == 1.0


def test_min_and_max_keep_the_first_of_equals() -> None:
    s = Sum()
    for x in (1, 1.0, 2.0, 2):
        s.bound(x)
    assert (s.count, s.low, s.high) == (4, 1, 2.0)
    assert type(s.low) is int and type(s.high) is float
    assert s.in_order() == 0 and s.partials is None  # bound sums nothing


def test_an_infinity_or_an_overflow_is_the_exact_sum_and_the_partials_stay_empty() -> None:
    s = _sum(math.inf, 1.0, 2.0)
    assert s.exact() == math.inf and s.in_order() == math.inf
    assert s.partials == [3.0]  # the finite numbers still sum apart; the infinity decides
    both = _sum(math.inf, -math.inf)
    assert math.isnan(both.exact()) and math.isnan(both.in_order())
    over = _sum(1e308, 1e308)
    assert over.exact() == math.inf and over.in_order() == math.inf
    assert over.partials == []


def test_partials_stay_few_over_many_magnitudes() -> None:
    numbers = [(-1) ** i * 2.0 ** (i % 2000 - 1000) * (1 + i / 7) for i in range(20_000)]
    s = _sum(*numbers)
    assert len(s.partials or []) == 673  # non-overlapping: at most one per bit position (2,098)
    again = _sum(*numbers, *numbers)
    assert len(again.partials or []) <= 2098
    assert s.exact() == math.fsum(numbers)
    assert s.in_order() == sum(numbers)
