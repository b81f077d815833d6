"""What the sidecar's network side admits before it does work: its limits, the byte budget for
request bodies in flight and the ``/v1/judge`` gate.

* :class:`NetworkLimits`: the header-read timeout and minimum body rate (slow connections are
  closed and counted), the connections kept for ``/healthz``, ``/metrics`` and clients with the
  token once the ordinary ones are taken, ``/v1/judge``'s own concurrency and queue, the byte
  budget, the ``--forward`` queue's byte bound, the gRPC per-call receive time and the
  undelivered-verdict buffer.
* :class:`ByteBudget`: every HTTP request body takes its bytes from one budget as they arrive
  (and its inflated bytes as they are produced) and gives them back when the request is done; a
  request the budget cannot cover is answered 429 with ``Retry-After`` and counted, so bodies
  read, inflated and waiting for a decode thread never hold more than the budget together. A
  gRPC message takes its bytes from the same budget once it is received (``RESOURCE_EXHAUSTED``
  with ``RetryInfo`` when they do not fit): one budget for both receivers.
* :class:`JudgeGate`: at most ``judge_concurrency`` ``/v1/judge`` requests judged at once and
  ``judge_queue`` waiting; one more is answered 429 before its body is read.
"""

from __future__ import annotations

import asyncio
import math
import threading
from dataclasses import dataclass
from typing import Any

DECOMPRESSED_RATIO = 4
"""A gzip body may inflate to this many times ``max_body_bytes`` (and never past
``max_decompressed_bytes``)."""


@dataclass(frozen=True, slots=True)
class NetworkLimits:
    """The network side's limits (``gsar sidecar --help`` names the flags)."""

    header_timeout_s: float = 10.0
    """A request's line and headers must arrive within this many seconds of its first byte (of
    the connection's opening for its first request); the body gets this long as a grace too."""
    min_body_rate: int = 8 * 1024
    """Bytes a second a body must average after that grace; a slower sender is cut off."""
    health_reserve: int = 16
    """Connections accepted past ``max_connections``, served only for ``GET /healthz``,
    ``GET /metrics`` and requests with the bearer token (one request each)."""
    judge_concurrency: int = 2
    """``/v1/judge`` requests judged at once."""
    judge_queue: int = 16
    """``/v1/judge`` requests waiting; more are answered 429."""
    max_inflight_bytes: int = 256 * 1024 * 1024
    """Request bytes (as received, then as inflated) held by the HTTP and gRPC receivers at
    once (one budget: a gRPC message is charged as received and once for its decoded copy)."""
    forward_max_bytes: int = 64 * 1024 * 1024
    """Request bodies the ``--forward`` queue holds at once; past it they are dropped, counted."""
    grpc_receive_timeout_s: float = 30.0
    """A gRPC call's message must have arrived within this many seconds of the call's start."""
    verdict_buffer: int = 2_048
    """Grounding spans held for a retry while the ``--forward`` endpoint is down."""
    decode_process_bytes: int = 0
    """OTLP/JSON bodies at least this long are parsed in a decoding process of their own
    (:mod:`~gsar_otel.sidecar.intake.decode_process`), off the sidecar's interpreter lock; 0 (the
    default) parses every body in a worker thread: under the soak the process gave no gain at
    the 99th percentile of ``/healthz`` over the collector's settings alone, and its interpreter
    lies outside every byte budget (RELIABILITY.md)."""

    def __post_init__(self) -> None:
        for name in ("header_timeout_s", "grpc_receive_timeout_s"):
            value = getattr(self, name)
            if (isinstance(value, bool) or not isinstance(value, int | float)
                    or not math.isfinite(value) or value <= 0):
                raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
        for name in ("min_body_rate", "judge_concurrency", "max_inflight_bytes",
                     "forward_max_bytes", "verdict_buffer"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
        for name in ("health_reserve", "judge_queue", "decode_process_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be an integer >= 0, got {value!r}")


def network_limits(config: Any) -> NetworkLimits:
    """The :class:`NetworkLimits` of a sidecar config (its ``network`` field; defaults when the
    config has none)."""
    limits = getattr(config, "network", None)
    return limits if isinstance(limits, NetworkLimits) else NetworkLimits()


def decompressed_limit(config: Any) -> int:
    """The most a compressed request may inflate to: ``DECOMPRESSED_RATIO`` times
    ``max_body_bytes``, never more than ``max_decompressed_bytes``."""
    return int(min(config.max_decompressed_bytes, DECOMPRESSED_RATIO * config.max_body_bytes))


class ByteBudget:
    """Bytes held by requests in flight, at most ``limit`` (thread-safe: inflating runs in a
    worker thread)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.held = 0
        self.peak = 0
        self._lock = threading.Lock()

    def take(self, n: int) -> bool:
        """Take ``n`` bytes; False (nothing taken) when they do not fit."""
        with self._lock:
            if self.held + n > self.limit:
                return False
            self.held += n
            self.peak = max(self.peak, self.held)
            return True

    def give(self, n: int) -> None:
        with self._lock:
            self.held -= n

    def reservation(self) -> Reservation:
        """A per-request account that gives back everything it took in one call."""
        return Reservation(self)


class Reservation:
    """The bytes one request took from a :class:`ByteBudget`."""

    def __init__(self, budget: ByteBudget) -> None:
        self.budget, self.taken = budget, 0

    def take(self, n: int) -> bool:
        if not self.budget.take(n):
            return False
        self.taken += n
        return True

    def give(self, n: int) -> None:
        """Give back ``n`` of the bytes taken (a body replaced by its inflated form)."""
        n = min(n, self.taken)
        self.taken -= n
        self.budget.give(n)

    def release(self) -> None:
        self.give(self.taken)


class JudgeGate:
    """``/v1/judge``'s admission: ``concurrency`` at once, ``queue`` more waiting."""

    def __init__(self, concurrency: int, queue: int) -> None:
        self.capacity = concurrency + queue
        self.held = 0
        self._running = asyncio.Semaphore(concurrency)

    def admit(self) -> bool:
        """Take a place (judging or waiting); False when every place is taken."""
        if self.held >= self.capacity:
            return False
        self.held += 1
        return True

    def leave(self) -> None:
        self.held -= 1

    @property
    def running(self) -> asyncio.Semaphore:
        """Held while a request is judged."""
        return self._running
