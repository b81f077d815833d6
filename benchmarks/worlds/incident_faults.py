"""The unfaithful kinds of synthetic incident answers: one false sentence each.

Each builder makes a :class:`~benchmarks.worlds.incident_kinds.Scene` whose ``focus`` is one
false sentence (labelled ``contradicted`` when the evidence states the same thing otherwise,
``ungrounded`` when nothing in it says so either way) and whose ``spare`` sentences are true
statements about the same items. Values an answer invents (a host, service, person, alert id or
name) are reserved by the world and so occur nowhere in the case's evidence.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from benchmarks.worlds.incident_events import LogEvent, alert, deploy, log_event
from benchmarks.worlds.incident_kinds import Scene
from benchmarks.worlds.incident_metrics import (
    CONTRADICTED,
    METRICS,
    UNGROUNDED,
    Said,
    make_row,
    quantity,
    row_fields,
)
from benchmarks.worlds.incident_records import FAMILIES, VERBS, note, result_set
from benchmarks.worlds.incident_world import (
    ALERT_NAMES,
    World,
    json_fragment,
    stamp,
    utc_clock,
)


def wrong_status(world: World, index: int) -> Scene:
    """``Deploy dep-5521 of checkout-api v2.3.1 failed.`` for ``"status": "succeeded"``."""
    rng = world.rng
    status = ("succeeded", "failed", "rolled_back")[index % 3]
    record = deploy(world, world.at(rng.randint(-1800, 0)), status=status)
    wrong = {"succeeded": ("failed", "was rolled back", "did not complete"),
             "failed": ("succeeded", "completed successfully"),
             "rolled_back": ("succeeded", "completed successfully")}[status]
    false = record.say_status(rng, kind="wrong_status", predicate=wrong[index // 3 % len(wrong)],
                              label=CONTRADICTED)
    kind = "exact_restatement"
    return Scene([record.item], [false], [record.say_actor(rng, kind=kind),
                                          record.say_time(rng, kind=kind)])


NO_ERRORS: Final = ("No errors were logged on {h} before alert {a} fired.",
                    "Before alert {a} fired, {h} logged no errors.",
                    "Host {h} logged no errors before alert {a} fired.",
                    "The logs of {h} show no errors before alert {a} fired.")


def no_errors_logged(world: World, index: int) -> Scene:
    """``No errors were logged on api-prod-3 before alert ...`` beside an ERROR line before it."""
    rng = world.rng
    host = world.own(world.draw_host)
    error = log_event(world, world.at(-rng.randint(30, 900)), "ERROR", host=host)
    other = log_event(world, world.at(-rng.randint(901, 1800)), rng.choice(("WARN", "INFO")),
                      host=host)
    fired = alert(world, world.at(0), host=host, state="firing")
    text = NO_ERRORS[index % len(NO_ERRORS)].format(h=host, a=fired.alert_id)
    false = Said(text, CONTRADICTED, "no_errors_logged", (error.item, fired.item),
                 (f"ERROR {host}", stamp(error.when)),
                 "no errors" if "no errors" in text else "No errors")
    kind = "exact_restatement"
    items = [other.item, error.item, fired.item]
    return Scene(items, [false], [fired.say_time(rng, kind=kind), other.say(rng, kind=kind)])


def _drawn(first: str, draw: Callable[[], str]) -> Callable[[], str]:
    """``first`` on the first call, then values of ``draw``."""
    calls = []

    def value() -> str:
        calls.append(1)
        return first if len(calls) == 1 else draw()

    return value


def wrong_alert_id(world: World, index: int) -> Scene:
    """``Alert ALRT-20933 (DiskSpaceWarning) fired on db-prod-2.`` for ALRT-20932."""
    rng = world.rng
    fired = alert(world, world.at(rng.randint(-900, 0)))
    digits = fired.alert_id.removeprefix("ALRT-")
    value = int(digits)
    near = (str(value + 1), str(value - 1), digits[:-2] + digits[-1] + digits[-2],
            str(value + 10), str(value - 100))
    false_id = world.own(_drawn("ALRT-" + near[index % len(near)],
                                lambda: "ALRT-" + rng.choice(near)))
    false = fired.say_name(rng, kind="wrong_alert_id", alert_id=false_id, label=CONTRADICTED)
    kind = "exact_restatement"
    return Scene([fired.item], [false], [fired.say_severity(rng, kind=kind)])


def wrong_alert_name(world: World, index: int) -> Scene:
    """``Alert ALRT-20932 (DiskSpaceCritical) fired on db-prod-2.`` for DiskSpaceWarning."""
    rng = world.rng
    fired = alert(world, world.at(rng.randint(-900, 0)))
    level = "Warning" if fired.name.endswith("Warning") else "Critical"
    family = fired.name.removesuffix(level)
    other_level = "Critical" if level == "Warning" else "Warning"
    if index % 2 == 0:
        false_name = world.own(lambda: family + other_level)
    else:
        false_name = world.own(lambda: rng.choice([f for f in ALERT_NAMES if f != family])
                               + level)
    false = fired.say_name(rng, kind="wrong_alert_name", name=false_name, label=CONTRADICTED)
    return Scene([fired.item], [false], [fired.say_time(rng, kind="exact_restatement")])


def wrong_severity(world: World, index: int) -> Scene:
    """``Alert ALRT-20932 on db-prod-2 has severity critical.`` for ``severity=warning``."""
    rng = world.rng
    fired = alert(world, world.at(rng.randint(-900, 0)))
    other = [s for s in ("critical", "warning", "info") if s != fired.severity]
    false = fired.say_severity(rng, kind="wrong_severity", move=("exact", "paraphrase")[index % 2],
                               severity=other[index // 2 % 2], label=CONTRADICTED)
    return Scene([fired.item], [false], [fired.say_time(rng, kind="exact_restatement")])


def wrong_state(world: World, index: int) -> Scene:
    """``Alert ALRT-20932 (...) on db-prod-2 has been resolved.`` for ``state=firing``."""
    rng = world.rng
    state = ("firing", "resolved")[index % 2]
    fired = alert(world, world.at(rng.randint(-900, 0)), state=state)
    false = fired.say_state(rng, kind="wrong_state", move=("exact", "paraphrase")[index // 2 % 2],
                            state="resolved" if state == "firing" else "firing",
                            label=CONTRADICTED)
    return Scene([fired.item], [false], [fired.say_severity(rng, kind="exact_restatement")])


PREDICTIONS: Final = (
    ("DiskSpace", "disk_used_pct", "At this rate, {h} will run out of disk in about {n} hours.",
     "will run out of disk"),
    ("DiskSpace", "disk_free_gb", "Disk on {h} will be full within {n} hours.", "will be full"),
    ("MemoryPressure", "mem_pct", "Memory on {h} will be exhausted in about {m} minutes.",
     "will be exhausted"),
    ("ErrorRate", "error_pct", "The error rate on {h} will keep climbing over the next hour.",
     "will keep climbing"),
)


def prediction(world: World, index: int) -> Scene:
    """``At this rate, db-prod-2 will run out of disk in about 2 hours.`` (nothing says so)."""
    rng = world.rng
    family, key, template, stated = PREDICTIONS[index % len(PREDICTIONS)]
    row = make_row(world, row_fields(rng, [key], rng.randint(1, 3)))
    fired = alert(world, world.at(rng.randint(-900, 0)), host=row.host, family=family,
                  state="firing")
    text = template.format(h=row.host, n=rng.randint(2, 9), m=rng.randint(10, 90))
    false = Said(text, UNGROUNDED, "prediction", (row.item, fired.item), (row.fragment(key),),
                 stated)
    kind = "exact_restatement"
    return Scene([fired.item, row.item], [false], [fired.say_state(rng, kind=kind),
                                                   row.say(key, rng, kind=kind)])


UNKNOWN_SERVICE: Final = ("Service {u} was restarted at {clock}.", "Errors also spread to {u}.",
                          "The {u} service reported elevated latency at {clock}.",
                          "Deploy {dep} was followed by a restart of {u}.")


def unknown_service(world: World, index: int) -> Scene:
    """A sentence about ``payments-api`` when no evidence mentions it."""
    rng = world.rng
    record = deploy(world, world.at(rng.randint(-1800, -60)))
    error = log_event(world, world.at(rng.randint(0, 600)), "ERROR")
    unknown = world.own(world.draw_service)
    template = UNKNOWN_SERVICE[index % len(UNKNOWN_SERVICE)]
    text = template.format(u=unknown, clock=utc_clock(world.at(rng.randint(-600, 600))),
                           dep=record.deploy_id)
    named = "{dep}" in template
    false = Said(text, UNGROUNDED, "unknown_service", (record.item,) if named else (),
                 (json_fragment("deploy_id", record.deploy_id),) if named else (), unknown)
    kind = "exact_restatement"
    return Scene([record.item, error.item], [false], [record.say_status(rng, kind=kind),
                                                      error.say(rng, kind=kind)])


def unknown_actor(world: World, index: int) -> Scene:
    """``Deploy dep-5521 was run by john.smith.`` for ``"actor": "maria.lopez"``."""
    rng = world.rng
    when = world.at(rng.randint(-3600, 0))
    if index % 2 == 0:
        record = deploy(world, when)
        false = record.say_actor(rng, kind="unknown_actor", move=("exact", "paraphrase")[
            index // 2 % 2], actor=world.own(world.draw_person), label=CONTRADICTED)
        return Scene([record.item], [false], [record.say_status(rng, kind="exact_restatement")])
    verb = list(VERBS)[index // 2 % len(VERBS)]
    done = note(world, when, verb)
    actor = world.own(world.draw_team if VERBS[verb].by_team else world.draw_person)
    return Scene([done.item], [done.say_actor(actor, kind="unknown_actor", label=CONTRADICTED)])


def unknown_host(world: World, index: int) -> Scene:
    """``CPU on db-prod-9 was 7.5%.`` when only db-prod-2 has ``cpu_pct=7.5``."""
    rng = world.rng
    keys = [k for k in METRICS if k != "ip"]
    key = keys[index % len(keys)]
    row = make_row(world, row_fields(rng, [key], rng.randint(1, 3)))
    neighbour = make_row(world, row_fields(rng, [key], rng.randint(1, 3)))
    host = world.sibling(row.host)
    text = rng.choice(METRICS[key].exact).format(host=host, q=quantity(key, row.fields[key]))
    false = Said(text, UNGROUNDED, "unknown_host", (row.item,), (row.fragment(key),), host)
    kind = "exact_restatement"
    return Scene([row.item, neighbour.item], [false], [neighbour.say(key, rng, kind=kind)])


def all_quantifier(world: World, index: int) -> Scene:
    """``All orders in batch B-1182 were cancelled.`` against rows of shipped orders."""
    rng = world.rng
    family = FAMILIES[index % len(FAMILIES)]
    rows = result_set(world, family=family)
    text = family.every[index // len(FAMILIES) % 2].format(g=rows.group)
    false = Said(text, CONTRADICTED, "all_quantifier", (rows.item,),
                 (f"status={family.good}", f"{family.group_key}={rows.group}"), text.split()[0])
    return Scene([rows.item], [false], [rows.say_one(rng, kind="exact_restatement")])



def negated_predicate(world: World, index: int) -> Scene:
    """``Ticket 5 was never closed.`` against ``Ticket 5 was closed by team-5 after 6 hours.``"""
    rng = world.rng
    verb = list(VERBS)[index % len(VERBS)]
    done = note(world, world.at(rng.randint(-7200, 0)), verb)
    negation = done.negations[index // len(VERBS) % len(done.negations)]
    return Scene([done.item], [done.said(f"{done.subject} {negation}.", "negated_predicate",
                                         negation, CONTRADICTED)])


CAUSES: Final = (
    ("The outage was caused by config push {cfg}.", "caused by"),
    ("Config push {cfg} caused the errors on {h}.", "caused"),
    ("The errors on {h} were triggered by config push {cfg}.", "triggered by"),
    ("Config push {cfg} is the root cause of the incident.", "root cause"),
)
DEPLOY_CAUSES: Final = (
    ("Deploy {dep} caused alert {a} on {h}.", "caused"),
    ("The {name} alert on {h} was caused by deploy {dep}.", "caused by"),
    ("Alert {a} fired because of deploy {dep}.", "because of"),
)


def unstated_cause(world: World, index: int) -> Scene:
    """``The outage was caused by the config push.`` when the evidence only shows a push
    thirty seconds before the errors."""
    rng = world.rng
    kind = "exact_restatement"
    host = world.own(world.draw_host)
    if index % 2 == 0:
        config = world.number_id("cfg-", 1000, 9999)
        service = world.own(world.draw_service)
        pushed = world.at(-rng.randint(20, 45))
        push = LogEvent(pushed, "INFO", host, f"config push {config} applied to {service}",
                        f"{host} logged that config push {config} was applied to {service}",
                        f"config push {config} reached {service} on {host}", "deployer")
        error = log_event(world, world.at(0), "ERROR", host=host)
        template, stated = CAUSES[index // 2 % len(CAUSES)]
        false = Said(template.format(cfg=config, h=host), UNGROUNDED, "unstated_cause",
                     (push.item, error.item), (stamp(pushed), stamp(error.when)), stated)
        return Scene([push.item, error.item], [false],
                     [push.say(rng, kind=kind), error.say(rng, kind=kind)])
    record = deploy(world, world.at(-rng.randint(20, 45)), status="succeeded")
    fired = alert(world, world.at(0), host=host, family=rng.choice(("HighLatency", "ErrorRate")),
                  state="firing")
    template, stated = DEPLOY_CAUSES[index // 2 % len(DEPLOY_CAUSES)]
    text = template.format(dep=record.deploy_id, a=fired.alert_id, h=host, name=fired.name)
    false = Said(text, UNGROUNDED, "unstated_cause", (record.item, fired.item),
                 (stamp(record.finished), stamp(fired.fired)), stated)
    return Scene([record.item, fired.item], [false],
                 [record.say_status(rng, kind=kind), fired.say_time(rng, kind=kind)])
