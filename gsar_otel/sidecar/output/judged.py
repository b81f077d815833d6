"""What the sidecar does with a judged run besides its span: ``--log-verdicts`` prints one line
per judged run on stderr, and ``--capture-cases DIR`` writes the run as a case-file line
(:mod:`gsar_otel.measure.captured`) for the share ``--capture-rate`` picks (on the trace id, as
``--sample-rate`` picks runs to judge; only judged runs, so the filters apply alike).

A log line holds names, numbers and ids, never answer or evidence text::

    gsar sidecar: judged trace=4bf92f35... run=00f067aa0ba902b7 agent=incident-bot \
decision=regenerate S=0.87 claims G4 U1 X0 K0 evidence=3 judge=staged

Neither ever raises into judging: a failed write is logged once and counted by the writer.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from gsar_otel.plugins import mask_name
from gsar_otel.sidecar.assembly.ready import ReadyRun
from gsar_otel.sidecar.conventions.extract import ExtractedRun
from gsar_otel.sidecar.output.verdict_spans import agent_name, incompleteness

if TYPE_CHECKING:
    from gsar_otel.core.result import GSARResult
    from gsar_otel.measure.case_writer import CaseWriter

logger = logging.getLogger(__name__)


def verdict_line(run: ReadyRun, extracted: ExtractedRun, result: GSARResult) -> str:
    """The one log line of a judged run."""
    counts = result.final_partition.counts()
    run_id = run.run_span.span_id if run.run_span is not None else "-"
    parts = [f"gsar sidecar: judged trace={run.trace_id} run={run_id}",
             f"agent={mask_name(agent_name(run)) or '-'}",
             f"decision={result.final_decision}", f"S={result.final_score:.2f}",
             "claims G{} U{} X{} K{}".format(*(counts.get(bucket, 0) for bucket in (
                 "grounded", "ungrounded", "contradicted", "complementary"))),
             f"evidence={len(extracted.evidence)}", f"judge={mask_name(result.judge_name)}"]
    if reason := incompleteness(run, extracted):
        parts.append(f"incomplete={reason}")
    if result.degraded_reason:
        parts.append(f"degraded={result.degraded_reason}")
    return " ".join(parts)


class JudgedRuns:
    """The sidecar's per-judged-run outputs: the verdict log line and the case capture."""

    def __init__(self, *, log_verdicts: bool = False, capture_dir: str | None = None,
                 capture_rate: float = 1.0, sampled: Callable[[str, float], bool] | None = None,
                 out: TextIO | None = None) -> None:
        """Raises CaptureError when ``capture_dir`` cannot be used."""
        self.log_verdicts = log_verdicts
        self.capture_rate = capture_rate
        self._sampled = sampled
        self._out = out
        self._lock = threading.Lock()
        self.writer: CaseWriter | None = None
        if capture_dir:
            from gsar_otel.measure.case_writer import CaseWriter

            self.writer = CaseWriter(capture_dir)

    @property
    def active(self) -> bool:
        return self.log_verdicts or self.writer is not None

    def judged(self, run: ReadyRun, extracted: ExtractedRun, result: GSARResult) -> None:
        """Log and capture one judged run (never raises)."""
        try:
            if self.log_verdicts:
                line = verdict_line(run, extracted, result)
                with self._lock:
                    out = self._out or sys.stderr
                    out.write(line + "\n")
                    out.flush()
            if self.writer is not None and self._wanted(run.trace_id):
                self._capture(run, result)
        except Exception as error:  # a log or capture failure never fails the run
            logger.warning("gsar sidecar: logging or capturing trace %s failed: %s: %s",
                           run.trace_id, type(error).__name__, error)

    def _wanted(self, trace_id: str) -> bool:
        if self.capture_rate >= 1:
            return True
        return self._sampled is not None and self._sampled(trace_id, self.capture_rate)

    def _capture(self, run: ReadyRun, result: GSARResult) -> None:
        from gsar_otel.measure.captured import case_line

        if result.degraded_reason == "no_evidence" or not result.final_evidence:
            return
        assert self.writer is not None
        run_id = run.run_span.span_id if run.run_span is not None else run.trace_id[-16:]
        self.writer.write(case_line(result, trace_id=run.trace_id, run_id=run_id,
                                    origin="sidecar", agent=agent_name(run)))
