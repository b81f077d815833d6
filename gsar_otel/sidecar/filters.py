"""Which finished runs are judged: filters and sampling, like the online-evaluation rules of
Langfuse or Phoenix.

A run is judged when its service is among ``--service`` values (if any), its agent among
``--agent`` values (if any), and every ``--match KEY=VALUE`` holds on the run span's attributes or
else its resource (several values for one key: any of them). Sampling is deterministic on the
trace id, so replicas behind the Collector's ``loadbalancing`` exporter and a restarted sidecar
choose the same runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gsar_otel.sidecar.assembly.assembler import ReadyRun
from gsar_otel.sidecar.output.verdict_spans import agent_name

SERVICE_NAME = "service.name"


def sampled(trace_id: str, rate: float) -> bool:
    """Deterministic: the low 64 bits of the trace id (random in W3C trace ids, and what the
    OpenTelemetry ``TraceIdRatioBased`` sampler reads), as a fraction of 2**64, below ``rate``.
    A run chosen at one rate is chosen at every higher rate."""
    if rate >= 1:
        return True
    return int(trace_id[-16:], 16) < rate * 2**64


def parse_match(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` (the value may hold ``=``) -> ``(KEY, VALUE)``.

    Raises:
        ValueError: no ``=`` or an empty key.
    """
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"--match takes KEY=VALUE, got {text!r}")
    return key.strip(), value


def _text(value: Any) -> list[str]:
    """An attribute value as the strings a ``--match`` value is compared with."""
    if isinstance(value, bool):
        return ["true" if value else "false"]
    if isinstance(value, list | tuple):
        return [t for item in value for t in _text(item)]
    return [str(value)]


@dataclass(frozen=True, slots=True)
class RunFilter:
    """The rules; empty ones let every run through."""

    services: tuple[str, ...] = ()
    agents: tuple[str, ...] = ()
    matches: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        for key, value in self.matches:
            if not isinstance(key, str) or not key or not isinstance(value, str):
                raise ValueError(f"a match is a (key, value) pair of strings, got {(key, value)!r}")

    def wanted(self, run: ReadyRun) -> bool:
        span = run.run_span
        attributes: Mapping[str, Any] = span.attributes if span is not None else {}
        resource: Mapping[str, Any] = span.resource if span is not None else {}
        if self.services and resource.get(SERVICE_NAME) not in self.services:
            return False
        if self.agents and agent_name(run) not in self.agents:
            return False
        for key, values in _grouped(self.matches).items():
            value = attributes.get(key, resource.get(key))
            if value is None or not values.intersection(_text(value)):
                return False
        return True


def _grouped(matches: Iterable[tuple[str, str]]) -> dict[str, set[str]]:
    grouped: dict[str, set[str]] = {}
    for key, value in matches:
        grouped.setdefault(key, set()).add(value)
    return grouped
