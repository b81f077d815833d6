"""The metric contract: names, units, explicit buckets, attributes and values."""

from __future__ import annotations

import asyncio

import pytest

from gsar_otel import flush, grounded, record_evidence
from gsar_otel.core.model import Claim, JudgeOutput
from gsar_otel.core.protocol import JudgeUsage
from tests.telemetry.helpers import (
    ANSWER,
    CPU_ROW,
    FailingJudge,
    Otel,
    ScriptedJudge,
    grounded_output,
)


def attrs(**pairs: str) -> frozenset[tuple[str, str]]:
    return frozenset(pairs.items())


def run_once(mode: str, judge: object, name: str = "incident_answer") -> None:
    @grounded(judge=judge, mode=mode, name=name)  # type: ignore[arg-type]
    async def answer() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    asyncio.run(answer())
    assert flush(5.0)


@pytest.mark.parametrize("mode", ["inline", "background"])
def test_an_evaluation_records_score_decision_and_claims(otel: Otel, mode: str) -> None:
    run_once(mode, ScriptedJudge())
    metrics = otel.metrics()
    assert metrics["gsar.score"].unit == "1"
    [score] = otel.points("gsar.score").items()
    assert score[0] == attrs(**{"gsar.function": "incident_answer"})
    assert (score[1].count, score[1].sum) == (1, 0.625)
    assert metrics["gsar.decisions"].unit == "{evaluation}"
    assert {k: p.value for k, p in otel.points("gsar.decisions").items()} == {
        attrs(**{"gsar.function": "incident_answer", "gsar.decision": "replan"}): 1}
    assert metrics["gsar.claims"].unit == "{claim}"
    assert {k: p.value for k, p in otel.points("gsar.claims").items()} == {
        attrs(**{"gsar.function": "incident_answer", "gsar.claim.verdict": "grounded",
                 "gsar.claim.evidence_type": "tool_match"}): 1,
        attrs(**{"gsar.function": "incident_answer", "gsar.claim.verdict": "ungrounded",
                 "gsar.claim.evidence_type": "inference"}): 1,
    }
    assert "gsar.evaluations.degraded" not in metrics
    assert "gsar.judge.errors" not in metrics


def test_the_score_histogram_uses_buckets_that_resolve_the_thresholds(otel: Otel) -> None:
    run_once("inline", ScriptedJudge())
    [point] = otel.points("gsar.score").values()
    assert tuple(point.explicit_bounds) == (
        0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0)
    # 0.625 falls in (0.6, 0.65]
    assert point.bucket_counts[6] == 1
    assert sum(point.bucket_counts) == 1


def test_judge_duration_is_a_histogram_in_seconds_with_explicit_buckets(otel: Otel) -> None:
    run_once("inline", ScriptedJudge())
    metric = otel.metrics()["gsar.judge.duration"]
    assert metric.unit == "s"
    [(key, point)] = otel.points("gsar.judge.duration").items()
    assert key == attrs(**{"gsar.function": "incident_answer", "gsar.judge.name": "scripted"})
    assert point.count == 1
    assert 0 < point.sum < 1.0
    assert tuple(point.explicit_bounds) == (
        0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


def test_judge_tokens_are_counted_by_token_type(otel: Otel) -> None:
    usage = JudgeUsage(input_tokens=1200, output_tokens=340, cache_read_input_tokens=1000)
    run_once("inline", ScriptedJudge(usage=usage))
    assert otel.metrics()["gsar.judge.tokens"].unit == "{token}"
    base = {"gsar.function": "incident_answer", "gsar.judge.name": "scripted"}
    assert {k: p.value for k, p in otel.points("gsar.judge.tokens").items()} == {
        attrs(**base, **{"gsar.token.type": "input"}): 1200,
        attrs(**base, **{"gsar.token.type": "output"}): 340,
        attrs(**base, **{"gsar.token.type": "cache_read"}): 1000,
    }


def test_a_failing_judge_counts_a_judge_error_by_error_type(otel: Otel) -> None:
    run_once("inline", FailingJudge(TimeoutError("slow")))
    assert otel.metrics()["gsar.judge.errors"].unit == "{error}"
    assert {k: p.value for k, p in otel.points("gsar.judge.errors").items()} == {
        attrs(**{"gsar.function": "incident_answer", "gsar.judge.name": "failing",
                 "error.type": "TimeoutError"}): 1}
    [key] = otel.points("gsar.judge.duration")
    assert ("error.type", "TimeoutError") in key
    assert {k: p.value for k, p in otel.points("gsar.decisions").items()} == {
        attrs(**{"gsar.function": "incident_answer", "gsar.decision": "abstain"}): 1}


def test_a_degraded_evaluation_is_counted_with_its_reason(otel: Otel) -> None:
    @grounded(judge=ScriptedJudge(), on_low="recover", regenerate_fn=lambda s, o: s + " More.",
              name="incident_answer")
    def answer() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    answer()
    assert otel.metrics()["gsar.evaluations.degraded"].unit == "{evaluation}"
    assert {k: p.value for k, p in otel.points("gsar.evaluations.degraded").items()} == {
        attrs(**{"gsar.function": "incident_answer",
                 "gsar.degraded.reason": "regenerate_budget"}): 1}


def test_an_invented_evidence_type_is_reported_as_unknown_in_metrics_only(otel: Otel) -> None:
    output = JudgeOutput(grounding_score=1.0, is_grounded=True, grounded_claims=[
        Claim("CPU on db-prod-1 reached 97% at 14:02", "vibes", ["E1"])])

    @grounded(judge=ScriptedJudge(outputs=[output]), name="incident_answer")
    def answer() -> str:
        record_evidence(CPU_ROW)
        return "CPU on db-prod-1 reached 97% at 14:02."

    answer()
    assert {k: p.value for k, p in otel.points("gsar.claims").items()} == {
        attrs(**{"gsar.function": "incident_answer", "gsar.claim.verdict": "grounded",
                 "gsar.claim.evidence_type": "unknown"}): 1}
    [claim] = [e for e in otel.one_evaluate_span().events if e.name == "gsar.claim"]
    assert dict(claim.attributes or {})["gsar.claim.evidence_type"] == "vibes"


def test_metric_attributes_never_carry_claim_or_answer_text(
        otel: Otel, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GSAR_CAPTURE_CONTENT", "true")
    run_once("inline", ScriptedJudge(outputs=[grounded_output()]))
    for name, metric in otel.metrics().items():
        for point in metric.data.data_points:
            for key, value in point.attributes.items():
                assert "CPU" not in str(value), (name, key)
                assert key in {"gsar.function", "gsar.decision", "gsar.claim.verdict",
                               "gsar.claim.evidence_type", "gsar.judge.name", "gsar.token.type",
                               "error.type", "gsar.degraded.reason"}, (name, key)
