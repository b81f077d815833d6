"""``@grounded(capture=DIR)`` / ``GSAR_CAPTURE_DIR``: each judged call written as a case-file line
(:mod:`gsar_otel.measure.captured`) to the day's file in DIR, its id the call's trace and its
``gsar.evaluate`` span. A call that was not judged (no evidence, an error) is not written.
Capturing never changes what the call returns or raises: a failure is logged (once per
directory) and counted by the writer."""

from __future__ import annotations

import logging
import os
import threading
import uuid
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gsar_otel.core.result import GSARResult
    from gsar_otel.measure.case_writer import CaseWriter

logger = logging.getLogger(__name__)
_writers: dict[str, CaseWriter] = {}
_lock = threading.Lock()


def writer_for(directory: str | os.PathLike[str]) -> CaseWriter:
    """The process's one writer for ``directory`` (threads share its lock).

    Raises:
        CaptureError: the directory cannot be used.
    """
    from gsar_otel.measure.case_writer import CaseWriter

    key = os.path.realpath(os.fspath(directory))
    with _lock:
        writer = _writers.get(key)
        if writer is None:
            writer = _writers[key] = CaseWriter(directory)
        return writer


def capture_call(directory: str | os.PathLike[str], result: GSARResult, span: Any,
                 function: str) -> None:
    """Write ``result`` as a captured case (never raises)."""
    if result.degraded_reason == "no_evidence" or not result.final_evidence:
        return
    try:
        from gsar_otel.measure.captured import case_line

        context = span.get_span_context() if span is not None else None
        if context is not None and context.is_valid:
            trace_id, run_id = f"{context.trace_id:032x}", f"{context.span_id:016x}"
        else:  # no tracing: the id is still unique
            trace_id, run_id = uuid.uuid4().hex, uuid.uuid4().hex[:16]
        line = case_line(result, trace_id=trace_id, run_id=run_id, origin="decorator",
                         agent=function)
        writer_for(directory).write(line)
    except Exception as error:
        logger.warning("gsar: capturing %s to %s failed: %s: %s", function, directory,
                       type(error).__name__, error)
