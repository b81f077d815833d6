"""Ranges a text states: "between 80 and 90%", "80-90%", "in the 1-2 s range".

The two ends of a range are no values of their own: a range holds a value that lies within it.
The judge reads the value of the key the claim names against it
(:mod:`gsar_otel.judges.staged.ranges`); the guard (:mod:`gsar_otel.core.integrity`) accepts
both ends in a grounded claim when a cited number lies within. The lower end takes the upper
end's unit ("between 1 and 2 seconds" is 1-2 s), durations are in seconds, and "from 80 to 90%"
is a change, never a range.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Final

from gsar_otel.core.anchor.model import Anchor, AnchorKind

_BETWEEN: Final = re.compile(r"\bbetween\s+$", re.IGNORECASE)
_AND: Final = re.compile(r"^\s*(?:and|to)\s*$", re.IGNORECASE)
_DASH: Final = re.compile(r"^\s*[-\u2013\u2014]\s*$")
_KINDS: Final = frozenset({AnchorKind.NUMBER, AnchorKind.PERCENT, AnchorKind.DURATION})
_UNIT_AFTER: Final = re.compile(r"\s*(?:ms|s|secs?|seconds?|minutes?|mins?|hours?|hrs?|h|"
                                r"[kmgt]i?b|bytes)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Range:
    """A stated range: its ends (seconds for durations) and the anchors that state them."""

    low: float
    high: float
    seconds: bool
    ends: tuple[int, int]
    """The start offsets of the two anchors in the text."""

    def holds(self, value: float) -> bool:
        """Whether ``value`` lies within the range (its ends included)."""
        slack = (self.high - self.low) * 1e-9 + 1e-9
        return self.low - slack <= value <= self.high + slack

    def holds_any(self, numbers: tuple[float, ...]) -> bool:
        """Whether one of ``numbers`` (sorted) lies within; by bisection."""
        at = bisect.bisect_left(numbers, self.low - (self.high - self.low) * 1e-9 - 1e-9)
        return at < len(numbers) and self.holds(numbers[at])


def _written(text: str) -> float | None:
    found = re.search(r"\d+(?:\.\d+)?", text)
    return float(found.group()) if found else None


def stated_ranges(text: str, anchors: Sequence[Anchor]) -> dict[int, Range]:
    """The ranges of ``text`` by the start offset of each end's anchor (``anchors`` are the
    text's own, in any order)."""
    ordered = sorted((a for a in anchors if a.kind in _KINDS), key=lambda a: a.start)
    found: dict[int, Range] = {}
    for low, high in pairwise(ordered):
        if low.kind not in (AnchorKind.NUMBER, high.kind) or low.start in found:
            continue
        between = text[low.end:high.start]
        if not (_DASH.match(between) or (_AND.match(between)
                                          and _BETWEEN.search(text[max(0, low.start - 12):
                                                                   low.start]))):
            continue
        if high.kind is AnchorKind.NUMBER and _UNIT_AFTER.match(text, high.end):
            continue  # "1-2 seconds" read as two bare numbers: its unit is unknown here
        top, written, bottom = high.value, _written(high.text), _written(low.text)
        if not isinstance(top, (int, float)) or not written or bottom is None:
            continue
        seconds = high.kind is AnchorKind.DURATION
        if low.kind is high.kind and isinstance(low.value, (int, float)):
            bottom = float(low.value)  # "between 1 s and 2 s", "80% to 90%"
        elif seconds:
            bottom *= float(top) / written  # "between 1 and 2 seconds": the unit of the end
        first, second = sorted((bottom, float(top)))
        stated = Range(first, second, seconds, (low.start, high.start))
        found[low.start] = found[high.start] = stated
    return found
