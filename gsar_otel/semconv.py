"""Every telemetry name gsar-otel emits: spans, attributes, events, metrics and settings.

These strings are a public contract (dashboards and alerts depend on them). Names of the
OpenTelemetry GenAI semantic conventions are defined here as plain strings on purpose: the
``_incubating`` constants in opentelemetry-semantic-conventions are deprecated.
"""

from __future__ import annotations

from typing import Final

# --- spans ----------------------------------------------------------------------------------
SPAN_EVALUATE: Final = "gsar.evaluate"
"""Name prefix of the evaluation span; the full name is ``gsar.evaluate {function}``."""
SPAN_JUDGE: Final = "gsar.judge"
"""One child span per judge round."""

# --- evaluation span attributes ---------------------------------------------------------------
GSAR_SCORE: Final = "gsar.score"
GSAR_DECISION: Final = "gsar.decision"
GSAR_DEGRADED: Final = "gsar.degraded"
GSAR_ROUNDS: Final = "gsar.rounds"
GSAR_REPLANS: Final = "gsar.replans"
GSAR_REGENERATIONS: Final = "gsar.regenerations"
GSAR_CLAIMS_TOTAL: Final = "gsar.claims.total"
GSAR_CLAIMS_GROUNDED: Final = "gsar.claims.grounded"
GSAR_CLAIMS_UNGROUNDED: Final = "gsar.claims.ungrounded"
GSAR_CLAIMS_CONTRADICTED: Final = "gsar.claims.contradicted"
GSAR_CLAIMS_COMPLEMENTARY: Final = "gsar.claims.complementary"
GSAR_THRESHOLDS_PROCEED: Final = "gsar.thresholds.proceed"
GSAR_THRESHOLDS_REGENERATE: Final = "gsar.thresholds.regenerate"
GSAR_CONTRADICTION_PENALTY: Final = "gsar.contradiction_penalty"
GSAR_JUDGE_NAME: Final = "gsar.judge.name"
GSAR_JUDGE_MODEL: Final = "gsar.judge.model"
GSAR_FUNCTION: Final = "gsar.function"
GSAR_EVIDENCE_COUNT: Final = "gsar.evidence.count"
GSAR_ADJUSTMENTS: Final = "gsar.adjustments"

CLAIM_COUNT_ATTRIBUTES: Final = {
    "grounded": GSAR_CLAIMS_GROUNDED,
    "ungrounded": GSAR_CLAIMS_UNGROUNDED,
    "contradicted": GSAR_CLAIMS_CONTRADICTED,
    "complementary": GSAR_CLAIMS_COMPLEMENTARY,
}

# Extensions beyond the contract (additive; never renamed without a note).
GSAR_DEGRADED_REASON: Final = "gsar.degraded.reason"
GSAR_FINAL_ITERATION: Final = "gsar.final_iteration"
GSAR_EVIDENCE_TRUNCATED: Final = "gsar.evidence.truncated"
GSAR_MODE: Final = "gsar.mode"
GSAR_SYNTHESIS: Final = "gsar.synthesis"
"""The judged answer text; only with content capture on."""
GSAR_CONCLUSION_POLICY: Final = "gsar.conclusion.policy"
"""``cap`` or ``score``: whether an over-reaching conclusion caps the decision."""
GSAR_CONCLUSION_CAPPED: Final = "gsar.conclusion.capped"
"""True when S alone would proceed but an ungrounded or contradicted conclusion capped the
decision at regenerate."""
GSAR_CONTRADICTION_POLICY: Final = "gsar.contradiction.policy"
"""``cap`` or ``score``: whether a contradicted or unsupported tool-backed claim caps the
decision."""
GSAR_CONTRADICTION_CAPPED: Final = "gsar.contradiction.capped"
"""True when S alone would proceed but a contradicted claim of a tool-backed type
(``tool_match``, ``specific_data``, ``signal_match``) capped the decision at regenerate. Both
``gsar.conclusion.capped`` and this are true when both rules apply."""

GSAR_JUDGE_ESCALATED_CLAIMS: Final = "gsar.judge.escalated_claims"
"""On the evaluate span of a tiered judge: claims sent to the model tier (0: settled offline)."""
GSAR_JUDGE_SETTLED_CLAIMS: Final = "gsar.judge.settled_claims"
"""On the evaluate span of a tiered judge: claims the offline tier settled."""
GSAR_JUDGE_ESCALATION_CAPPED: Final = "gsar.judge.escalation_capped"
"""On the evaluate span of a tiered judge: claims left unverified past ``max_escalated_claims``."""
GSAR_JUDGE_MODEL_TIER_SKIPPED: Final = "gsar.judge.model_tier.skipped"
"""On the evaluate span of a tiered judge that made no model call: why (``no_api_key``: no model
tier, the offline verdict stands; ``all_settled``: every claim settled offline;
``budget_exhausted``: the sidecar's ``--model-token-budget`` is spent for now)."""
GSAR_JUDGE_BUDGET_EXHAUSTED: Final = "gsar.judge.budget_exhausted"
"""On the sidecar's evaluate span: true when its ``--model-token-budget`` was spent, so the run
was judged offline only (a tiered judge without its model tier, another model judge replaced by
the ``staged`` judge)."""
GSAR_CLAIMS_DISPUTED: Final = "gsar.claims.disputed"
"""On the evaluate span: grounded claims the offline engine disputes."""
GSAR_DISPUTE_POLICY: Final = "gsar.dispute.policy"
"""``flag`` or ``cap``: whether a disputed claim caps the decision."""
GSAR_DISPUTE_CAPPED: Final = "gsar.dispute.capped"
"""True when S alone would proceed but a disputed claim capped the decision at regenerate."""

# --- judge span attributes --------------------------------------------------------------------
GSAR_JUDGE_ROUND: Final = "gsar.judge.round"
GSAR_JUDGE_ACTION: Final = "gsar.judge.action"
"""What led to this round: initial, regenerate or replan."""
GSAR_JUDGE_ERROR_TYPE: Final = "gsar.judge.error_type"
GSAR_JUDGE_ABSTAINED: Final = "gsar.judge.abstained"
GSAR_JUDGE_USAGE_INPUT_TOKENS: Final = "gen_ai.usage.input_tokens"
GSAR_JUDGE_USAGE_OUTPUT_TOKENS: Final = "gen_ai.usage.output_tokens"
GSAR_JUDGE_USAGE_CACHE_READ_TOKENS: Final = "gsar.judge.usage.cache_read_input_tokens"
GSAR_JUDGE_USAGE_CACHE_CREATION_TOKENS: Final = "gsar.judge.usage.cache_creation_input_tokens"

# --- per-claim event ----------------------------------------------------------------------------
EVENT_CLAIM: Final = "gsar.claim"
GSAR_CLAIM_INDEX: Final = "gsar.claim.index"
GSAR_CLAIM_VERDICT: Final = "gsar.claim.verdict"
GSAR_CLAIM_EVIDENCE_TYPE: Final = "gsar.claim.evidence_type"
GSAR_CLAIM_WEIGHT: Final = "gsar.claim.weight"
GSAR_CLAIM_EVIDENCE_REFS: Final = "gsar.claim.evidence_refs"
GSAR_CLAIM_ADJUSTED: Final = "gsar.claim.adjusted"
GSAR_CLAIM_TEXT: Final = "gsar.claim.text"
"""Only with content capture on; the redaction hook applies."""
GSAR_CLAIM_ADJUSTMENT: Final = "gsar.claim.adjustment"
GSAR_CLAIM_CONCLUSION: Final = "gsar.claim.conclusion"
"""True on a claim that states a cause or a conclusion (set only then)."""
GSAR_CLAIM_VERIFIABLE: Final = "gsar.claim.verifiable"
"""False on a claim its judge could not check against any record (set only then): it is left
out of S and counted in ``gsar.unverified_share``."""
GSAR_CLAIM_JUDGED_BY: Final = "gsar.claim.judged_by"
"""Which tier judged the claim: ``offline`` (the records engine) or ``model`` (a model judge)."""
JUDGED_BY_OFFLINE: Final = "offline"
JUDGED_BY_MODEL: Final = "model"
GSAR_CLAIM_DISPUTED: Final = "gsar.claim.disputed"
"""True on a claim a model judge grounded and the offline engine contradicts (its record holds
another value for the attribute the claim names); set only then."""
GSAR_CLAIM_DISPUTE_REASON: Final = "gsar.claim.dispute_reason"
"""The offline engine's reason for a dispute (``says 95; E2 has cpu_pct=40``); it quotes values,
so only with content capture on, masked like the claim's text."""
GSAR_UNVERIFIED_SHARE: Final = "gsar.unverified_share"
"""On the evaluate span: the share of the answer's claims its judge could not check."""
GSAR_CLAIM_START: Final = "gsar.claim.start"
"""Character offset in the judged answer where the claim starts (set when the claim is a
passage of the answer; a paraphrasing judge's claim has none)."""
GSAR_CLAIM_END: Final = "gsar.claim.end"
"""Character offset just past the claim's end in the judged answer (with ``gsar.claim.start``)."""
GSAR_CLAIM_HASH: Final = "gsar.claim.hash"
"""First 16 hex digits of the SHA-256 of the claim's words (whitespace collapsed, case folded):
the same claim has the same hash across runs, without its text."""
GSAR_CLAIM_EVIDENCE_SOURCES: Final = "gsar.claim.evidence_sources"
"""``<tool>@<evidence id>`` of each cited evidence item (string array; the tool is the item's
``source``, ``unknown`` without one), as ``gsar.sidecar.evidence.sources`` gives
``<tool>@<span id>``."""
"""Extension: the integrity guard's adjustment kinds for this claim (string array)."""

# --- GenAI evaluation event (OpenTelemetry GenAI semantic conventions) -------------------------
EVENT_GEN_AI_EVALUATION_RESULT: Final = "gen_ai.evaluation.result"
GEN_AI_EVALUATION_NAME: Final = "gen_ai.evaluation.name"
GEN_AI_EVALUATION_SCORE_VALUE: Final = "gen_ai.evaluation.score.value"
GEN_AI_EVALUATION_SCORE_LABEL: Final = "gen_ai.evaluation.score.label"
GEN_AI_EVALUATION_EXPLANATION: Final = "gen_ai.evaluation.explanation"
GEN_AI_EVALUATION_NAME_VALUE: Final = "gsar"

# --- OpenInference (Arize Phoenix) -----------------------------------------------------------
OPENINFERENCE_SPAN_KIND: Final = "openinference.span.kind"
OPENINFERENCE_SPAN_KIND_EVALUATOR: Final = "EVALUATOR"

# --- general ----------------------------------------------------------------------------------
ERROR_TYPE: Final = "error.type"

# --- metrics ----------------------------------------------------------------------------------
METRIC_SCORE: Final = "gsar.score"
METRIC_DECISIONS: Final = "gsar.decisions"
METRIC_CLAIMS: Final = "gsar.claims"
METRIC_JUDGE_DURATION: Final = "gsar.judge.duration"
METRIC_EVALUATIONS_DEGRADED: Final = "gsar.evaluations.degraded"
METRIC_JUDGE_ERRORS: Final = "gsar.judge.errors"
METRIC_BACKGROUND_DROPPED: Final = "gsar.background.dropped"
GSAR_DROP_REASON: Final = "gsar.drop.reason"
"""On ``gsar.background.dropped``: why an evaluation was not judged (``DROP_REASON_*``)."""
DROP_REASON_QUEUE_FULL: Final = "queue_full"
"""The background queue held ``GSAR_BACKGROUND_QUEUE_SIZE`` waiting evaluations already."""
DROP_REASON_EXIT_TIMEOUT: Final = "exit_timeout"
"""Still waiting or running when the exit budget (``GSAR_EXIT_FLUSH_S``) ran out."""
DROP_REASON_STOPPED: Final = "stopped"
"""Submitted after the worker stopped (after the exit flush), or its threads could not start."""
DROP_REASON_ERROR: Final = "error"
"""The evaluation failed instead of producing a verdict (logged; a ``gsar.evaluate`` span, if one
was started, carries ``error.type``)."""
DROP_REASON_CANCELLED: Final = "cancelled"
"""The evaluation's task was cancelled by something other than the worker's own stop (logged)."""
DEGRADED_REASON_INVALID_SETTINGS: Final = "invalid_settings"
"""``gsar.degraded.reason`` on ``gsar.evaluations.degraded`` for each call of a
``@grounded(on_low="observe")`` function left unjudged because the settings are invalid (a
``raise`` or ``recover`` gate raises instead)."""
DEGRADED_REASON_NO_EVIDENCE: Final = "no_evidence"
"""``gsar.degraded.reason`` of a ``@grounded`` call that gathered no evidence: it abstains
without calling the judge (``gsar.decision=abstain`` on the span and in ``gsar.decisions``,
counted in ``gsar.evaluations.degraded``)."""
DEGRADED_REASON_UNVERIFIED: Final = "unverified"
"""``gsar.degraded.reason`` of an evaluation the offline judge abstained on because too few of
the answer's claims could be checked against the evidence (its checkable claims all held):
``gsar.decision=abstain``, the share in ``gsar.unverified_share``."""
METRIC_JUDGE_CLAIMS: Final = "gsar.judge.claims"
"""A tiered judge's claims by ``gsar.judge.name``, ``gsar.claim.judged_by`` and
``gsar.claim.escalation``."""
GSAR_CLAIM_ESCALATION: Final = "gsar.claim.escalation"
"""On ``gsar.judge.claims``: ``settled`` (offline), ``escalated`` (sent to the model),
``over_cap`` (left unverified past ``max_escalated_claims``), ``no_model`` (left unverified: no
model tier)."""
METRIC_CLAIMS_DISPUTED: Final = "gsar.claims.disputed"
"""Disputed claims (a model grounded, the offline engine contradicts) by ``gsar.judge.name`` and
``gsar.dispute.policy``."""
METRIC_JUDGE_TOKENS: Final = "gsar.judge.tokens"
"""Extension: judge tokens by ``gsar.token.type`` (input, output, cache_read, cache_creation)."""
GSAR_TOKEN_TYPE: Final = "gsar.token.type"

SCORE_BUCKETS: Final = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0)
"""Explicit boundaries for ``gsar.score``: they resolve 0.5, 0.65, 0.8, 0.9 and 1.0."""
JUDGE_DURATION_BUCKETS: Final = (
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
)
"""Explicit boundaries (seconds) for ``gsar.judge.duration``: an offline judge to a slow LLM."""

# --- settings (environment variables) ---------------------------------------------------------
ENV_CAPTURE_CONTENT: Final = "GSAR_CAPTURE_CONTENT"
ENV_OTEL_GENAI_CAPTURE_CONTENT: Final = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
ENV_JUDGE: Final = "GSAR_JUDGE"
ENV_JUDGE_MODEL: Final = "GSAR_JUDGE_MODEL"
ENV_CONFIG: Final = "GSAR_CONFIG"
ENV_SAMPLE_RATE: Final = "GSAR_SAMPLE_RATE"
ENV_DISABLED: Final = "GSAR_DISABLED"
ENV_BACKGROUND_QUEUE_SIZE: Final = "GSAR_BACKGROUND_QUEUE_SIZE"
ENV_EXIT_FLUSH_S: Final = "GSAR_EXIT_FLUSH_S"
"""Seconds the interpreter waits at exit for background evaluations (default 5)."""
ENV_CONSOLE: Final = "GSAR_CONSOLE"
"""What ``configure_telemetry()`` prints on stderr: ``summary`` (one line per evaluation; the
default when no exporter or endpoint is configured), ``spans`` (the SDK's full span dump) or
``off``."""
CONSOLE_MODES: Final = ("summary", "spans", "off")
ENV_CAPTURE_DIR: Final = "GSAR_CAPTURE_DIR"
"""Directory ``@grounded`` writes each judged call into as a case-file line (off when unset)."""
ENV_ANTHROPIC_API_KEY: Final = "ANTHROPIC_API_KEY"
ENV_ANTHROPIC_BASE_URL: Final = "ANTHROPIC_BASE_URL"
ENV_ANTHROPIC_AUTH_TOKEN: Final = "ANTHROPIC_AUTH_TOKEN"
"""A bearer token the Claude judge accepts instead of ``ANTHROPIC_API_KEY``."""

# --- additions for the decorator, telemetry setup and plugins (additive) -----------------------
GSAR_JUDGE_SCORE: Final = "gsar.judge.score"
"""Extension on ``gsar.judge``: S of this round (the evaluation's final S is ``gsar.score``)."""
GSAR_JUDGE_DECISION: Final = "gsar.judge.decision"
"""Extension on ``gsar.judge``: the decision of this round."""
GSAR_JUDGE_ATTEMPTS: Final = "gsar.judge.attempts"
"""Extension on ``gsar.judge``: provider calls the judge made for this round (retries included)."""
OPENINFERENCE_INPUT_VALUE: Final = "input.value"
"""OpenInference input column in Phoenix: the judged answer, only with content capture on."""
OPENINFERENCE_OUTPUT_VALUE: Final = "output.value"
"""OpenInference output column in Phoenix: the decision and S (no content)."""

TOKEN_TYPE_INPUT: Final = "input"
TOKEN_TYPE_OUTPUT: Final = "output"
TOKEN_TYPE_CACHE_READ: Final = "cache_read"
TOKEN_TYPE_CACHE_CREATION: Final = "cache_creation"
UNKNOWN_EVIDENCE_TYPE_VALUE: Final = "unknown"
"""Metric value of ``gsar.claim.evidence_type`` for a type string outside EvidenceType (keeps the
metric low-cardinality; the span event keeps the judge's own string)."""

UNIT_SCORE: Final = "1"
UNIT_SECONDS: Final = "s"
UNIT_EVALUATIONS: Final = "{evaluation}"
UNIT_CLAIMS: Final = "{claim}"
UNIT_ERRORS: Final = "{error}"
UNIT_TOKENS: Final = "{token}"

MODE_INLINE: Final = "inline"
MODE_BACKGROUND: Final = "background"

REDACT_KIND_CLAIM: Final = "claim"
REDACT_KIND_SYNTHESIS: Final = "synthesis"
REDACT_KIND_EXPLANATION: Final = "explanation"
REDACT_KIND_NAME: Final = "name"
"""A name read from an agent's telemetry and exported always (content capture on or off): an
agent, a run span or a tool name, masked like content."""

INSTRUMENTATION_SCOPE: Final = "gsar_otel"
"""Name of the tracer and meter gsar-otel uses."""
PLUGIN_PROJECT: Final = "gsar_otel"
"""pluggy project name, and the entry-point group third-party plugins register under."""

ENV_PROCEED: Final = "GSAR_PROCEED"
ENV_REGENERATE: Final = "GSAR_REGENERATE"
ENV_CONTRADICTION_PENALTY: Final = "GSAR_CONTRADICTION_PENALTY"
ENV_K_MAX: Final = "GSAR_K_MAX"
ENV_CONCLUSION_POLICY: Final = "GSAR_CONCLUSION_POLICY"
ENV_CONTRADICTION_POLICY: Final = "GSAR_CONTRADICTION_POLICY"
ENV_DISPUTE_POLICY: Final = "GSAR_DISPUTE_POLICY"
"""``flag`` (default) or ``cap``: what a disputed model-grounded claim does to the decision."""
ENV_MAX_ESCALATED_CLAIMS: Final = "GSAR_MAX_ESCALATED_CLAIMS"
"""The tiered judge's most claims sent to the model per evaluation (default 16)."""
ENV_OTLP_PROTOCOL: Final = "OTEL_EXPORTER_OTLP_PROTOCOL"
ENV_OTLP_TRACES_PROTOCOL: Final = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
ENV_OTLP_METRICS_PROTOCOL: Final = "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"
ENV_OTLP_ENDPOINT: Final = "OTEL_EXPORTER_OTLP_ENDPOINT"
ENV_OTLP_TRACES_ENDPOINT: Final = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
ENV_OTLP_METRICS_ENDPOINT: Final = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"
ENV_OTEL_SERVICE_NAME: Final = "OTEL_SERVICE_NAME"
ENV_OTLP_HEADERS: Final = "OTEL_EXPORTER_OTLP_HEADERS"
ENV_OTLP_TRACES_HEADERS: Final = "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
ENV_TRACES_EXPORTER: Final = "OTEL_TRACES_EXPORTER"
ENV_METRICS_EXPORTER: Final = "OTEL_METRICS_EXPORTER"
ENV_PROMETHEUS_HOST: Final = "OTEL_EXPORTER_PROMETHEUS_HOST"
ENV_PROMETHEUS_PORT: Final = "OTEL_EXPORTER_PROMETHEUS_PORT"
"""The standard OpenTelemetry variables gsar-otel reads itself (the SDK's exporters read them
too); every variable it reads is in :data:`gsar_otel.environment.VARIABLES`."""

# --- the sidecar (`gsar sidecar`; additive): in their own module, re-exported here ----------------
from gsar_otel.semconv_sidecar import *  # noqa: E402, F403
