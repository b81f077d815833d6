"""Answers that state a change between two samples of one host: ``stated_change`` (true: "The
p99 latency on api-prod-3 rose by 300 ms.", from ``ts=...09:10:00Z host=api-prod-3
p99_latency_ms=1200`` and ``ts=...09:15:00Z ... p99_latency_ms=1500``) and ``wrong_change``
(false: the change in the wrong direction, or by an amount the samples do not differ by).

The two samples carry timestamps, as a metrics query returns them, so the direction is read
from time, wherever the items land among the distractors. A wrong change is ``contradicted``:
the host's only two samples of that metric show another change.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Final

from benchmarks.worlds.incident_kinds import Scene
from benchmarks.worlds.incident_metrics import CONTRADICTED, GROUNDED, Said, make_row
from benchmarks.worlds.incident_world import Item, World, stamp

CHANGE_KEYS: Final = {
    # key: (what the sentence calls it, unit written after the amount, decimals)
    "p99_latency_ms": ("The p99 latency on {host}", " ms", 0),
    "cpu_pct": ("CPU on {host}", " points", 1),
    "error_pct": ("The error rate on {host}", " percentage points", 1),
    "conn_count": ("The connection count on {host}", "", 0),
    "rps": ("Throughput on {host}", " req/s", 0),
}
RISE: Final = ("rose by", "increased by", "went up by", "climbed by")
FALL: Final = ("fell by", "decreased by", "went down by", "dropped by")


def _samples(world: World, key: str) -> tuple[list[Item], str, Decimal, Decimal, list[str]]:
    """Two timestamped rows of one new host, five minutes apart, whose ``key`` differs."""
    rng = world.rng
    first = make_row(world, [key], style="inline")
    second = make_row(world, [key], host=first.host, style="inline")
    while Decimal(first.fields[key].rstrip("%")) == Decimal(second.fields[key].rstrip("%")):
        second = make_row(world, [key], host=first.host, style="inline")
    when = world.at(rng.randint(-1800, 0))
    later = when + timedelta(minutes=5)
    items = [Item(f"ts={stamp(t)} {row.item.content}", None, "metric_inline")
             for t, row in ((when, first), (later, second))]
    fragments = [f"{key}={row.fields[key]}" for row in (first, second)]
    return (items, first.host, Decimal(first.fields[key].rstrip("%")),
            Decimal(second.fields[key].rstrip("%")), fragments)


def _sentence(key: str, host: str, rose: bool, amount: Decimal, index: int) -> tuple[str, str]:
    subject, unit, places = CHANGE_KEYS[key]
    verbs = RISE if rose else FALL
    written = f"{amount:.{places}f}{unit}"
    return f"{subject.format(host=host)} {verbs[index % len(verbs)]} {written}.", written


def stated_change(world: World, index: int) -> Scene:
    """A true change between two samples, in its true direction."""
    key = list(CHANGE_KEYS)[index % len(CHANGE_KEYS)]
    items, host, before, after, fragments = _samples(world, key)
    text, written = _sentence(key, host, after > before, abs(after - before), index)
    return Scene(items, [Said(text, GROUNDED, "stated_change", tuple(items), tuple(fragments),
                              written)])


def wrong_change(world: World, index: int) -> Scene:
    """A change the samples do not show: the true amount in the wrong direction (even cases)
    or the true direction with an amount off by a third or more (odd cases)."""
    key = list(CHANGE_KEYS)[index % len(CHANGE_KEYS)]
    items, host, before, after, fragments = _samples(world, key)
    gap = abs(after - before)
    rose, amount = after > before, gap
    if index % 2 == 0:
        rose = not rose
    else:
        amount = gap * Decimal("1.5") + max(gap * Decimal("0.2"), Decimal(3))
    text, written = _sentence(key, host, rose, amount, index)
    return Scene(items, [Said(text, CONTRADICTED, "wrong_change", tuple(items), tuple(fragments),
                              written)])
