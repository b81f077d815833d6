"""Records of a synthetic incident: Kubernetes events, one-line ticket notes and result sets.

Like :mod:`benchmarks.worlds.incident_events`, each builder makes one evidence item about names
the case owns and offers the sentences that restate it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final, NamedTuple

from benchmarks.worlds.incident_metrics import GROUNDED, Said
from benchmarks.worlds.incident_world import Item, World, kube_table, node_name, utc_clock, version


class KubeKind(NamedTuple):
    """A kind of Kubernetes event: the row it makes and its two restatements."""

    type: str
    reason: str
    on: str
    message: str
    exact: str
    paraphrase: str
    repeats: bool


KUBE_KINDS: Final = (
    KubeKind("Warning", "BackOff", "pod", "Back-off restarting failed container",
             "Kubernetes reported BackOff for pod {pod}, restarting a failed container{times}",
             "Kubernetes kept backing off restarts of the failed container in pod {pod}{times}",
             True),
    KubeKind("Warning", "Unhealthy", "pod",
             "Readiness probe failed: HTTP probe failed with statuscode: {code}",
             "The readiness probe of pod {pod} failed with status code {code}{times}",
             "Pod {pod} failed its readiness probe with HTTP {code}{times}", True),
    KubeKind("Warning", "OOMKilling", "node",
             "Memory cgroup out of memory: Killed process {pid} (java)",
             "Node {node} killed process {pid} (java) when a memory cgroup ran out of memory",
             "On node {node}, process {pid} (java) was killed for running out of memory", False),
    KubeKind("Normal", "NodeNotReady", "node", "Node {node} status is now: NodeNotReady",
             "Node {node} reported NodeNotReady{times}", "Node {node} went NotReady{times}", True),
    KubeKind("Warning", "FailedScheduling", "pod",
             "0/{n} nodes are available: {n} Insufficient cpu.",
             "Pod {pod} could not be scheduled because none of the {n} nodes had enough CPU",
             "No node out of {n} had enough CPU to schedule pod {pod}", False),
    KubeKind("Normal", "Killing", "pod", "Stopping container {svc}",
             "Kubernetes stopped container {svc} in pod {pod}",
             "Container {svc} in pod {pod} was stopped", False),
    KubeKind("Warning", "Evicted", "pod", "The node was low on resource: memory.",
             "Pod {pod} was evicted because its node was low on memory",
             "Pod {pod} got evicted when its node ran short of memory", False),
    KubeKind("Normal", "Scheduled", "pod", "Successfully assigned default/{pod} to {node}",
             "Pod {pod} was assigned to node {node}", "Kubernetes placed pod {pod} on node {node}",
             False),
)


@dataclass
class KubeEvents:
    """A ``kubectl get events`` table of one to three events on pods and nodes."""

    rows: list[tuple[str, str, str, str, str]]
    sentences: list[tuple[str, str, str, str]]
    """Per row: (exact, paraphrase, the object, the reason)."""
    item: Item = field(init=False)

    def __post_init__(self) -> None:
        self.item = Item(kube_table(self.rows), None, "kubectl")

    def say(self, rng: random.Random, *, kind: str, move: str = "exact",
            row: int | None = None) -> Said:
        """A true sentence about one event of the table."""
        index = rng.randrange(len(self.sentences)) if row is None else row
        exact, paraphrase, subject, reason = self.sentences[index]
        text = paraphrase if move == "paraphrase" else exact
        return Said(text + ".", GROUNDED, kind, (self.item,), (subject, reason),
                    subject.split("/", 1)[1])


def kube_row(world: World, kind: KubeKind, *, own: bool) -> tuple[tuple[str, str, str, str, str],
                                                                   str, str]:
    """One event row and its two restatements, about a pod or node the case owns or not."""
    rng = world.rng
    pick = world.own if own else world.other
    service = pick(world.draw_service)
    pod = world.pod(service)
    node = node_name(world.ip() if own else world.other(world.draw_ip))
    count, span = rng.randint(3, 40), rng.randint(5, 55)
    seen = f"{rng.randint(1, 4)}m"
    times = ""
    if kind.repeats and rng.random() < 0.6:
        seen += f" (x{count} over {span}m)"
        times = f", {count} times over {span} minutes"
    values = {"pod": pod, "node": node, "svc": service, "code": rng.choice(("500", "503")),
              "pid": str(rng.randint(900, 60000)), "n": str(rng.randint(3, 12)), "times": times}
    target = f"{kind.on}/{pod if kind.on == 'pod' else node}"
    row = (seen, kind.type, kind.reason, target, kind.message.format(**values))
    return row, kind.exact.format(**values), kind.paraphrase.format(**values)


def kube_events(world: World, rows: int = 1) -> KubeEvents:
    """A table of ``rows`` events about pods and nodes the case owns."""
    table, sentences = [], []
    for kind in world.rng.sample(KUBE_KINDS, rows):
        row, exact, paraphrase = kube_row(world, kind, own=True)
        table.append(row)
        sentences.append((exact, paraphrase, row[3], row[2]))
    return KubeEvents(table, sentences)


class Verb(NamedTuple):
    """A done-by note: ``Ticket 5 was closed by team-5 after 6 hours.``"""

    subject: str
    passive: str
    active: str
    negations: tuple[str, ...]
    by_team: bool


VERBS: Final = {
    "closed": Verb("Ticket {n}", "was closed", "closed ticket {n}",
                   ("was never closed", "was not closed", "is still open"), True),
    "merged": Verb("Pull request {n}", "was merged", "merged pull request {n}",
                   ("was never merged", "was not merged", "is still open"), False),
    "deployed": Verb("Build {n}", "was deployed to production", "deployed build {n} to production",
                     ("was never deployed to production", "has not been deployed",
                      "is still waiting to be deployed"), False),
    "restarted": Verb("Service {svc}", "was restarted", "restarted service {svc}",
                      ("was never restarted", "was not restarted", "has not been restarted"),
                      False),
    "resolved": Verb("Incident INC-{n}", "was resolved", "resolved incident INC-{n}",
                     ("was never resolved", "is still unresolved", "remains open"), True),
    "acknowledged": Verb("Page PG-{n}", "was acknowledged", "acknowledged page PG-{n}",
                         ("was never acknowledged", "went unacknowledged",
                          "was not acknowledged"), False),
    "approved": Verb("Change CHG-{n}", "was approved", "approved change CHG-{n}",
                     ("was never approved", "is still awaiting approval", "was not approved"),
                     False),
    "scaled": Verb("Deployment {svc}", "was scaled to {r} replicas",
                   "scaled deployment {svc} to {r} replicas",
                   ("was never scaled", "was not scaled", "was left at its old replica count"),
                   False),
    "drained": Verb("Node {node}", "was drained", "drained node {node}",
                    ("was never drained", "was not drained", "is still taking new pods"), False),
    "rolled back": Verb("Release {ver} of {svc}", "was rolled back",
                        "rolled back release {ver} of {svc}",
                        ("was never rolled back", "was not rolled back", "is still live"), False),
}
"""The ten verbs of ticket notes, with the ways an answer wrongly denies them."""


@dataclass
class Note:
    """A one-line note that someone did something: ``Ticket 5 was closed by team-5 after 6 h``."""

    subject: str
    passive: str
    active: str
    actor: str
    tail: str
    negations: tuple[str, ...]
    item: Item = field(init=False)

    def __post_init__(self) -> None:
        self.item = Item(f"{self.subject} {self.passive} by {self.actor} {self.tail}.", None,
                         "note")

    def said(self, text: str, kind: str, stated: str, label: str) -> Said:
        """A sentence about this note, which restates or misstates who did what."""
        return Said(text, label, kind, (self.item,),
                    (f"{self.passive} by {self.actor}", self.subject), stated)

    def say(self, rng: random.Random, *, kind: str, move: str = "exact") -> Said:
        """The note itself, or in the active voice: ``After 6 hours, team-5 closed ticket 5.``"""
        if move == "paraphrase":
            text = f"{self.tail[0].upper()}{self.tail[1:]}, {self.actor} {self.active}."
            return self.said(text, kind, self.actor, GROUNDED)
        return self.said(self.item.content, kind, self.passive, GROUNDED)

    def say_actor(self, actor: str, *, kind: str, label: str) -> Said:
        """The note with another actor."""
        return self.said(f"{self.subject} {self.passive} by {actor} {self.tail}.", kind, actor,
                         label)


def note(world: World, when: datetime, verb: str | None = None, *, own: bool = True) -> Note:
    """A note about a subject the case owns (``own=False``: a distractor note)."""
    rng = world.rng
    chosen = VERBS[verb or rng.choice(list(VERBS))]
    pick = world.own if own else world.other
    service = pick(world.draw_service)
    values = {"n": world.number_id("", 2, 9999), "svc": service, "r": str(rng.randint(2, 24)),
              "ver": version(rng),
              "node": node_name(world.ip() if own else world.other(world.draw_ip))}
    actor = pick(world.draw_team if chosen.by_team else world.draw_person)
    if rng.random() < 0.5:
        hours = rng.randint(2, 30)
        tail = rng.choice((f"after {hours} hours", f"after {hours} minutes"))
    else:
        tail = f"at {utc_clock(when)}"
    return Note(chosen.subject.format(**values), chosen.passive.format(**values),
                chosen.active.format(**values), actor, tail, chosen.negations)


class Family(NamedTuple):
    """A kind of result set: rows of one group, nearly all with the ``good`` status."""

    id_key: str
    id_prefix: str
    group_key: str
    good: str
    bad: str
    every: tuple[str, ...]
    one: str


FAMILIES: Final = (
    Family("order_id", "ord-", "batch", "shipped", "cancelled",
           ("All orders in batch {g} were cancelled.", "Every order in batch {g} was cancelled."),
           "Order {id} in batch {g} was shipped."),
    Family("run_id", "run-", "job", "succeeded", "failed",
           ("All runs of job {g} failed.", "Every run of job {g} failed."),
           "Run {id} of job {g} succeeded."),
    Family("check_id", "hc-", "target", "passing", "failing",
           ("All health checks of {g} were failing.", "Every health check of {g} was failing."),
           "Health check {id} of {g} was passing."),
)


@dataclass
class ResultSet:
    """Rows of one group (a batch, a job, a host's checks), as one multi-line tool result."""

    family: Family
    group: str
    rows: list[tuple[str, str]]
    item: Item = field(init=False)

    def __post_init__(self) -> None:
        self.item = Item("\n".join(
            f"{self.family.id_key}={row_id} {self.family.group_key}={self.group} status={status}"
            for row_id, status in self.rows), None, "results")

    def say_one(self, rng: random.Random, *, kind: str) -> Said:
        """A true sentence about one row with the usual status."""
        row_id = rng.choice([r for r, status in self.rows if status == self.family.good])
        return Said(self.family.one.format(id=row_id, g=self.group), GROUNDED, kind, (self.item,),
                    (f"{self.family.id_key}={row_id}", f"status={self.family.good}"), row_id)


def result_set(world: World, *, own: bool = True, family: Family | None = None) -> ResultSet:
    """Four to eight rows of one group (two to four for a distractor), none or one of them
    with the bad status."""
    rng = world.rng
    family = family or rng.choice(FAMILIES)
    if family.group_key == "target":
        group = world.own(world.draw_host) if own else world.other(world.draw_host)
    elif family.group_key == "job":
        group = world.fresh(lambda: rng.choice(("nightly-etl", "invoice-export", "search-reindex",
                                                "backup-db", "ledger-close", "cache-warm"))
                            + f"-{rng.randint(1, 99)}")
        if own:
            world.reserved.add(group)
    else:
        group = world.number_id("B-", 1000, 9999)
    count = rng.randint(4, 8) if own else rng.randint(2, 4)
    bad = rng.randrange(count) if rng.random() < 0.5 else -1
    rows = [(world.number_id(family.id_prefix, 1000, 99999),
             family.bad if index == bad else family.good) for index in range(count)]
    return ResultSet(family, group, rows)
