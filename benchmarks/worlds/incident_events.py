"""Events of a synthetic incident: log lines, alerts, deploy records, Kubernetes events, ticket
notes and result sets, each with the sentences that restate it.

Every builder takes the case's :class:`~benchmarks.worlds.incident_world.World`, makes one
evidence item about names the case owns, and returns an object whose ``say_*`` methods write one
true sentence (``move="exact"`` or ``"paraphrase"``); the unfaithful kinds
(:mod:`benchmarks.worlds.incident_faults`) reuse the same templates with a false value.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from benchmarks.worlds.incident_metrics import GROUNDED, Said
from benchmarks.worlds.incident_world import (
    ALERT_NAMES,
    PROCESSES,
    Item,
    World,
    alert_line,
    deploy_record,
    json_fragment,
    log_line,
    stamp,
    utc_clock,
    version,
)

ERROR_MESSAGES: Final = (
    ("connection refused to {dep}:{port}",
     "{host} logged an error: connection refused to {dep}:{port}",
     "the {process} on {host} could not connect to {dep}:{port}"),
    ("upstream {svc} timed out after {n} ms",
     "{host} logged that upstream {svc} timed out after {n} ms",
     "calls from {host} to {svc} gave up after {n} ms"),
    ("payment authorization failed: HTTP 503 from {svc}",
     "{host} logged a failed payment authorization with HTTP 503 from {svc}",
     "{host} got HTTP 503 from {svc} while authorizing a payment"),
    ("TLS handshake with {dep} failed: certificate expired",
     "{host} logged a failed TLS handshake with {dep} because the certificate expired",
     "{host} could not finish a TLS handshake with {dep} as its certificate had expired"),
)
"""(log message, exact restatement, paraphrase) of ERROR lines."""
OTHER_MESSAGES: Final = (
    ("WARN", "slow query took {n} ms on {dep}", "{host} logged a slow query of {n} ms on {dep}",
     "a query from {host} to {dep} took {n} ms"),
    ("WARN", "retrying request to {svc} (attempt 3 of 5)",
     "{host} logged a retry of a request to {svc}, attempt 3 of 5",
     "{host} was on its third of five attempts to reach {svc}"),
    ("INFO", "health check passed", "{host} logged a passing health check",
     "the health check of {host} passed"),
)


@dataclass
class LogEvent:
    """One log line of a host the case owns."""

    when: datetime
    level: str
    host: str
    message: str
    exact: str
    paraphrase: str
    process: str
    item: Item = field(init=False)

    def __post_init__(self) -> None:
        self.item = Item(log_line(self.when, self.level, self.host, self.process, self.message),
                         None, "log")

    def say(self, rng: random.Random, *, kind: str, move: str = "exact",
            clock: str | None = None, label: str = GROUNDED) -> Said:
        """``At 09:13:42 UTC, api-prod-3 logged ...`` (``clock`` overrides the time written)."""
        written = clock or utc_clock(self.when, seconds=rng.random() < 0.5)
        body = self.paraphrase if move == "paraphrase" else self.exact
        return Said(f"At {written}, {body}.", label, kind, (self.item,),
                    (stamp(self.when), self.message), written)


def log_event(world: World, when: datetime, level: str, *, host: str | None = None,
              own: bool = True) -> LogEvent:
    """A log line at ``when`` of ``host`` (default: a fresh host the case owns; with
    ``own=False`` a distractor's line about names the case does not use)."""
    rng = world.rng
    pick = world.own if own else world.other
    host = host or pick(world.draw_host)
    if level == "ERROR":
        message, exact, paraphrase = rng.choice(ERROR_MESSAGES)
    else:
        level, message, exact, paraphrase = rng.choice(
            [m for m in OTHER_MESSAGES if m[0] == level] or OTHER_MESSAGES)
    values = {"host": host, "process": rng.choice(PROCESSES), "port": str(rng.choice(
        (5432, 6379, 9092, 443, 8080, 3306))), "n": str(rng.randint(150, 30000))}
    if "{dep}" in message:
        values["dep"] = pick(world.draw_host)
    if "{svc}" in message:
        values["svc"] = pick(world.draw_service)
    return LogEvent(when, level, host, message.format(**values), exact.format(**values),
                    paraphrase.format(**values), values["process"])


@dataclass
class Alert:
    """An alert on a host the case owns."""

    alert_id: str
    name: str
    host: str
    severity: str
    state: str
    fired: datetime
    item: Item = field(init=False)

    def __post_init__(self) -> None:
        self.item = Item(alert_line(self.alert_id, self.name, self.host, self.severity,
                                    self.state, self.fired), None, "alert")

    def said(self, text: str, kind: str, support: str, stated: str,
             label: str = GROUNDED) -> Said:
        """A sentence about this alert that restates or misstates ``support``."""
        return Said(text, label, kind, (self.item,), (support, self.alert_id), stated)

    def say_state(self, rng: random.Random, *, kind: str, move: str = "exact",
                  state: str | None = None, label: str = GROUNDED) -> Said:
        """``Alert ALRT-20932 (DiskSpaceWarning) is firing on db-prod-2.``"""
        state = state or self.state
        exact = {"firing": (("is firing on {h}", "firing"),
                            ("is still firing on {h}", "still firing")),
                 "resolved": (("on {h} is resolved", "resolved"),
                              ("on {h} has been resolved", "resolved"))}[state]
        paraphrase = {"firing": ("is active on {h}", "active"),
                      "resolved": ("on {h} has cleared", "cleared")}[state]
        phrase, stated = paraphrase if move == "paraphrase" else rng.choice(exact)
        return self.said(f"Alert {self.alert_id} ({self.name}) {phrase.format(h=self.host)}.",
                         kind, f"state={self.state}", stated, label)

    def say_severity(self, rng: random.Random, *, kind: str, move: str = "exact",
                     severity: str | None = None, label: str = GROUNDED) -> Said:
        """``Alert ALRT-20932 on db-prod-2 has severity warning.``"""
        severity = severity or self.severity
        text = (f"Alert {self.alert_id} on {self.host} is a {severity}-level alert."
                if move == "paraphrase" else
                f"Alert {self.alert_id} on {self.host} has severity {severity}.")
        return self.said(text, kind, f"severity={self.severity}", severity, label)

    def say_time(self, rng: random.Random, *, kind: str, move: str = "exact",
                 clock: str | None = None, label: str = GROUNDED) -> Said:
        """``Alert ALRT-20932 on db-prod-2 fired at 09:10 UTC.``"""
        written = clock or utc_clock(self.fired, seconds=rng.random() < 0.3)
        verb = "went off" if move == "paraphrase" else "fired"
        return self.said(f"Alert {self.alert_id} on {self.host} {verb} at {written}.", kind,
                         f"fired_at={stamp(self.fired)}", written, label)

    def say_name(self, rng: random.Random, *, kind: str, alert_id: str | None = None,
                 name: str | None = None, label: str = GROUNDED) -> Said:
        """``The alert that fired on db-prod-2 was DiskSpaceWarning (ALRT-20932).``"""
        alert_id, name = alert_id or self.alert_id, name or self.name
        text = rng.choice((f"The alert that fired on {self.host} was {name} ({alert_id}).",
                           f"Alert {alert_id} ({name}) fired on {self.host}."))
        stated = alert_id if alert_id != self.alert_id else name
        support = self.alert_id if alert_id != self.alert_id else self.name
        return Said(text, label, kind, (self.item,), (support, f"host={self.host}"), stated)


def alert(world: World, when: datetime, *, host: str | None = None, family: str | None = None,
          state: str | None = None, own: bool = True) -> Alert:
    """An alert fired at ``when`` on ``host`` (default: a fresh host the case owns).

    The case's own alert names are reserved: no distractor alert shares one.
    """
    rng = world.rng
    pick = world.own if own else world.other
    level = rng.choice(("Warning", "Critical"))
    name = world.other(lambda: (family or rng.choice(ALERT_NAMES)) + level)
    if own:
        world.reserved.add(name)
    return Alert(world.number_id("ALRT-", 10000, 99999), name, host or pick(world.draw_host),
                 level.lower(), state or rng.choice(("firing", "firing", "resolved")), when)


DEPLOY_STATES: Final = {
    "succeeded": ("succeeded", "completed successfully"),
    "failed": ("failed", "did not complete"),
    "rolled_back": ("was rolled back", "got reverted"),
}
"""Deploy statuses: (exact predicate, paraphrase)."""


@dataclass
class Deploy:
    """A deploy record of a service the case owns."""

    deploy_id: str
    service: str
    version: str
    status: str
    actor: str
    finished: datetime
    item: Item = field(init=False)

    def __post_init__(self) -> None:
        self.item = Item(deploy_record(self.deploy_id, self.service, self.version, self.status,
                                       self.actor, self.finished),
                         None, "deploy")

    def said(self, text: str, kind: str, key: str, stated: str, label: str) -> Said:
        """A sentence about this deploy that restates or misstates its field ``key``."""
        value = {"status": self.status, "actor": self.actor,
                 "finished_at": stamp(self.finished)}[key]
        return Said(text, label, kind, (self.item,),
                    (json_fragment(key, value), json_fragment("deploy_id", self.deploy_id)),
                    stated)

    def say_status(self, rng: random.Random, *, kind: str, move: str = "exact",
                   predicate: str | None = None, label: str = GROUNDED) -> Said:
        """``Deploy dep-5521 of checkout-api v2.3.1 succeeded.``"""
        exact, paraphrase = DEPLOY_STATES[self.status]
        predicate = predicate or (paraphrase if move == "paraphrase" else exact)
        return self.said(f"Deploy {self.deploy_id} of {self.service} {self.version} {predicate}.",
                         kind, "status", predicate, label)

    def say_actor(self, rng: random.Random, *, kind: str, move: str = "exact",
                  actor: str | None = None, label: str = GROUNDED) -> Said:
        """``Deploy dep-5521 was run by maria.lopez.``"""
        actor = actor or self.actor
        text = (f"It was {actor} who ran deploy {self.deploy_id}." if move == "paraphrase"
                else f"Deploy {self.deploy_id} of {self.service} was run by {actor}.")
        return self.said(text, kind, "actor", actor, label)

    def say_time(self, rng: random.Random, *, kind: str, move: str = "exact",
                 clock: str | None = None, label: str = GROUNDED) -> Said:
        """``Deploy dep-5521 finished at 09:02 UTC.``"""
        written = clock or utc_clock(self.finished, seconds=rng.random() < 0.3)
        verb = "wrapped up" if move == "paraphrase" else "finished"
        return self.said(f"Deploy {self.deploy_id} of {self.service} {verb} at {written}.",
                         kind, "finished_at", written, label)


def deploy(world: World, when: datetime, *, status: str | None = None,
           service: str | None = None, own: bool = True) -> Deploy:
    """A deploy that finished at ``when`` of ``service`` (default: a fresh one the case owns)."""
    rng = world.rng
    pick = world.own if own else world.other
    record = Deploy(world.number_id("dep-", 1000, 9999), service or pick(world.draw_service),
                    version(rng),
                    status or rng.choice(("succeeded", "succeeded", "failed", "rolled_back")),
                    pick(world.draw_person), when)
    record.item.type = rng.choice((None, "specific_data"))
    return record
