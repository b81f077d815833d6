"""The evidence's numbers and clock times indexed by value, so a claim's number finds the items
holding it by a range look-up instead of a comparison with every evidence number (2,000 answer
numbers against 40,000 evidence numbers took minutes that way).

A written number matches an evidence number within one unit of its last written digit (see
:func:`gsar_otel.core.text.number_matches`), so the candidates are the evidence values in
``[value - unit, value + unit]`` (and, for a percentage, the ratios in that range divided by
100); each candidate is then checked with ``number_matches`` itself, so the look-up finds
exactly what the all-pairs comparison found.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal

from gsar_otel.core.text import Anchors, ClockTime, Number, number_matches, time_matches


def _exact(number: Decimal) -> Context:
    """A context with enough digits that adding one unit of the last place is exact."""
    digits = len(number.as_tuple().digits)
    exponent = number.as_tuple().exponent
    spread = abs(exponent) if isinstance(exponent, int) else 0
    return Context(prec=digits + spread + 30, Emax=MAX_EMAX, Emin=MIN_EMIN)


class ValueIndex:
    """Items by the numbers and clock times they hold."""

    def __init__(self, item_anchors: Sequence[Anchors]) -> None:
        direct: list[tuple[Decimal, int, Number]] = []
        ratios: list[tuple[Decimal, int, Number]] = []
        self._times: dict[tuple[int, int], list[tuple[int, ClockTime]]] = {}
        for position, found in enumerate(item_anchors):
            for number in found.numbers:
                if not number.value.is_finite():
                    continue
                direct.append((number.value, position, number))
                if not number.percent and abs(number.value) <= 1:
                    ratios.append((number.value.scaleb(2), position, number))
            for clock in found.times:
                self._times.setdefault((clock.hour, clock.minute), []).append((position, clock))
        direct.sort(key=lambda entry: (entry[0], entry[1]))
        ratios.sort(key=lambda entry: (entry[0], entry[1]))
        self._direct = direct
        self._direct_keys = [entry[0] for entry in direct]
        self._ratios = ratios
        self._ratio_keys = [entry[0] for entry in ratios]
        self._numbers: dict[tuple[Decimal, int, bool], tuple[int, ...]] = {}
        self._clocks: dict[tuple[int, int, str | None], tuple[int, ...]] = {}

    def items_with_number(self, written: Number) -> tuple[int, ...]:
        """Positions, ascending, of the items holding a number that ``written`` matches."""
        key = (written.value, written.decimals, written.percent)
        known = self._numbers.get(key)
        if known is not None:
            return known
        found: set[int] = set()
        if written.value.is_finite():
            try:
                context = _exact(written.value)
                unit = Decimal(1).scaleb(-written.decimals, context)
                low = context.subtract(written.value, unit)
                high = context.add(written.value, unit)
            except ArithmeticError:  # beyond any exact context: number_matches wants equality
                low = high = written.value
            ranges = [(self._direct, self._direct_keys)]
            if written.percent:
                ranges.append((self._ratios, self._ratio_keys))
            for entries, keys in ranges:
                start = bisect.bisect_left(keys, low)
                end = bisect.bisect_right(keys, high)
                for _, position, number in entries[start:end]:
                    if position not in found and number_matches(written, number):
                        found.add(position)
        result = tuple(sorted(found))
        self._numbers[key] = result
        return result

    def items_with_time(self, written: ClockTime) -> tuple[int, ...]:
        """Positions, ascending, of the items holding a clock time that ``written`` matches."""
        key = (written.hour, written.minute, written.second)
        known = self._clocks.get(key)
        if known is not None:
            return known
        result = tuple(sorted({position for position, clock
                               in self._times.get((written.hour, written.minute), ())
                               if time_matches(written, clock)}))
        self._clocks[key] = result
        return result

    def holds_number(self, written: Number) -> bool:
        """True when some item holds a number that ``written`` matches."""
        return bool(self.items_with_number(written))
