"""The world of one synthetic incident case: its names, its clock and its evidence shapes.

A :class:`World` hands out the hosts, services, people and ids of one case. Names the case's own
evidence uses are *reserved* and ids are *issued* once, so the unrelated distractor items
(:mod:`benchmarks.worlds.incident_noise`) never mention what the answer is about, and a name an
unfaithful answer invents (``db-prod-9``, ``payments-api``, ``ALRT-20933``) is reserved without
being used, so it occurs nowhere in the evidence.

The renderers write evidence as agents receive it: ``key=value`` metric rows and ``key: value``
blocks, log lines, alerts, deploy records as JSON, ``kubectl get events`` tables, tool results
wrapped in JSON and one-line ticket notes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Final

ROLES: Final = ("api", "db", "cache", "edge-lb", "web", "worker", "kafka", "search", "queue",
                "redis", "ingest", "auth", "gw", "batch")
SERVICES: Final = (
    "checkout-api", "payments-api", "orders-api", "cart-service", "search-api", "auth-service",
    "inventory-svc", "shipping-api", "notification-worker", "billing-api", "user-profile",
    "recommendations-api", "pricing-svc", "fraud-check", "ledger-writer", "email-sender",
    "catalog-api", "session-store", "reporting-job", "refund-service", "tax-engine",
    "loyalty-api", "media-resizer", "geo-lookup",
)
PEOPLE: Final = (
    "maria.lopez", "john.smith", "wei.chen", "priya.patel", "olga.ivanova", "kenji.sato",
    "amara.okafor", "lucas.martin", "sofia.rossi", "ahmed.hassan", "emma.jones", "diego.ramos",
    "hannah.muller", "raj.kumar", "chloe.dubois", "noah.williams", "lena.berg", "omar.farouk",
    "yuki.tanaka", "ines.costa", "tom.baker", "zoe.nguyen", "ivan.petrov", "sara.cohen",
)
TEAMS: Final = ("sre-oncall", "platform-team", "payments-team", "db-team", "netops",
                "checkout-team", "infra-team", "search-team")
PROCESSES: Final = ("payment-worker", "http-server", "order-sync", "cron", "grpc-gateway",
                    "consumer", "scheduler", "pgbouncer", "nginx", "session-reaper")
ALERT_NAMES: Final = ("DiskSpace", "HighCPU", "HighLatency", "ErrorRate", "MemoryPressure",
                      "ConnectionPool", "ReplicationLag", "QueueBacklog", "CertificateExpiry")
"""Alert families; an alert is named family + ``Warning`` or ``Critical``."""
SEVERITY_OF: Final = {"Warning": "warning", "Critical": "critical"}

METRIC_STYLES: Final = ("inline", "inline", "inline", "lines", "wrapped_list", "wrapped_result")
"""How a metric row is written: ``host=... k=v``, ``key: value`` lines, or a tool result in JSON
(``[{"type": "text", "text": ...}]`` or ``{"result": ...}``)."""


@dataclass(eq=False)
class Item:
    """One evidence item of a case under construction (compared by identity)."""

    content: str
    type: str | None = None
    """An evidence type, or None to let the library infer it."""
    shape: str = "line"


@dataclass
class World:
    """The names, ids and clock of one case."""

    rng: random.Random
    start: datetime
    reserved: set[str] = field(default_factory=set)
    """Names the case's own items use or its answer invents; distractors avoid them."""
    issued: set[str] = field(default_factory=set)
    """Every id handed out, so none is handed out twice."""

    @classmethod
    def new(cls, rng: random.Random) -> World:
        """A world whose clock starts on a random day of 9-26 March 2026 (UTC).

        In that window the US is on daylight time (EDT, PDT) and Europe is not (CET, GMT), so a
        zone name stated with a converted time is the right one for the date.
        """
        start = datetime(2026, 3, rng.randint(9, 26), rng.randint(0, 23), rng.randint(0, 59),
                         rng.randint(0, 59), tzinfo=UTC)
        return cls(rng=rng, start=start)

    # -- names --------------------------------------------------------------------------------

    def fresh(self, draw: Callable[[], str]) -> str:
        """A value of ``draw`` neither reserved nor issued before; it is issued now."""
        for _ in range(10_000):
            value = draw()
            if value not in self.issued and value not in self.reserved:
                self.issued.add(value)
                return value
        raise RuntimeError("the name pool is exhausted")

    def own(self, draw: Callable[[], str]) -> str:
        """A fresh value the case uses itself: reserved, so no distractor mentions it."""
        value = self.fresh(draw)
        self.reserved.add(value)
        return value

    def other(self, draw: Callable[[], str]) -> str:
        """A value for a distractor: anything not reserved (distractors may share names)."""
        for _ in range(10_000):
            value = draw()
            if value not in self.reserved:
                return value
        raise RuntimeError("the name pool is exhausted")

    def draw_host(self) -> str:
        """A host name: ``api-prod-3``, ``cache-2``, ``edge-lb-1``."""
        role = self.rng.choice(ROLES)
        middle = "-prod" if self.rng.random() < 0.6 else ""
        return f"{role}{middle}-{self.rng.randint(1, 40)}"

    def sibling(self, host: str) -> str:
        """A host named like ``host`` with another number (``db-prod-9`` for ``db-prod-2``),
        reserved and never used: it occurs nowhere in the case's evidence."""
        prefix = host.rsplit("-", 1)[0]
        return self.own(lambda: f"{prefix}-{self.rng.randint(1, 40)}")

    def draw_service(self) -> str:
        """A service name: ``checkout-api``."""
        return self.rng.choice(SERVICES)

    def draw_person(self) -> str:
        """A person: ``maria.lopez``."""
        return self.rng.choice(PEOPLE)

    def draw_team(self) -> str:
        """A team: ``team-5`` or ``sre-oncall``."""
        if self.rng.random() < 0.4:
            return f"team-{self.rng.randint(1, 60)}"
        return self.rng.choice(TEAMS)

    def draw_ip(self) -> str:
        """A private address: ``10.0.3.17``."""
        return f"10.{self.rng.randint(0, 9)}.{self.rng.randint(0, 31)}.{self.rng.randint(2, 250)}"

    def ip(self) -> str:
        """A fresh private address (also reserves its ``ip-10-0-3-17`` node name)."""
        address = self.fresh(self.draw_ip)
        self.reserved.add(node_name(address))
        return address

    def number_id(self, prefix: str, low: int, high: int) -> str:
        """A fresh id ``prefix`` + a number in [low, high] (``ALRT-20932``, ``dep-5521``)."""
        return self.fresh(lambda: f"{prefix}{self.rng.randint(low, high)}")

    def pod(self, service: str) -> str:
        """A fresh pod name of ``service``: ``checkout-api-7f9c6d-q8zt4``."""
        alphabet = "bcdfghjklmnpqrstvwxz2456789"
        return self.fresh(lambda: "{}-{}-{}".format(
            service, "".join(self.rng.choice("0123456789abcdef") for _ in range(6)),
            "".join(self.rng.choice(alphabet) for _ in range(5))))

    # -- time ---------------------------------------------------------------------------------

    def at(self, seconds: float) -> datetime:
        """The time ``seconds`` after the case's start."""
        return self.start + timedelta(seconds=seconds)

    def noise_time(self) -> datetime:
        """A time within four hours before and two after the start, for a distractor."""
        return self.at(self.rng.randint(-4 * 3600, 2 * 3600))


# -- formatting -------------------------------------------------------------------------------


def stamp(when: datetime) -> str:
    """``2026-03-14T09:13:42Z``."""
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def utc_clock(when: datetime, *, seconds: bool = False) -> str:
    """``09:13 UTC`` (or ``09:13:42 UTC``)."""
    return when.astimezone(UTC).strftime("%H:%M:%S UTC" if seconds else "%H:%M UTC")


def node_name(address: str) -> str:
    """The EC2 node name of an address: ``ip-10-0-3-17.ec2.internal``."""
    return "ip-" + address.replace(".", "-") + ".ec2.internal"


def metric_fragment(style: str, key: str, value: str) -> str:
    """How one field of a metric row is written in ``style``."""
    return f"{key}: {value}" if style == "lines" else f"{key}={value}"


def metric_row(host: str, fields: Mapping[str, str], style: str) -> str:
    """A metric row of ``host`` in one of :data:`METRIC_STYLES`."""
    pairs = [("host", host), *fields.items()]
    if style == "lines":
        return "\n".join(f"{key}: {value}" for key, value in pairs)
    line = " ".join(f"{key}={value}" for key, value in pairs)
    if style == "wrapped_list":
        return json.dumps([{"type": "text", "text": line}])
    if style == "wrapped_result":
        return json.dumps({"result": line})
    return line


def log_line(when: datetime, level: str, host: str, process: str, message: str) -> str:
    """``2026-03-14T09:13:42Z ERROR api-prod-3 payment-worker: connection refused ...``."""
    return f"{stamp(when)} {level} {host} {process}: {message}"


def alert_line(alert_id: str, name: str, host: str, severity: str, state: str,
               fired: datetime) -> str:
    """``ALERT ALRT-20932 DiskSpaceWarning host=db-prod-2 severity=warning state=firing ...``."""
    return (f"ALERT {alert_id} {name} host={host} severity={severity} state={state} "
            f"fired_at={stamp(fired)}")


def deploy_record(deploy_id: str, service: str, version: str, status: str, actor: str,
                  finished: datetime) -> str:
    """A deploy record as JSON, as a deploy tool returns it."""
    return json.dumps({"deploy_id": deploy_id, "service": service, "version": version,
                       "status": status, "actor": actor, "finished_at": stamp(finished)})


def json_fragment(key: str, value: str) -> str:
    """How one field of a JSON record is written: ``"status": "succeeded"``."""
    return f"{json.dumps(key)}: {json.dumps(value)}"


KUBE_HEADER: Final = ("LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE")


def kube_table(rows: Sequence[tuple[str, str, str, str, str]]) -> str:
    """Rows of ``kubectl get events``, under its header, in padded columns."""
    table = [KUBE_HEADER, *rows]
    widths = [max(len(row[column]) for row in table) for column in range(4)]
    return "\n".join(
        "   ".join(cell.ljust(width) for cell, width in zip(row[:4], widths, strict=True))
        + "   " + row[4] for row in table)


def version(rng: random.Random) -> str:
    """A release version: ``v2.3.1``."""
    return f"v{rng.randint(1, 9)}.{rng.randint(0, 19)}.{rng.randint(0, 9)}"
