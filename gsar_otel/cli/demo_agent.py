"""An example incident-response agent whose final answer is judged by ``@grounded``.

The agent investigates alert A-9912 with three scripted tools (metric rows, log lines and the
alert itself); each tool is decorated with ``@tool_evidence``, so whatever it returns becomes
evidence of the answer it feeds. The first answer over-reaches: every fact in it is backed by a
tool (the request rate "dropped" because its metrics row states the value one window earlier
and the change), but it ends with "The outage was caused by the config push" when the evidence
only shows a push thirty seconds before the alert. Its S (0.87) clears the default bar of 0.80;
the demo's bar and the conclusion policy hold the unsupported root cause back.
``@grounded(on_low="recover")`` judges the answer, and when it does
not proceed, :func:`drop_unsupported_claims` (the ``regenerate_fn``) rewrites it from the same
evidence, keeping only what the judge found grounded; :func:`widen_investigation` (the
``replan_fn``) gathers more evidence if rewriting is not enough.

Everything is deterministic and offline: the tools are scripted, and the default judge is the
``StagedJudge`` (Claude through ``AnthropicJudge`` when ``ANTHROPIC_API_KEY`` is set). ``gsar
demo`` runs this agent; ``examples/incident_agent.py`` is the same agent as a runnable script.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

from gsar_otel.core.capture import record_evidence, tool_evidence
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import EvidenceType, GSARThresholds, JudgeOutput
from gsar_otel.core.protocol import Judge
from gsar_otel.core.text import content_stems, split_sentences

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer, TracerProvider

ALERT_ID = "A-9912"
HOST = "db-prod-1"
OVERREACHING_CLAIM = "The outage was caused by the config push."
"""The causal claim the first answer makes and the evidence does not support."""
AGENT_FUNCTION = "incident_agent.final_answer"
"""The ``gsar.function`` the agent's evaluations are reported under."""
INCIDENT_THRESHOLDS = GSARThresholds(proceed=0.90, regenerate=0.70)
"""A stricter bar than the default 0.80 / 0.65: an on-call engineer acts on a root cause, and
with the default bar one ungrounded claim among four tool-backed ones still proceeds
(S = 3.9 / 4.5 = 0.87)."""

# --- the scripted incident --------------------------------------------------------------------

_METRICS: dict[tuple[str, str], dict[str, Any]] = {
    (HOST, "cpu_pct"): {"ts": "14:02:01", "host": HOST, "cpu_pct": 97.2},
    # The metrics API reports the rate with its value one window earlier and the change, so
    # "the request rate dropped" has its two values (a trend from one sample is held back).
    (HOST, "rps"): {"ts": "14:02:01", "host": HOST, "rps": 12.4, "rps_before": 4480.0,
                    "rps_change": "decreased"},
}
_LOGS: dict[str, tuple[str, ...]] = {
    HOST: (
        f"14:01:30 deploy-bot: config push cfg-4471 applied to {HOST}",
        f"14:02:05 {HOST} postgres: checkpoint took 41.3 s",
    ),
}
_WIDER_LOGS: dict[str, tuple[str, ...]] = {
    HOST: (f"14:02:40 {HOST} postgres: connection pool at 100% (200 of 200 connections)",),
}
_ALERTS: dict[str, dict[str, Any]] = {
    ALERT_ID: {"alert_id": ALERT_ID, "fired_at": "14:02:00", "metric": "cpu_pct",
               "severity": "high", "host": HOST},
}


@tool_evidence(type=EvidenceType.SIGNAL_MATCH, source="get_alert")
def get_alert(alert_id: str) -> dict[str, Any]:
    """The alert that opened the incident (a signal: weighed as ``signal_match``)."""
    try:
        return dict(_ALERTS[alert_id])
    except KeyError:
        raise ValueError(f"unknown alert {alert_id!r}; known: {', '.join(_ALERTS)}") from None


@tool_evidence(source="query_metrics")
def query_metrics(host: str, metric: str) -> dict[str, Any]:
    """One metric row for ``host`` at the time of the alert."""
    try:
        return dict(_METRICS[(host, metric)])
    except KeyError:
        raise ValueError(f"no {metric!r} metric for host {host!r}") from None


def search_logs(host: str, *, wider: bool = False) -> list[str]:
    """Log lines of ``host`` around the alert; each line is recorded as its own evidence item.

    Logs are recorded line by line (rather than through ``@tool_evidence``, which records a
    tool's whole return value as one item) so that a claim can cite the one line it rests on.
    """
    lines = [*_LOGS.get(host, ()), *(_WIDER_LOGS.get(host, ()) if wider else ())]
    for line in lines:
        record_evidence(line, type=EvidenceType.TOOL_MATCH, source="search_logs")
    return lines


# --- drafting and recovery --------------------------------------------------------------------


def draft_answer(alert: dict[str, Any], cpu: dict[str, Any], rps: dict[str, Any],
                 logs: Sequence[str]) -> str:
    """The agent's first answer: the facts, then one conclusion the evidence does not support."""
    push = next((line for line in logs if "config push" in line), None)
    sentences = [
        f"CPU utilisation on {cpu['host']} reached {cpu['cpu_pct']}% at {cpu['ts']} UTC "
        f"and the request rate dropped to {rps['rps']} requests per second.",
        f"Alert {alert['alert_id']} fired at {alert['fired_at']} UTC with "
        f"{alert['severity']} severity.",
    ]
    if push is not None:
        time, _, _rest = push.partition(" ")
        sentences.append(f"Config push cfg-4471 was applied to {cpu['host']} at {time}.")
        sentences.append(OVERREACHING_CLAIM)
    return " ".join(sentences)


def _normal(text: str) -> str:
    return " ".join(text.lower().rstrip(".!? ").split())


def _covers(sentence: str, claim: str) -> bool:
    """True when ``sentence`` states ``claim``: it contains the claim's text, or (for a judge
    that paraphrases) at least three quarters of the claim's content words."""
    if _normal(claim) and _normal(claim) in _normal(sentence):
        return True
    claim_stems = content_stems(claim)
    if not claim_stems:
        return False
    return len(claim_stems & content_stems(sentence)) / len(claim_stems) >= 0.75


def drop_unsupported_claims(synthesis: str, judge_output: JudgeOutput) -> str:
    """Rewrite an answer from the same evidence, keeping only what the judge found grounded.

    The ``regenerate_fn`` of the demo: deterministic, and it never invents text. Sentences that
    state an ungrounded or contradicted claim are dropped; a grounded (or complementary) claim
    that only appeared in a dropped sentence is kept as a sentence of its own.
    """
    unsupported = [c.text for c in (*judge_output.ungrounded_claims,
                                    *judge_output.contradicted_claims)]
    supported = [c.text for c in (*judge_output.grounded_claims,
                                  *judge_output.complementary_claims)]
    kept = [s for s in split_sentences(synthesis)
            if not any(_covers(s, claim) for claim in unsupported)]
    for claim in supported:
        if not any(_covers(s, claim) for s in kept):
            text = claim.strip()
            kept.append(text if text.endswith((".", "!", "?")) else f"{text}.")
    return " ".join(kept)


def widen_investigation(
    synthesis: str, evidence: EvidenceSet, judge_output: JudgeOutput
) -> tuple[str, EvidenceSet]:
    """The demo's ``replan_fn``: search a wider log window, then rewrite from the new evidence.

    New log lines are appended to the evidence (existing ids stay stable), and the answer keeps
    only what the judge found grounded.
    """
    known = {item.content for item in evidence}
    items: list[Any] = list(evidence.items)
    for line in _WIDER_LOGS.get(HOST, ()):
        if line not in known:
            items.append({"id": f"E{len(items) + 1}", "content": line,
                          "type": EvidenceType.TOOL_MATCH, "source": "search_logs"})
    return drop_unsupported_claims(synthesis, judge_output), EvidenceSet.coerce(items)


# --- the agent -------------------------------------------------------------------------------


def investigate(alert_id: str = ALERT_ID, *, tracer: Tracer | None = None) -> str:
    """The agent's final-answer step, undecorated: call the tools, then draft the answer.

    With a ``tracer``, each tool call gets an ``execute_tool {name}`` span (GenAI conventions).
    """

    def tool(name: str) -> AbstractContextManager[object]:
        if tracer is None:
            return nullcontext()
        return tracer.start_as_current_span(f"execute_tool {name}", attributes={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
            "openinference.span.kind": "TOOL"})

    with tool("get_alert"):
        alert = get_alert(alert_id)
    host = str(alert["host"])
    with tool("query_metrics"):
        cpu = query_metrics(host, "cpu_pct")
    with tool("query_metrics"):
        rps = query_metrics(host, "rps")
    with tool("search_logs"):
        logs = search_logs(host)
    return draft_answer(alert, cpu, rps, logs)


def make_incident_agent(
    judge: Judge | str | None = None,
    *,
    tracer_provider: TracerProvider | None = None,
    **options: Any,
) -> Callable[[str], str]:
    """The incident agent, its final answer under ``@grounded(on_low="recover")``.

    Args:
        judge: a judge or a judge name (default: ``GSAR_JUDGE``, else ``anthropic`` when
            ``ANTHROPIC_API_KEY`` is set, else ``staged``).
        tracer_provider: where the agent's own spans go (``incident_agent.run`` and one
            ``execute_tool`` span per tool call); default: the global provider. The
            ``gsar.evaluate`` span nests under ``incident_agent.run`` either way.
        options: more ``@grounded`` options; they override the defaults below (``thresholds``
            defaults to :data:`INCIDENT_THRESHOLDS`).

    Returns:
        ``run(alert_id) -> str``: investigates the alert and returns the final answer, after
        recovery when the first answer did not proceed.
    """
    from opentelemetry import trace

    from gsar_otel.decorator.api import grounded

    tracer = trace.get_tracer(__name__, tracer_provider=tracer_provider)
    settings: dict[str, Any] = {
        "judge": judge, "on_low": "recover", "regenerate_fn": drop_unsupported_claims,
        "replan_fn": widen_investigation, "thresholds": INCIDENT_THRESHOLDS,
        "name": AGENT_FUNCTION,
    }
    settings.update(options)

    @grounded(**settings)
    def final_answer(alert_id: str) -> str:
        return investigate(alert_id, tracer=tracer)

    def run(alert_id: str = ALERT_ID) -> str:
        with tracer.start_as_current_span("incident_agent.run", attributes={
                "incident.alert_id": alert_id, "openinference.span.kind": "AGENT"}):
            return final_answer(alert_id)

    return run
