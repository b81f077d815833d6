"""A background job, and counting the ones that were dropped.

Every job submitted to the background worker ends exactly once, judged or dropped; a dropped one
is counted in ``gsar.background.dropped`` by ``gsar.function`` and ``gsar.drop.reason``.
"""

from __future__ import annotations

import contextvars
import logging
import sys
import threading
from collections import Counter
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import Any, Final

from gsar_otel import semconv as sc

logger = logging.getLogger("gsar_otel.otel.background")

Runner = Callable[[Any], Coroutine[Any, Any, None]]
"""Turns a job's payload into the coroutine that evaluates it; must not raise."""


@dataclass(frozen=True, slots=True, eq=False)
class Job:
    """One submitted evaluation (compared by identity)."""

    runner: Runner
    payload: Any
    context: contextvars.Context
    name: str


class Barrier:
    """Passes through the queue; set once every job before it has ended."""

    __slots__ = ("done",)

    def __init__(self) -> None:
        self.done = threading.Event()


STOP: Final = object()


def count_dropped(jobs: Iterable[Job], reason: str) -> int:
    """Add ``jobs`` to ``gsar.background.dropped`` by function and reason (never raises)."""
    by_name = Counter(job.name for job in jobs)
    if not by_name:
        return 0
    try:
        module = sys.modules.get("gsar_otel.otel.instruments")
        if getattr(getattr(module, "__spec__", None), "_initializing", False):
            # Another thread (or, after a fork, the parent) is importing it: waiting could hang.
            raise RuntimeError("gsar_otel.otel.instruments is being imported")
        from gsar_otel.otel.instruments import get_telemetry

        counter = get_telemetry().instruments.background_dropped
        for name, count in by_name.items():
            counter.add(count, {sc.GSAR_FUNCTION: name, sc.GSAR_DROP_REASON: reason})
    except Exception:
        logger.warning("gsar: counting %d dropped background evaluation(s) (%s) failed",
                       sum(by_name.values()), reason, exc_info=True)
    return sum(by_name.values())
