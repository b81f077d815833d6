"""The unfaithful kinds that misstate a value: a wrong number, another field's value, the unit
of the key taken for another, another host's address, a wrong time.

Like :mod:`benchmarks.worlds.incident_faults`, each builder makes a scene whose focus is one
false sentence, here always ``contradicted``: the evidence states the value otherwise.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal
from typing import Final

from benchmarks.worlds.incident_events import alert, deploy, log_event
from benchmarks.worlds.incident_kinds import Scene, zoned
from benchmarks.worlds.incident_metrics import (
    CONTRADICTED,
    MetricRow,
    Said,
    make_row,
    number,
    quantity,
    row_fields,
)
from benchmarks.worlds.incident_world import World, utc_clock


def _wrong_number(row: MetricRow, key: str, rng: random.Random) -> str:
    """A value of ``key`` far from the row's (and from its other fields), written alike."""
    value = row.fields[key]
    amount = number(value)
    places = len(value.rstrip("%").partition(".")[2])
    taken = {number(v) for k, v in row.fields.items() if k != "ip"}
    for _ in range(1000):
        factor = rng.uniform(0.2, 0.7) if rng.random() < 0.5 or amount > 60 else \
            rng.uniform(1.4, 3.0)
        wrong = (amount * Decimal(str(factor))).quantize(Decimal(1).scaleb(-places))
        if "pct" in key and wrong >= 100:
            continue
        if wrong > 0 and abs(wrong - amount) >= max(amount * Decimal("0.2"), Decimal(2)) \
                and wrong not in taken:
            return f"{wrong}" + ("%" if value.endswith("%") else "")
    raise RuntimeError(f"no wrong value for {key}={value}")


WRONG_VALUE_KEYS: Final = ("cpu_pct", "conn_count", "p99_latency_ms", "error_pct", "errors",
                           "mem_pct", "disk_used_pct", "rps", "gc_pause_ms", "disk_free_gb")


def wrong_value(world: World, index: int) -> Scene:
    """``The connection count on cache-2 was 79.`` for ``conn_count=24``."""
    rng = world.rng
    key = WRONG_VALUE_KEYS[index % len(WRONG_VALUE_KEYS)]
    row = make_row(world, row_fields(rng, [key], rng.randint(1, 4)))
    wrong = _wrong_number(row, key, rng)
    false = row.say(key, rng, kind="wrong_value", move=rng.choice(("exact", "paraphrase")),
                    q=quantity(key, wrong), label=CONTRADICTED)
    others = [k for k in row.fields if k != key]
    return Scene([row.item], [false], [row.say(k, rng, kind="exact_restatement")
                                       for k in rng.sample(others, min(2, len(others)))])


def _time_scene(world: World, index: int) -> tuple[Scene, Callable[..., Said], timedelta]:
    rng = world.rng
    when = world.at(rng.randint(-3600, 0))
    choice = index % 3
    if choice == 0:
        fired = alert(world, when)
        return (Scene([fired.item], [], [fired.say_severity(rng, kind="exact_restatement")]),
                fired.say_time, when - world.start)
    if choice == 1:
        event = log_event(world, when, rng.choice(("ERROR", "WARN")))
        return Scene([event.item], []), event.say, when - world.start
    record = deploy(world, when)
    return (Scene([record.item], [], [record.say_status(rng, kind="exact_restatement")]),
            record.say_time, when - world.start)


def wrong_time(world: World, index: int) -> Scene:
    """A time of an alert, log line or deploy off by minutes or hours."""
    rng = world.rng
    scene, say, offset = _time_scene(world, index)
    shift = timedelta(minutes=rng.randint(5, 50)) if index // 3 % 2 == 0 else \
        timedelta(hours=rng.randint(1, 5))
    wrong = world.start + offset + (shift if rng.random() < 0.5 else -shift)
    clock = zoned(wrong, rng) if rng.random() < 0.3 else utc_clock(wrong,
                                                                   seconds=rng.random() < 0.3)
    scene.focus.append(say(rng, kind="wrong_time", clock=clock, label=CONTRADICTED))
    return scene


OTHER_FIELD: Final = ("conn_as_status", "errors_as_conn", "status_as_conn", "rate_cut",
                      "error_free", "p99_below_p50", "cpu_as_mem")
"""Ways to state another field's value (or a misreading of this one) for a field."""


def other_field_value(world: World, index: int) -> Scene:
    """``The connection count on cache-2 was 200.`` where 200 is the row's ``status``."""
    rng = world.rng
    variant = OTHER_FIELD[index % len(OTHER_FIELD)]
    kind = "other_field_value"
    fixed: dict[str, str] = {}
    if variant == "status_as_conn":
        fixed = {"status": rng.choice(("200", "503")), "conn_count": str(rng.randint(100, 599))}
    elif variant == "rate_cut":
        fixed = {"error_pct": f"{rng.randint(1, 29)}.{rng.randint(5, 9)}%"}
    elif variant == "error_free":
        fixed = {"errors": str(rng.randint(2, 900))}
    elif variant == "cpu_as_mem":
        cpu = rng.uniform(5.0, 95.0)
        mem = cpu + rng.choice((-1, 1)) * rng.uniform(8.0, 40.0)
        mem = mem if 1.0 < mem < 99.0 else cpu - 8.0 if cpu > 50 else cpu + 8.0
        fixed = {"cpu_pct": f"{cpu:.1f}", "mem_pct": f"{mem:.1f}"}
    must = {"conn_as_status": ["conn_count", "status"], "errors_as_conn": ["errors", "conn_count"],
            "status_as_conn": ["status", "conn_count"], "rate_cut": ["error_pct"],
            "error_free": ["errors"], "p99_below_p50": ["p99_latency_ms", "p50_latency_ms"],
            "cpu_as_mem": ["cpu_pct", "mem_pct"]}[variant]
    row = make_row(world, row_fields(rng, must, rng.randint(0, 2)), fixed=fixed)
    value = row.fields
    if variant == "conn_as_status":
        false = row.say("conn_count", rng, kind=kind, q=value["status"], label=CONTRADICTED)
    elif variant == "errors_as_conn":
        false = row.say("errors", rng, kind=kind, q=value["conn_count"], label=CONTRADICTED,
                        template="Host {host} logged {q} errors.")
    elif variant == "status_as_conn":
        false = row.say("status", rng, kind=kind, q=value["conn_count"], label=CONTRADICTED)
    elif variant == "rate_cut":
        cut = f"{int(number(value['error_pct']))}%"
        false = row.say("error_pct", rng, kind=kind, q=cut, label=CONTRADICTED)
    elif variant == "error_free":
        false = row.say("errors", rng, kind=kind, q="error-free", label=CONTRADICTED,
                        template=rng.choice(("Host {host} ran {q}.",
                                             "Host {host} was {q} during the window.")))
    elif variant == "p99_below_p50":
        false = row.say("p99_latency_ms", rng, kind=kind, q=f"below {value['p50_latency_ms']} ms",
                        label=CONTRADICTED, template="The p99 latency on {host} stayed {q}.")
    else:
        false = row.say("cpu_pct", rng, kind=kind, q=f"{number(value['mem_pct'])}%",
                        label=CONTRADICTED)
    return Scene([row.item], [false])


UNIT_FROM_KEY: Final = (("p99_latency_ms", ("seconds", "s")), ("gc_pause_ms", ("seconds", "s")),
                        ("uptime_s", ("minutes", "hours")), ("disk_free_gb", ("MB", "TB")))


def unit_from_key(world: World, index: int) -> Scene:
    """``The p99 latency on cache-2 was 1374 seconds.`` for ``p99_latency_ms=1374``."""
    rng = world.rng
    key, units = UNIT_FROM_KEY[index % len(UNIT_FROM_KEY)]
    row = make_row(world, row_fields(rng, [key], rng.randint(1, 3)))
    q = f"{number(row.fields[key])} {units[index // len(UNIT_FROM_KEY) % 2]}"
    false = row.say(key, rng, kind="unit_from_key", q=q, label=CONTRADICTED)
    others = [k for k in row.fields if k != key]
    return Scene([row.item], [false], [row.say(rng.choice(others), rng, kind="exact_restatement")])


def other_host_ip(world: World, index: int) -> Scene:
    """``Host api-prod-3 has IP address 10.0.4.22.`` where 10.0.4.22 is db-prod-2's."""
    rng = world.rng
    style = ("inline", "lines", "wrapped_result")[index % 3]
    rows = [make_row(world, ["ip", *row_fields(rng, [], rng.randint(1, 3))], style=style)
            for _ in range(2)]
    subject, owner = rows if index % 2 == 0 else rows[::-1]
    said = subject.say("ip", rng, kind="other_host_ip", q=owner.fields["ip"], label=CONTRADICTED)
    false = replace(said, about=(subject.item, owner.item),
                    support=(*said.support, owner.fragment("ip")))
    kind = "exact_restatement"
    spare = [owner.say("ip", rng, kind=kind),
             subject.say(next(k for k in subject.fields if k != "ip"), rng, kind=kind)]
    return Scene([row.item for row in rows], [false], spare)
