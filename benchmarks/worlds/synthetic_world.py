"""The evidence of one synthetic incident, built item by item (:mod:`benchmarks.worlds.synthetic`).

A :class:`World` collects evidence items of four shapes (``key=value`` metric rows, log lines,
alerts, JSON tool results), the facts and events they state, the candidate causes they show and
the kinds of token they contain. Evidence types follow GSAR §1.1: a value copied from a metric row
or a log line is ``tool_match``, a field of the firing alert ``signal_match``, a typed field of a
JSON tool result ``specific_data``.
"""

from __future__ import annotations

import json
import random
import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from benchmarks.worlds.synthetic_templates import Cause, Event, Fact, fmt

TOKEN_KINDS = ("percent", "unit_number", "count", "clock_time", "timestamp", "date", "duration",
               "version", "ipv4", "ipv6", "port", "http_status", "http_class", "percentile",
               "identifier", "uuid", "git_sha", "host", "quoted_string")
"""Every kind of token the generated evidence uses; ``meta.token_kinds`` lists a case's."""

METRICS: dict[str, tuple[str, str]] = {
    "http_5xx_rate": ("5xx rate", "percent"), "error_rate": ("error rate", "rate"),
    "cpu_pct": ("CPU usage", "percent"), "disk_used_pct": ("disk usage", "percent"),
    "inode_used_pct": ("inode usage", "percent"), "gpu_util_pct": ("GPU utilisation", "percent"),
    "p99_ms": ("p99 latency", "ms"), "p50_ms": ("p50 latency", "ms"),
    "replication_lag_ms": ("replication lag", "ms"), "disk_free_gb": ("free disk space", "gb"),
    "mem_used_gb": ("memory usage", "gb"), "gpu_mem_used_gb": ("GPU memory usage", "gb"),
    "rps": ("request rate", "rps"), "producer_rps": ("publish rate", "rps"),
    "consumer_rps": ("consume rate", "rps"), "restarts": ("restart count", "count"),
    "ecc_errors": ("ECC error count", "count"), "depth": ("queue depth", "count"),
    "connections": ("connection count", "count"),
    "tls_handshake_errors": ("TLS handshake error count", "count"),
}
"""Metric keys of the rows: what the value is and its kind."""
_KIND_TOKENS = {"percent": ("percent",), "rate": ("percent",), "ms": ("unit_number",),
                "gb": ("unit_number",), "rps": ("unit_number",), "count": ("count",)}


@dataclass
class World:
    """One incident's evidence under construction."""

    scenario: str
    rng: random.Random
    start: datetime
    items: list[str] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    causes: list[Cause] = field(default_factory=list)
    effects: tuple[str, ...] = ("outage",)
    """Noun phrases for what went wrong; the first is the plainest."""
    hosts: list[str] = field(default_factory=list)
    stated: Cause | None = None
    stated_source: str = "tool_match"
    kinds: set[str] = field(default_factory=set)

    # -- tokens --------------------------------------------------------------------------------

    def tok(self, kind: str, text: str) -> str:
        """Record that the evidence has a token of ``kind``; return the text."""
        self.kinds.add(kind)
        return text

    def at(self, seconds: float) -> datetime:
        """The time ``seconds`` after the incident's start."""
        return self.start + timedelta(seconds=seconds)

    def clock(self, when: datetime) -> str:
        """``HH:MM:SS`` (UTC)."""
        return when.strftime("%H:%M:%S")

    def iso(self, when: datetime) -> str:
        """An ISO-8601 timestamp with a ``Z`` (or, now and then, ``+00:00``) zone."""
        zone = "Z" if self.rng.random() < 0.8 else "+00:00"
        return self.tok("timestamp", when.strftime("%Y-%m-%dT%H:%M:%S") + zone)

    def date(self, days: int = 0) -> str:
        """A date ``days`` after the incident's day."""
        return self.tok("date", (self.start + timedelta(days=days)).strftime("%Y-%m-%d"))

    def host(self, prefix: str, number: int | None = None) -> str:
        """A host name ``prefix-N`` (registered for new-host sentences)."""
        name = f"{prefix}-{number if number is not None else self.rng.randint(1, 9)}"
        if name not in self.hosts:
            self.hosts.append(name)
        return name

    def name(self, text: str) -> str:
        """A hyphenated service, queue or cluster name."""
        return self.tok("host", text)

    def ipv4(self, port: int | None = None) -> str:
        """A private IPv4 address, with a port when given."""
        address = self.tok("ipv4", f"10.{self.rng.randint(0, 9)}.{self.rng.randint(0, 20)}."
                                   f"{self.rng.randint(2, 250)}")
        return address + (f":{self.tok('port', str(port))}" if port else "")

    def ipv6(self, port: int) -> str:
        """A documentation-range IPv6 address in brackets with a port."""
        address = f"2001:db8:{self.rng.randint(1, 9)}::{self.rng.randint(10, 99):x}"
        return f"[{self.tok('ipv6', address)}]:{self.tok('port', str(port))}"

    def ident(self, prefix: str) -> str:
        """``cfg-7781``, ``INC-5520``: an identifier with a prefix."""
        return self.tok("identifier", f"{prefix}-{self.rng.randint(1000, 9999)}")

    def uuid(self) -> str:
        """A random (seeded) UUID."""
        return self.tok("uuid", str(uuid.UUID(int=self.rng.getrandbits(128), version=4)))

    def sha(self) -> str:
        """A short git sha (always with a letter, so it reads as a sha)."""
        digits = "".join(self.rng.choice("0123456789abcdef") for _ in range(7))
        return self.tok("git_sha", digits if re.search("[a-f]", digits) else "a" + digits[1:])

    def version(self, major: int | None = None) -> str:
        """A ``vX.Y.Z`` version."""
        rng = self.rng
        return self.tok("version", f"v{major or rng.randint(1, 4)}.{rng.randint(0, 19)}."
                                   f"{rng.randint(0, 12)}")

    def quoted(self, text: str) -> str:
        """A double-quoted string."""
        return self.tok("quoted_string", f'"{text}"')

    # -- items ---------------------------------------------------------------------------------

    def fact(self, subject: str, what: str, kind: str, text: str, source: str,
             number: float | None = None) -> str:
        """Record a fact the evidence states; return its value text."""
        self.facts.append(Fact(subject, what, kind, text, source, number=number))
        return text

    def row(self, key: str, subject: str, when: datetime, values: dict[str, float],
            extra: str = "") -> None:
        """A metric row ``key=subject metric=value ... ts=...``; each metric becomes a fact."""
        fields = [f"{key}={subject}"]
        self.tok("host", subject)
        for metric, value in values.items():
            what, kind = METRICS[metric]
            for token in _KIND_TOKENS[kind]:
                self.tok(token, "")
            if metric[:3] in ("p99", "p50"):
                self.tok("percentile", "")
            text = fmt(value) + ("%" if metric.endswith("_rate") and kind == "percent" else "")
            fields.append(f"{metric}={text}")
            self.facts.append(Fact(subject, what, kind, text, "tool_match", number=value,
                                   at=self.clock(when), family=metric))
        self.items.append(" ".join([*fields, *([extra] if extra else []),
                                    f"ts={self.iso(when)}"]))

    def log(self, when: datetime, level: str, source: str, message: str) -> None:
        """A log line ``YYYY-MM-DD HH:MM:SS UTC LEVEL source: message``."""
        self.tok("timestamp", "")
        self.items.append(f"{when:%Y-%m-%d %H:%M:%S} UTC {level} {source}: {message}")

    def event(self, when: datetime, source: str, message: str, phrases: tuple[str, str, str],
              level: str = "INFO") -> None:
        """A log line of an event an answer may restate or deny; ``phrases`` are its active,
        passive and negated wording (see :class:`Event`)."""
        self.log(when, level, source, message)
        self.events.append(Event(*phrases, at=self.clock(when)))

    def alert(self, name: str, subject: str, when: datetime, threshold: str,
              kind: str | None = None, number: float | None = None) -> None:
        """``ALERT name firing for subject since HH:MM:SS UTC (threshold ...)``; the time (and,
        with ``kind``, the threshold) become ``signal_match`` facts."""
        since = self.tok("clock_time", self.clock(when))
        self.items.append(f"ALERT {name} firing for {self.tok('host', subject)} since {since} UTC "
                          f"(threshold {threshold})")
        self.fact(subject, f"{name} alert", "time", since, "signal_match")
        if kind:
            self.fact(subject, f"{name} threshold", kind, threshold, "signal_match", number)

    def json_item(self, data: dict[str, object]) -> None:
        """A JSON tool result on one line."""
        self.items.append(json.dumps(data))

    def state_cause(self, cause: Cause, when: datetime) -> None:
        """Add an item stating ``cause`` as the root cause (a log line or a JSON RCA result)."""
        self.stated = cause
        if self.rng.random() < 0.5:
            self.log(when, "INFO", "rca-bot", f"root cause: {cause.statement}")
            self.stated_source = "tool_match"
        else:
            self.json_item({"incident": self.ident("INC"), "root_cause": cause.statement,
                            "confidence": self.rng.choice(["high", "medium"])})
            self.stated_source = "specific_data"

    def text(self) -> str:
        """The evidence: one item a line."""
        return "\n".join(self.items)

    def fresh(self, make: str | list[str]) -> str:
        """The first candidate that does not occur in the evidence (``make`` is tried in order)."""
        evidence = self.text()
        for candidate in [make] if isinstance(make, str) else make:
            if candidate not in evidence:
                return candidate
        raise ValueError("no fresh candidate")

    def new_host(self, like: str | None = None) -> str:
        """A host of the family of ``like`` (default: any host of the evidence) whose name the
        evidence never mentions."""
        prefix = (like or self.rng.choice(self.hosts)).rsplit("-", 1)[0]
        numbers = list(range(2, 40))
        self.rng.shuffle(numbers)
        return self.fresh([f"{prefix}-{n}" for n in numbers])


def percent(rng: random.Random, low: float, high: float) -> float:
    """A percentage with one decimal."""
    return round(rng.uniform(low, high), 1)
