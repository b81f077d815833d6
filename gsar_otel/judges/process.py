"""An offline judge in worker processes: the same judgement, off the caller's interpreter lock.

The offline judges (``records``, ``staged``) are CPU-bound Python: in one process a
busy judge holds the interpreter lock that the sidecar's receivers, assembler and ``/healthz``
also need, and judges one run at a time however many cores the machine has.
:class:`ProcessJudge` runs the named judge in ``processes`` worker processes (``spawn``: no copy
of the caller's threads or memory), each making its judge once; a call sends the answer and the
evidence (pickled: strings and the evidence items with their ids) and gets the
:class:`~gsar_otel.core.model.JudgeOutput` back, identical to the judge's in process (the judges
are deterministic). The pool starts at the first call, never before.

A worker that cannot start or dies (``BrokenProcessPool``, an ``OSError``) is not a verdict: the
call is judged in process by the same judge, logged and counted (:attr:`fallbacks`), and the
pool is started again for the next call. An error the judge itself raises comes back as that
error. ``close`` stops the workers (a judgement in progress is given up).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import JudgeOutput
from gsar_otel.runtime.pool import ProcessPool

logger = logging.getLogger(__name__)

OFFLINE: Final = frozenset({"records", "staged"})
"""The judges that may run in worker processes: deterministic, no model, no credentials."""
JUDGE_PROCESS_COUNT: Final = "judge_process"
"""The ``note`` name of a call judged in process because a worker failed (the sidecar serves it
as ``gsar_sidecar_judge_process_total{gsar_sidecar_reason="process_failed"}``)."""
PROCESS_FAILED: Final = "process_failed"
_judges: dict[str, Any] = {}
"""A worker's judges, made at its first call (one per name)."""


def _judge_in_worker(name: str, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
    judge: Any = _judges.get(name)
    if judge is None:
        from gsar_otel.judges.factory import make_judge

        judge = _judges[name] = make_judge(name)
    return judge.judge_now(synthesis=synthesis, evidence=evidence)  # type: ignore[no-any-return]


class ProcessJudge:
    """The offline judge ``name`` run in ``processes`` worker processes. Implements the Judge
    protocol with the named judge's attributes (``name``, ``model``, ``deterministic``,
    ``features_version``, ``checks_values``).

    Raises:
        ValueError: ``name`` is no offline judge, or ``processes`` is below 1.
    """

    def __init__(self, name: str, processes: int, *, context: str = "spawn",
                 note: Callable[[str, str], None] | None = None) -> None:
        if name not in OFFLINE:
            raise ValueError(f"only an offline judge ({', '.join(sorted(OFFLINE))}) "
                                     f"runs in worker processes, not {name!r}")
        if processes < 1:
            raise ValueError(f"processes must be at least 1, got {processes}")
        from gsar_otel.judges.factory import make_judge

        self._inner = make_judge(name)
        self._name = name
        self.processes = processes
        self.name: str = getattr(self._inner, "name", name)
        self.model = getattr(self._inner, "model", None)
        self.deterministic = getattr(self._inner, "deterministic", True)
        self.features_version = getattr(self._inner, "features_version", None)
        self.checks_values = getattr(self._inner, "checks_values", False)
        self.fallbacks = 0
        """Calls judged in process because a worker could not start or died (each also given
        to ``note`` as ``(JUDGE_PROCESS_COUNT, PROCESS_FAILED)``)."""
        self._note = note or (lambda name, reason: None)
        self._pool = ProcessPool(processes, context)

    @property
    def started(self) -> bool:
        """Whether the worker pool exists (it is made at the first call)."""
        return self._pool.started

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        """The named judge's output for ``synthesis`` against ``evidence``, from a worker."""
        if self._pool.closed:
            return await self._inner.judge(synthesis=synthesis, evidence=evidence)
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._pool.executor(), _judge_in_worker, self._name,
                                              synthesis, evidence)
        except (BrokenProcessPool, OSError) as error:
            logger.warning("gsar: a %s judging process failed (%s: %s); judging in process",
                           self._name, type(error).__name__, error)
            self.fallbacks += 1
            self._note(JUDGE_PROCESS_COUNT, PROCESS_FAILED)
            self._pool.restart()
            return await self._inner.judge(synthesis=synthesis, evidence=evidence)

    def close(self) -> None:
        """Stop the workers; later calls are judged in process."""
        self._pool.close()

