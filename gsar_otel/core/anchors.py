"""Typed anchors: the checkable specifics of a text, each read as what it is.

A claim is checked against its evidence through its anchors: numbers, percentages, times,
dates, durations, versions, addresses, ports, HTTP codes, percentiles, identifiers, hosts,
quotes and names. A token is a number only when it is one: ``5xx`` is an HTTP class, ``p99``
a percentile, ``v2.3.1`` a version, ``edge-lb-3`` a host, ``10.0.0.12:8080`` an address and a
port, ``cfg-7781`` an identifier. Kubernetes event lines read as what they say:
``pod/web-7f9c6d-q8zt4`` names the pod ``web-7f9c6d-q8zt4`` (as the name written alone reads),
``ip-10-0-3-17.ec2.internal`` is one host, an age ``3m12s`` a duration, and ``(x4 over 10m)``
a count of 4 over a window of 10 minutes. A share in words is a percentage: "more than half" is
over 50%, "about a third of" about 33% (:mod:`.anchor.fractions`).

>>> [(a.kind.value, a.value) for a in extract_anchors("p99 hit 250 ms on edge-lb-3")]
[('percentile', 'p99'), ('duration', 0.25), ('host', 'edge-lb-3')]

- :func:`extract_anchors` reads a text left to right, in linear time; in ``key=value`` and
  ``key: value`` text each value carries its key (``cpu_pct=97.2`` has the key ``cpu_pct``).
- :func:`compare_anchors` says whether an evidence anchor MATCHes a claim's, CONFLICTs with it
  (the same concept, another value) or is UNRELATED (a time never contradicts a percentage).
  Numbers match within rounding at the claim's own precision: ``97%`` matches ``cpu_pct=97.2``
  and ``96.6`` but not ``95``; ``41.2%`` matches ``error_ratio=0.412``; ``about``, ``nearly``,
  ``over``, ``under``, ``at least``, ``at most`` widen the match or make it one-sided.
- :class:`AnchorIndex` files many evidence anchors so one claim anchor is checked in about
  constant time, with the same answer as comparing it with each of them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from gsar_otel.core.anchor.compare import AnchorIndex, compare_anchors
from gsar_otel.core.anchor.fractions import with_fractions
from gsar_otel.core.anchor.model import Agreement, Anchor, AnchorKind
from gsar_otel.core.anchor.scan import extract_anchors as _read
from gsar_otel.core.anchor.scan import read_clock
from gsar_otel.core.anchor.times import date_numbers
from gsar_otel.core.anchor.units import join_durations

__all__ = [
    "Agreement",
    "Anchor",
    "AnchorIndex",
    "AnchorKind",
    "compare_anchors",
    "date_parts",
    "extract_anchors",
    "inner_anchors",
    "timestamp_parts",
    "with_quoted_contents",
]

CACHE_CHARS: Final = 2000
"""Texts up to this long have their anchors remembered: claims and evidence rows recur."""


def extract_anchors(text: str) -> tuple[Anchor, ...]:
    """The typed anchors of ``text``, left to right, non-overlapping, in linear time."""
    if len(text) <= CACHE_CHARS:
        return _remembered(text)
    return with_fractions(text, join_durations(text, _read(text)))


@lru_cache(maxsize=8192)
def _remembered(text: str) -> tuple[Anchor, ...]:
    return with_fractions(text, join_durations(text, _read(text)))


def inner_anchors(anchor: Anchor) -> tuple[Anchor, ...]:
    """The anchors inside a QUOTED anchor (``"timeout after 30s"`` holds ``30s``), at their
    places in the original text; empty for any other kind."""
    if anchor.kind is not AnchorKind.QUOTED:
        return ()
    offset = anchor.start + 1
    return tuple(
        Anchor(a.kind, a.text, a.value, a.unit, a.start + offset, a.end + offset, a.key,
               a.qualifier)
        for a in extract_anchors(anchor.text[1:-1]))


def with_quoted_contents(anchors: tuple[Anchor, ...]) -> tuple[Anchor, ...]:
    """``anchors`` with each QUOTED anchor followed by the anchors inside it."""
    if not any(a.kind is AnchorKind.QUOTED for a in anchors):
        return anchors
    return tuple(part for a in anchors for part in (a, *inner_anchors(a)))


def timestamp_parts(anchor: Anchor) -> tuple[Anchor, Anchor] | None:
    """A TIMESTAMP's date and its clock time, as written, as a DATE and a CLOCK anchor.

    A claim's timestamp is supported by evidence that holds the date and the time apart
    (``date=2024-05-01 time=10:15:32``).
    """
    if anchor.kind is not AnchorKind.TIMESTAMP or len(anchor.text) < 12:
        return None
    day_text, rest = anchor.text[:10], anchor.text[11:]
    clock_text = rest.split()[0] if rest.split() else ""
    read = read_clock(clock_text, offsets=True)
    if read is None:
        return None
    zone = anchor.unit
    day = Anchor(AnchorKind.DATE, day_text, day_text, None, anchor.start, anchor.start + 10,
                 anchor.key)
    clock = Anchor(AnchorKind.CLOCK, rest, float(read[0].seconds), zone, anchor.start + 11,
                   anchor.end, anchor.key)
    return day, clock


def date_parts(anchor: Anchor) -> tuple[Anchor, ...]:
    """The year and the day of a DATE as plain NUMBER anchors (empty for other kinds).

    A claim's date is supported by evidence that holds its numbers where no date is read
    (a path ``/2015/09/23/``, a heading cut off mid-date).
    """
    if anchor.kind is not AnchorKind.DATE:
        return ()
    return tuple(Anchor(AnchorKind.NUMBER, number, float(number), None, anchor.start,
                        anchor.end, anchor.key) for number in date_numbers(anchor))
