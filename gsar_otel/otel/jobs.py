"""Counting and reporting the background jobs that end without a verdict.

Every job submitted to the background worker (:class:`~gsar_otel.runtime.worker.JobWorker`)
ends exactly once, judged or dropped; a dropped one is counted in ``gsar.background.dropped`` by
``gsar.function`` and ``gsar.drop.reason``, and one that failed or was cancelled is logged.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections import Counter
from collections.abc import Iterable
from typing import Any

from gsar_otel import semconv as sc
from gsar_otel.errors import EscapedBaseException as EscapedBaseException
from gsar_otel.runtime.guards import failure_name
from gsar_otel.runtime.worker import Job

logger = logging.getLogger("gsar_otel.otel.background")


def report_ended(job: Job, error: BaseException | None, *, loud: bool = True) -> None:
    """Log a job that ended without a verdict: failed with ``error`` (WARNING when ``loud``,
    else DEBUG), or cancelled (``error`` None) by something other than the worker's stop."""
    if error is None:
        logger.warning("gsar: the background evaluation of %s was cancelled; counted in %s "
                       "(%s=%s)", job.name, sc.METRIC_BACKGROUND_DROPPED, sc.GSAR_DROP_REASON,
                       sc.DROP_REASON_CANCELLED)
        return
    name = failure_name(error)
    (logger.warning if loud else logger.debug)(
        "gsar: the background evaluation of %s failed (%s); counted in %s (%s=%s)", job.name,
        name, sc.METRIC_BACKGROUND_DROPPED, sc.GSAR_DROP_REASON, sc.DROP_REASON_ERROR,
        exc_info=error)


_pending: Counter[tuple[str, str]] = Counter()
"""Drops that could not be counted yet (the instruments module was being imported), by
(function, reason): added to the counter by the next count that can be made."""
_pending_lock = threading.Lock()


def _instruments_ready() -> Any:
    """The instruments module when it is fully imported, else None (never waits on an import:
    another thread, or after a fork the parent, may hold its lock)."""
    module = sys.modules.get("gsar_otel.otel.instruments")
    if module is None or getattr(getattr(module, "__spec__", None), "_initializing", False):
        return None
    return module


def count_dropped(jobs: Iterable[Job], reason: str) -> int:
    """Add ``jobs`` to ``gsar.background.dropped`` by function and reason (never raises).

    While the instruments module is being imported (by another thread, at start-up) the counts
    are held and added by the next call that finds it imported, or by :func:`settle_pending`.
    """
    by_name = Counter(job.name for job in jobs)
    if not by_name:
        return 0
    with _pending_lock:
        for name, count in by_name.items():
            _pending[name, reason] += count
    settle_pending()
    return sum(by_name.values())


def settle_pending(*, wait: bool = False) -> int:
    """Add the held drop counts to ``gsar.background.dropped`` if the instruments can be had.

    Args:
        wait: import the instruments module if nobody has (at a flush or at exit); otherwise
            counts wait while it is absent or being imported.

    Returns:
        The drops still held (0 when everything was counted).
    """
    with _pending_lock:
        if not _pending:
            return 0
    module = _instruments_ready()
    if module is None and wait and "gsar_otel.otel.instruments" not in sys.modules:
        try:
            import gsar_otel.otel.instruments as module
        except Exception:
            module = None
    if module is None:
        with _pending_lock:
            return sum(_pending.values())
    with _pending_lock:
        held = dict(_pending)
        _pending.clear()
    try:
        counter = module.get_telemetry().instruments.background_dropped
        for (name, reason), count in held.items():
            counter.add(count, {sc.GSAR_FUNCTION: name, sc.GSAR_DROP_REASON: reason})
    except Exception:
        logger.warning("gsar: counting %d dropped background evaluation(s) failed",
                       sum(held.values()), exc_info=True)
    return 0


def forget_pending() -> None:
    """In a forked child: the held counts are the parent's to add (and its lock may be held)."""
    global _pending_lock
    _pending_lock = threading.Lock()
    _pending.clear()


def held_drops() -> int:
    """Drops waiting to be counted (see :func:`count_dropped`)."""
    with _pending_lock:
        return sum(_pending.values())
