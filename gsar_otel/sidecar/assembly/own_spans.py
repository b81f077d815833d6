"""Which received spans the sidecar itself wrote, and marking the ones that only claim to be.

The sidecar's grounding spans (``gsar.evaluate``, ``gsar.judge``, ``gsar.sidecar.skipped``,
``gsar.sidecar.late_spans``) can come back to it (its exporter sends to a Collector that tees to
the sidecar). Such a span is counted ``own`` and never judged. Anyone can send a span that looks
like one (``gsar.source=sidecar``, a ``gsar.evaluate`` name, the ``gsar_otel`` scope), so the
look is not trusted: the sidecar remembers the ids of the spans it started
(:class:`WrittenSpans`, bounded, through :class:`RecordingTracer`), and a span that claims to be
its own without one of those ids is forged: counted ``forged`` (not ``own``), never judged, and
its copy passed on to ``--forward`` carries ``gsar.forged=true`` (:func:`mark_forged`), so a
reader tells it from the sidecar's verdict. A verdict written by another sidecar process (a
replica, or this one before a restart) is counted forged too.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from gsar_otel import semconv as sc
from gsar_otel.sidecar.intake.spans import SpanRecord

DEFAULT_REMEMBER = 100_000
"""Span ids remembered (the latest): a run writes one to a few spans."""


def is_own(span: SpanRecord) -> bool:
    """A span gsar-otel itself emits (never judged: no loop when our spans come back to us)."""
    return (span.scope == sc.INSTRUMENTATION_SCOPE
            or span.attributes.get(sc.GSAR_SOURCE) == sc.GSAR_SOURCE_SIDECAR
            or span.name.startswith(sc.SPAN_EVALUATE))


class WrittenSpans:
    """The (trace id, span id) of the latest ``remember`` spans the sidecar started
    (thread-safe: the judge thread writes, the event loop reads)."""

    def __init__(self, remember: int = DEFAULT_REMEMBER) -> None:
        self.remember = remember
        self._ids: OrderedDict[tuple[int, int], None] = OrderedDict()
        self._lock = threading.Lock()

    def note(self, context: trace.SpanContext) -> None:
        with self._lock:
            self._ids[context.trace_id, context.span_id] = None
            while len(self._ids) > self.remember:
                self._ids.popitem(last=False)

    def holds(self, span: SpanRecord) -> bool:
        """``span`` is one the sidecar wrote."""
        key = (int(span.trace_id, 16), int(span.span_id, 16))
        with self._lock:
            return key in self._ids


class RecordingTracer(trace.Tracer):
    """A tracer that notes the id of every span it starts in ``written``."""

    def __init__(self, inner: trace.Tracer, written: WrittenSpans) -> None:
        self.inner, self.written = inner, written

    def start_span(self, *args: Any, **kwargs: Any) -> trace.Span:
        span = self.inner.start_span(*args, **kwargs)
        self.written.note(span.get_span_context())
        return span

    @contextmanager
    def start_as_current_span(  # type: ignore[override]
            self, *args: Any, end_on_exit: bool = True, **kwargs: Any) -> Iterator[trace.Span]:
        span = self.start_span(*args, **kwargs)
        with trace.use_span(span, end_on_exit=end_on_exit) as current:
            yield current


def mark_forged(body: bytes, as_json: bool, forged: Collection[tuple[str, str]]) -> bytes | None:
    """``body`` (an OTLP traces export, protobuf or JSON) with ``gsar.forged=true`` added to
    the spans whose (trace id, span id) are in ``forged``; None when it cannot be read whole."""
    try:
        if as_json:
            payload = json.loads(body)
            for span in _json_spans(payload):
                if (str(span.get("traceId", "")).lower(),
                        str(span.get("spanId", "")).lower()) in forged:
                    span.setdefault("attributes", []).append(
                        {"key": sc.GSAR_FORGED, "value": {"boolValue": True}})
            return json.dumps(payload).encode()
        request = ExportTraceServiceRequest.FromString(body)
        for resource_spans in request.resource_spans:
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    if (span.trace_id.hex(), span.span_id.hex()) in forged:
                        span.attributes.append(KeyValue(key=sc.GSAR_FORGED,
                                                        value=AnyValue(bool_value=True)))
        marked: bytes = request.SerializeToString()
        return marked
    except (ValueError, TypeError, AttributeError, RecursionError):
        return None
    except Exception as error:  # protobuf's DecodeError
        if type(error).__name__ == "DecodeError":
            return None
        raise


def _json_spans(payload: Any) -> Iterator[dict[str, Any]]:
    for resource_spans in _items(payload, "resourceSpans", "resource_spans"):
        for scope_spans in _items(resource_spans, "scopeSpans", "scope_spans"):
            for span in _items(scope_spans, "spans"):
                if isinstance(span, dict):
                    yield span


def _items(parent: Any, *keys: str) -> Sequence[Any]:
    if not isinstance(parent, dict):
        return ()
    for key in keys:
        value = parent.get(key)
        if isinstance(value, list):
            return value
    return ()
