"""One summation for every metric: the in-order sum and the exact sum of the same numbers.

A case-driven lane's runner sums its numbers in case order with Python's `+` (and its reports
are reproduced bit for bit); a classic lane's metrics are exact, whatever order its cases are
counted in (`--jobs` workers merge their parts in any grouping). `Sum` keeps both, and the
metric says which one it reports (`fold.FoldMetric.exact`):

* `in_order()`: `((0 + x1) + x2) + …`, as Python's `sum` gives it (ints stay ints until a float
  comes);
* `exact()`: the correctly rounded sum of every number, an int while every number is one (else
  `math.fsum` of Shewchuk's partials and the ints' exact total), the same for any order of
  adding or merging.

Memory is bounded: the partials are non-overlapping doubles, so there are never more of them
than bit positions a double can hold (2,098, from 2**-1074 to 2**1023), however many numbers
are added; in practice a handful (a few hundred for numbers spread over the whole range of
doubles, with cancelling signs). An infinity or a NaN among the numbers, or a partial sum past the largest double, is
kept apart as the exact sum's result (IEEE: that infinity, or NaN), so the partials never grow
without end. `low` and `high` are the least and the greatest number (the first of equals).
"""

from __future__ import annotations

import math
from typing import Any

_isfinite = math.isfinite


class Sum:
    """The numbers of one metric (or one value slot) over some items."""

    __slots__ = ("count", "high", "ints", "low", "partials", "running", "special")

    def __init__(self) -> None:
        self.count = 0  # numbers added
        self.ints = 0  # the exact total of the ints
        self.partials: list[float] | None = None  # Shewchuk's partials of the floats (set once one is added)
        self.running: Any = 0  # the in-order sum
        self.special: float | None = None  # an infinity or NaN the exact sum is (see the module)
        self.low: Any = None
        self.high: Any = None

    def add(self, x: int | float) -> None:
        """One number, after those already added."""
        self.count += 1
        self.running = self.running + x
        if isinstance(x, int):
            self.ints += x
        else:
            self._add_float(x)
        if self.low is None or x < self.low:
            self.low = x
        if self.high is None or x > self.high:
            self.high = x

    def bound(self, x: int | float) -> None:
        """One number for `low` and `high` only (a min or max metric sums nothing)."""
        self.count += 1
        if self.low is None or x < self.low:
            self.low = x
        if self.high is None or x > self.high:
            self.high = x

    def _add_float(self, x: float) -> None:
        partials = self.partials if self.partials is not None else []
        self.partials = partials
        if not _isfinite(x):
            self._special(x)
            return
        i = 0
        for y in partials:  # msum: partials stay exact, non-overlapping and few
            if abs(x) < abs(y):
                x, y = y, x
            hi = x + y
            lo = y - (hi - x)
            if lo:
                partials[i] = lo
                i += 1
            x = hi
        if not _isfinite(x):  # past the largest double: the exact sum overflows
            partials[:] = []
            self._special(x)
            return
        partials[i:] = [x]

    def _special(self, x: float) -> None:
        self.special = x if self.special is None else self.special + x

    def merge(self, other: Sum) -> None:
        """Another part's numbers, as if added after these: exact for `exact()`; `in_order()`
        becomes this part's in-order sum plus the other's."""
        self.count += other.count
        self.running = self.running + other.running
        self.ints += other.ints
        if other.partials is not None:
            if self.partials is None:
                self.partials = []
            for x in other.partials:
                self._add_float(x)
        if other.special is not None:
            self._special(other.special)
        for x in (other.low, other.high):
            if x is not None:
                if self.low is None or x < self.low:
                    self.low = x
                if self.high is None or x > self.high:
                    self.high = x

    def in_order(self) -> Any:
        return self.running

    def exact(self) -> int | float:
        if self.special is not None:
            return self.special
        if self.partials is None:
            return self.ints
        return math.fsum([*self.partials, self.ints]) if self.ints else math.fsum(self.partials)


__all__ = ["Sum"]
