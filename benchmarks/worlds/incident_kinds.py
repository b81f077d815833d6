"""The faithful kinds of synthetic incident answers, and the true sentences every kind shares.

A builder makes a :class:`Scene`: the case's own evidence items, the sentences the kind is about
(``focus``, kept together and in order) and ``spare`` true sentences about the same items that
may stand beside them. ``index`` (the case's number within its kind) turns the variants of a kind
in rotation, so a few cases of a kind already cover its variants.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Final

from benchmarks.worlds.incident_events import alert, deploy, log_event
from benchmarks.worlds.incident_metrics import (
    CONVERTIBLE,
    GROUNDED,
    METRICS,
    NUMERIC,
    Said,
    converted,
    is_round,
    make_row,
    rounded,
    row_fields,
)
from benchmarks.worlds.incident_records import kube_events, note
from benchmarks.worlds.incident_world import Item, World, metric_fragment

ZONES: Final = {"CET": 60, "EDT": -240, "CDT": -300, "PDT": -420, "JST": 540, "IST": 330}
"""Zone names right for 9-26 March 2026, minutes east of UTC (GMT is left out: it is UTC)."""
SHAPES: Final = ("metric", "log", "alert", "deploy", "note", "kube")


@dataclass
class Scene:
    """What one case is about: its own items and the sentences the answer is made of."""

    items: list[Item]
    focus: list[Said]
    spare: list[Said] = field(default_factory=list)


def zoned(when: datetime, rng: random.Random) -> str:
    """``when`` in another zone: ``10:13 CET``, ``05:13 EDT`` or ``2026-03-14T10:13:42+01:00``."""
    if rng.random() < 0.25:
        offset = rng.choice((60, -240, 540, 330))
        return when.astimezone(timezone(timedelta(minutes=offset))).isoformat()
    zone = rng.choice(list(ZONES))
    return (when + timedelta(minutes=ZONES[zone])).strftime("%H:%M ") + zone


def fact(world: World, shape: str, kind: str, move: str = "exact") -> tuple[Item, Said]:
    """One new item of ``shape`` the case owns and a true sentence about it."""
    rng = world.rng
    when = world.at(rng.randint(-1800, 600))
    if shape == "metric":
        key = rng.choice(NUMERIC)
        row = make_row(world, row_fields(rng, [key], rng.randint(1, 4)))
        return row.item, row.say(key, rng, kind=kind, move=move)
    if shape == "log":
        event = log_event(world, when, rng.choice(("ERROR", "WARN", "INFO")))
        return event.item, event.say(rng, kind=kind, move=move)
    if shape == "alert":
        fired = alert(world, when)
        say = rng.choice((fired.say_state, fired.say_severity, fired.say_time))
        return fired.item, say(rng, kind=kind, move=move)
    if shape == "deploy":
        record = deploy(world, when)
        said = rng.choice((record.say_status, record.say_actor, record.say_time))
        return record.item, said(rng, kind=kind, move=move)
    if shape == "note":
        done = note(world, when)
        return done.item, done.say(rng, kind=kind, move=move)
    events = kube_events(world, rng.randint(1, 2))
    return events.item, events.say(rng, kind=kind, move=move)


def companions(world: World, count: int, kind: str = "exact_restatement") -> Scene:
    """``count`` true sentences, each about a new item of its own, of different shapes."""
    scene = Scene([], [])
    for shape in world.rng.sample(SHAPES, count):
        item, said = fact(world, shape, kind)
        scene.items.append(item)
        scene.focus.append(said)
    return scene


KIND_OF_MOVE: Final = {"exact": "exact_restatement", "paraphrase": "paraphrase"}


def _single(move: str) -> Callable[[World, int], Scene]:
    """A kind of one sentence made by ``move``, about an item of a shape turned by the index."""
    def build(world: World, index: int) -> Scene:
        item, said = fact(world, SHAPES[index % len(SHAPES)], KIND_OF_MOVE[move], move)
        return Scene([item], [said])

    return build


def rounding(world: World, index: int) -> Scene:
    """``CPU on db-prod-1 was about 97%.`` for ``cpu_pct=97.2``."""
    rng = world.rng
    keys = [k for k in NUMERIC if METRICS[k].round]
    key = keys[index % len(keys)]
    value = METRICS[key].draw(rng)
    while is_round(value):
        value = METRICS[key].draw(rng)
    row = make_row(world, row_fields(rng, [key], rng.randint(1, 3)), fixed={key: value})
    written = rounded(key, value)
    said = row.say(key, rng, kind="rounding", move=rng.choice(("exact", "paraphrase")), q=written)
    return Scene([row.item], [said])


def unit_conversion(world: World, index: int) -> Scene:
    """``The p99 latency on cache-2 was 1.37 s.`` for ``p99_latency_ms=1374``."""
    rng = world.rng
    key = CONVERTIBLE[index % len(CONVERTIBLE)]
    row = make_row(world, row_fields(rng, [key], rng.randint(1, 3)))
    said = row.say(key, rng, kind="unit_conversion", q=converted(key, row.fields[key], rng))
    return Scene([row.item], [said])


def timezone_conversion(world: World, index: int) -> Scene:
    """A time of an alert, log line or deploy written in another zone."""
    rng = world.rng
    when = world.at(rng.randint(-1800, 600))
    clock = zoned(when, rng)
    choice = index % 3
    if choice == 0:
        fired = alert(world, when)
        return Scene([fired.item], [fired.say_time(rng, kind="timezone_conversion", clock=clock)])
    if choice == 1:
        event = log_event(world, when, rng.choice(("ERROR", "WARN")))
        return Scene([event.item], [event.say(rng, kind="timezone_conversion", clock=clock)])
    record = deploy(world, when)
    return Scene([record.item], [record.say_time(rng, kind="timezone_conversion", clock=clock)])


def json_wrapped(world: World, index: int) -> Scene:
    """A field of a tool result wrapped in JSON (``[{"type": "text", "text": ...}]``)."""
    rng = world.rng
    key = NUMERIC[index % len(NUMERIC)]
    style = ("wrapped_list", "wrapped_result")[index % 2]
    row = make_row(world, row_fields(rng, [key], rng.randint(1, 4)), style=style)
    said = row.say(key, rng, kind="json_wrapped", move=rng.choice(("exact", "paraphrase")))
    return Scene([row.item], [said])


def kubectl_event(world: World, index: int) -> Scene:
    """An event of a ``kubectl get events`` table, restated."""
    rng = world.rng
    events = kube_events(world, 1 + index % 3)
    said = events.say(rng, kind="kubectl_event", move=rng.choice(("exact", "paraphrase")))
    return Scene([events.item], [said])


def multi_claim(world: World, index: int) -> Scene:
    """Two to four true sentences, each about another item."""
    return companions(world, 2 + index % 3, "multi_claim")


SYNTHESIS: Final = ("These two observations point to the same host.",
                    "Both findings concern the same host.",
                    "Both of these come from host {host}.")


def synthesis(world: World, index: int) -> Scene:
    """Two true sentences about one host, then a harmless sentence tying them together."""
    rng = world.rng
    row = make_row(world, row_fields(rng, [], 3))
    key = next(k for k in row.fields if k in NUMERIC)
    if index % 2 == 0:
        fired = alert(world, world.at(rng.randint(-600, 600)), host=row.host)
        first, item = fired.say_state(rng, kind="synthesis"), fired.item
    else:
        event = log_event(world, world.at(rng.randint(-600, 600)), "ERROR", host=row.host)
        first, item = event.say(rng, kind="synthesis"), event.item
    second = row.say(key, rng, kind="synthesis")
    text = SYNTHESIS[index % len(SYNTHESIS)].format(host=row.host)
    tie = Said(text, GROUNDED, "synthesis", (row.item, item),
               (metric_fragment(row.style, "host", row.host),),
               "same host" if "same host" in text else row.host)
    return Scene([item, row.item], [first, second, tie])


FAITHFUL: Final[dict[str, Callable[[World, int], Scene]]] = {
    "exact_restatement": _single("exact"),
    "paraphrase": _single("paraphrase"),
    "rounding": rounding,
    "unit_conversion": unit_conversion,
    "timezone_conversion": timezone_conversion,
    "json_wrapped": json_wrapped,
    "kubectl_event": kubectl_event,
    "multi_claim": multi_claim,
    "synthesis": synthesis,
}
"""The faithful kinds: every sentence of the answer is true."""
