"""The telemetry names of ``gsar sidecar``: its spans, attributes, metrics and settings.

Part of the contract :mod:`gsar_otel.semconv` states (and re-exports: use ``semconv.NAME``); kept
apart because they name one component's own telemetry.
"""

from __future__ import annotations

from typing import Final

GSAR_SOURCE: Final = "gsar.source"
"""Where an evaluation ran: ``sidecar`` on spans the sidecar writes into an agent's trace."""
GSAR_SOURCE_SIDECAR: Final = "sidecar"
GSAR_FORGED: Final = "gsar.forged"
"""``true`` on a received span that claims to be the sidecar's own (``gsar.source=sidecar``, a
``gsar.evaluate`` name or the ``gsar_otel`` scope) but that it did not write, on the copy it
passes on to ``--forward``."""
MODE_SIDECAR: Final = "sidecar"
GSAR_SIDECAR_CONVENTION: Final = "gsar.sidecar.convention"
"""The convention the run was read under: genai, openinference, openllmetry, vercel, root or a
plugin's name."""
GSAR_SIDECAR_RUN_SPAN_NAME: Final = "gsar.sidecar.run.span_name"
GSAR_SIDECAR_RUN_SPANS: Final = "gsar.sidecar.run.spans"
"""Spans of the run the sidecar held when it judged."""
GSAR_SIDECAR_RUN_INCOMPLETE: Final = "gsar.sidecar.run.incomplete"
"""True when the run was judged without the evidence being known complete."""
GSAR_SIDECAR_RUN_INCOMPLETE_REASON: Final = "gsar.sidecar.run.incomplete_reason"
"""Why: ``hard_cap`` (no settled run span in time), ``parent_missing`` (a span above the run
span never arrived), ``no_run_span``, ``spans_dropped``, ``shutdown``, ``unverified_history``
(tool results found only in message histories with no call in the trace were left out, e.g.
each model call its own trace), ``no_evidence`` (no tool result in the run, e.g. another
instance got them, or the instrumentation records no tool content)."""
GSAR_SIDECAR_RUN_INCOMPLETE_HINT: Final = "gsar.sidecar.run.incomplete_hint"
"""One sentence on what to change for ``unverified_history`` and ``no_evidence``."""
GSAR_SIDECAR_ANSWER_SOURCE: Final = "gsar.sidecar.answer_source"
"""Where the judged answer was read: ``run_span``, ``agent_span`` or ``model_output`` (the
run's last model output, when the run span's output is not text), with ``:{field}`` when it
came out of a framework's envelope (``run_span:raw``, ``agent_span:outputs.messages``)."""
GSAR_SIDECAR_EVIDENCE_SPANS: Final = "gsar.sidecar.evidence.spans"
"""Distinct spans the evidence came from."""
GSAR_SIDECAR_EVIDENCE_SOURCES: Final = "gsar.sidecar.evidence.sources"
"""``{tool name}@{span id}`` of each evidence item in order: ``E1`` is the first, so a claim's
refs lead back to the tool span that grounds it."""
GSAR_SIDECAR_OUTCOME: Final = "gsar.sidecar.outcome"
"""On ``gsar.sidecar.runs``: judged, skipped, dropped."""
GSAR_SIDECAR_REASON: Final = "gsar.sidecar.reason"
"""On ``gsar.sidecar.runs`` and ``gsar.sidecar.spans``: why a run or span was not judged."""
METRIC_SIDECAR_SPANS: Final = "gsar.sidecar.spans"
"""Spans and log records received, by ``gsar.sidecar.reason`` (accepted, late, own, rejected,
forward_failed ...); a request refused whole counts once under its ``rejected_*`` reason."""
SPAN_SIDECAR_LATE: Final = "gsar.sidecar.late_spans"
"""A flag in an agent's trace: spans or log records of the run arrived after it was judged (the
verdict was made without them); child of and linked to the run span."""
GSAR_SIDECAR_LATE_ITEMS: Final = "gsar.sidecar.late.items"
"""On ``gsar.sidecar.late_spans``: spans and log records that arrived late in its window."""
GSAR_SIDECAR_LATE_EVIDENCE: Final = "gsar.sidecar.late.evidence"
"""On ``gsar.sidecar.late_spans``: tool results (evidence items) among them."""
GSAR_SIDECAR_LATE_EVIDENCE_SOURCES: Final = "gsar.sidecar.late.evidence_sources"
"""On ``gsar.sidecar.late_spans``: ``{tool name}@{span id}`` of each late evidence item."""
SPAN_SIDECAR_SKIPPED: Final = "gsar.sidecar.skipped"
"""A mark in an agent's trace: the run was not judged (child of and linked to the run span),
with the reason and what to turn on so that it can be."""
GSAR_SIDECAR_SKIPPED_REASON: Final = "gsar.sidecar.skipped.reason"
"""On ``gsar.sidecar.skipped``: ``no_answer`` (no final answer found in the run)."""
GSAR_SIDECAR_SKIPPED_HINT: Final = "gsar.sidecar.skipped.hint"
"""On ``gsar.sidecar.skipped``: one sentence on what the instrumentation must record."""
GSAR_SIDECAR_EVIDENCE_ECHOES: Final = "gsar.sidecar.evidence.echoes"
"""Tool results left out of the evidence because they are the run's own answer text (a
``final_answer`` tool, a tool echoing the model's output)."""
GSAR_SIDECAR_EVIDENCE_UNVERIFIED: Final = "gsar.sidecar.evidence.unverified"
"""Tool results found only in a message history, with no tool span or model tool call in the
trace (left out unless the sidecar is told to include them; marked ``#unverified`` then)."""
GSAR_SIDECAR_EVIDENCE_CONTROLS: Final = "gsar.sidecar.evidence.controls"
"""Tool calls left out of the evidence as the framework's control flow (a ``finish`` tool
answering a fixed acknowledgement, a ``final_answer`` tool whose input is the answer)."""
GSAR_SIDECAR_EVIDENCE_CONTROL_SOURCES: Final = "gsar.sidecar.evidence.control_sources"
"""``{tool name}@{span id}`` of each tool call left out as control flow."""
GSAR_SIDECAR_EVIDENCE_RETRIES: Final = "gsar.sidecar.evidence.retries"
"""Later results for an already answered tool-call id, kept and marked ``#retry``."""
GSAR_SIDECAR_EVIDENCE_CUT_SOURCES: Final = "gsar.sidecar.evidence.cut_sources"
"""``{tool name}@{span id}`` of the results past the evidence item cap (not judged)."""
METRIC_SIDECAR_RUNS: Final = "gsar.sidecar.runs"
METRIC_SIDECAR_QUEUE_DEPTH: Final = "gsar.sidecar.queue.depth"
METRIC_SIDECAR_LAG: Final = "gsar.sidecar.lag"
"""Seconds from a run span's end to its grounding span's end."""
METRIC_SIDECAR_HELD: Final = "gsar.sidecar.held"
"""Bytes the sidecar holds now (buffered spans and runs queued for judging, estimated after
decoding), the figure ``--max-held-bytes`` bounds."""
UNIT_BYTES: Final = "By"
UNIT_SPANS: Final = "{span}"
UNIT_RUNS: Final = "{run}"
ENV_SIDECAR_TOKEN: Final = "GSAR_SIDECAR_TOKEN"
"""Bearer token the sidecar requires on its POST endpoints and gRPC calls (unset: none)."""
ENV_SIDECAR_HOST: Final = "GSAR_SIDECAR_HOST"
ENV_SIDECAR_HTTP_PORT: Final = "GSAR_SIDECAR_HTTP_PORT"
ENV_SIDECAR_GRPC_PORT: Final = "GSAR_SIDECAR_GRPC_PORT"
ENV_SIDECAR_FORWARD: Final = "GSAR_SIDECAR_FORWARD"
ENV_SIDECAR_DECISION_WAIT: Final = "GSAR_SIDECAR_DECISION_WAIT"
ENV_SIDECAR_MAX_TRACE_AGE: Final = "GSAR_SIDECAR_MAX_TRACE_AGE"
ENV_SIDECAR_MAX_TRACES: Final = "GSAR_SIDECAR_MAX_TRACES"
ENV_SIDECAR_MAX_SPANS_PER_TRACE: Final = "GSAR_SIDECAR_MAX_SPANS_PER_TRACE"
ENV_SIDECAR_QUEUE_SIZE: Final = "GSAR_SIDECAR_QUEUE_SIZE"
ENV_SIDECAR_CONCURRENCY: Final = "GSAR_SIDECAR_CONCURRENCY"
ENV_SIDECAR_JUDGE_PROCESSES: Final = "GSAR_SIDECAR_JUDGE_PROCESSES"
ENV_SIDECAR_MALLOC_ARENAS: Final = "GSAR_SIDECAR_MALLOC_ARENAS"
ENV_SIDECAR_MAX_BODY_BYTES: Final = "GSAR_SIDECAR_MAX_BODY_BYTES"
ENV_SIDECAR_MAX_GRPC_INFLIGHT: Final = "GSAR_SIDECAR_MAX_GRPC_INFLIGHT"
ENV_SIDECAR_HEADER_TIMEOUT: Final = "GSAR_SIDECAR_HEADER_TIMEOUT"
ENV_SIDECAR_MIN_BODY_RATE: Final = "GSAR_SIDECAR_MIN_BODY_RATE"
ENV_SIDECAR_HEALTH_RESERVE: Final = "GSAR_SIDECAR_HEALTH_RESERVE"
ENV_SIDECAR_JUDGE_CONCURRENCY: Final = "GSAR_SIDECAR_JUDGE_CONCURRENCY"
ENV_SIDECAR_JUDGE_QUEUE: Final = "GSAR_SIDECAR_JUDGE_QUEUE"
ENV_SIDECAR_MAX_INFLIGHT_BYTES: Final = "GSAR_SIDECAR_MAX_INFLIGHT_BYTES"
ENV_SIDECAR_FORWARD_MAX_BYTES: Final = "GSAR_SIDECAR_FORWARD_MAX_BYTES"
ENV_SIDECAR_GRPC_RECEIVE_TIMEOUT: Final = "GSAR_SIDECAR_GRPC_RECEIVE_TIMEOUT"
ENV_SIDECAR_VERDICT_BUFFER: Final = "GSAR_SIDECAR_VERDICT_BUFFER"
ENV_SIDECAR_DECODE_PROCESS_BYTES: Final = "GSAR_SIDECAR_DECODE_PROCESS_BYTES"
ENV_SIDECAR_SHUTDOWN_GRACE: Final = "GSAR_SIDECAR_SHUTDOWN_GRACE"
ENV_SIDECAR_MAX_HELD_BYTES: Final = "GSAR_SIDECAR_MAX_HELD_BYTES"
ENV_SIDECAR_INCLUDE_UNVERIFIED: Final = "GSAR_SIDECAR_INCLUDE_UNVERIFIED"
ENV_SIDECAR_LOG_VERDICTS: Final = "GSAR_SIDECAR_LOG_VERDICTS"
ENV_SIDECAR_CAPTURE_CASES: Final = "GSAR_SIDECAR_CAPTURE_CASES"
ENV_SIDECAR_CAPTURE_RATE: Final = "GSAR_SIDECAR_CAPTURE_RATE"
ENV_SIDECAR_MAX_JUDGE_PAIRS: Final = "GSAR_SIDECAR_MAX_JUDGE_PAIRS"
ENV_SIDECAR_MODEL_TOKEN_BUDGET: Final = "GSAR_SIDECAR_MODEL_TOKEN_BUDGET"
"""``gsar sidecar``'s own settings, one per flag (``--http-port`` is ``GSAR_SIDECAR_HTTP_PORT``);
the same names without the prefix, lower case, in the settings file's ``sidecar`` table; a flag
wins over its variable, which wins over the file."""
OPENINFERENCE_EVALUATION_PREFIX: Final = "evaluations.0.evaluation."
"""OpenInference evaluation carrier attributes (``spec/annotations.md``) on the sidecar's span:
``name``, ``score``, ``label``, ``annotator_kind`` (``CODE`` or ``LLM``)."""
