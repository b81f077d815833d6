"""Numbers of a claim that no cited item holds as written but that the cited items make: an
era, age or span of years (:mod:`.years`), a difference of two values of one key
(:mod:`.differences`), or a range one value lies within (:mod:`.ranges`). The
integrity guard (:mod:`.integrity`) accepts these in a grounded claim, leniently: the judge
does the strict reading."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gsar_otel.core.anchor.differences import differs_by, stated_difference
from gsar_otel.core.anchor.model import Anchor
from gsar_otel.core.anchor.ranges import stated_ranges
from gsar_otel.core.anchor.years import stated_years, years_allow


def derived_reader(claim: str, anchors: Sequence[Anchor], years: Callable[[], frozenset[int]],
                   numbers: Callable[[bool], tuple[tuple[float, ...], ...]]
                   ) -> Callable[[Anchor], bool]:
    """Whether a number of ``claim`` is an era, age or span the cited items' years allow ("the
    1980s" by 1982, "for 44 years" by 1969-2013), a difference two of their numbers under one key
    make ("by 2.4 points" by trec=85.6 and trec=88.0), or a range one lies within ("between 80
    and 90%" by 85). ``anchors`` are the claim's; ``years`` and ``numbers`` (grouped by key, in
    seconds or not) are read once per set of cited items."""
    ranges = stated_ranges(claim, anchors)

    def allowed(anchor: Anchor) -> bool:
        stated, gap, bounds = (stated_years(claim, anchor), stated_difference(claim, anchor),
                               ranges.get(anchor.start))
        return (stated is not None and years_allow(stated, years())) or (
            gap is not None and any(differs_by(gap, group) for group in numbers(gap.seconds))) or (
            bounds is not None and any(bounds.holds_any(g) for g in numbers(bounds.seconds)))
    return allowed
