"""Stage 7: the judge end to end, the seed examples and the row property."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import Evidence, EvidenceSet
from gsar_otel.core.model import EvidenceType, JudgeOutput
from gsar_otel.core.protocol import Judge
from gsar_otel.judges.staged import StagedJudge
from gsar_otel.judges.staged.judge import OfflineSettings

SEED_EVIDENCE = EvidenceSet(items=(
    Evidence("E1", "2024-05-01 10:14:30 UTC INFO deploy-bot: config push cfg-7781 to edge-lb-3"),
    Evidence("E2", "[signal] alert_id=A-1 fired_at=10:15:00 outage on edge-lb-3 severity=critical",
             EvidenceType.SIGNAL_MATCH),
    Evidence("E3", "host=edge-lb-3 http_5xx_rate=41.2% p99_ms=850 ts=2024-05-01T10:15:32Z"),
))
CAUSE = "The outage was caused by a config push."


def judge(synthesis: str, evidence: EvidenceSet = SEED_EVIDENCE) -> JudgeOutput:
    return asyncio.run(StagedJudge().judge(synthesis=synthesis, evidence=evidence))


def test_it_is_a_deterministic_judge_named_staged() -> None:
    assert isinstance(StagedJudge(), Judge)
    assert StagedJudge.name == "staged"
    assert StagedJudge.deterministic is True


def test_an_unstated_cause_is_an_ungrounded_conclusion() -> None:
    output = judge(CAUSE)
    assert [c.text for c in output.ungrounded_claims] == [CAUSE]
    assert output.ungrounded_claims[0].conclusion
    assert output.decision_status == "resolved"


def test_an_unstated_cause_beside_three_grounded_facts() -> None:
    output = judge("The 5xx rate on edge-lb-3 reached 41.2% at 10:15:32 UTC. "
                   "deploy-bot pushed config cfg-7781 to edge-lb-3 at 10:14:30 UTC. "
                   "The p99 latency on edge-lb-3 was 850 ms. " + CAUSE)
    assert len(output.grounded_claims) == 3
    assert [c.text for c in output.ungrounded_claims] == [CAUSE]
    assert output.ungrounded_claims[0].conclusion
    assert not any(c.conclusion for c in output.grounded_claims)


def test_the_5xx_rate_row_grounds_its_claim() -> None:
    evidence = EvidenceSet.coerce(["host=edge-lb-3 http_5xx_rate=41.2% ts=2024-05-01T10:15:32Z"])
    output = judge("The 5xx rate on edge-lb-3 reached 41.2% at 10:15:32 UTC.", evidence)
    (claim,) = output.grounded_claims
    assert claim.type is EvidenceType.TOOL_MATCH
    assert claim.evidence_refs == ("E1",)
    assert output.grounding_score == 1.0 and output.is_grounded


def test_a_changed_value_is_contradicted_and_reported() -> None:
    evidence = EvidenceSet.coerce(["host=edge-lb-3 http_5xx_rate=41.2% ts=2024-05-01T10:15:32Z"])
    output = judge("The 5xx rate on edge-lb-3 reached 12.5% at 10:15:32 UTC.", evidence)
    assert len(output.contradicted_claims) == 1
    assert output.contradictions and "12.5%" in output.contradictions[0]


def test_an_anaphoric_conclusion_of_grounded_facts_is_a_synthesis() -> None:
    evidence = EvidenceSet.coerce(["host=db-prod-1 cpu_pct=97.2 ts=14:02:01",
                                   "host=db-prod-1 rps=12.4 ts=14:02:01"])
    output = judge("CPU on db-prod-1 reached 97% at 14:02 UTC. Request rate on db-prod-1 "
                   "was 12 RPS. These two observations indicate the spike is real.",
                   evidence)
    # Each claim cites the row that holds its value.
    assert [c.evidence_refs for c in output.grounded_claims] == [("E1",), ("E2",)]
    assert [(c.type, c.evidence_refs) for c in output.complementary_claims] == [
        (EvidenceType.SYNTHESIS, ("E1", "E2"))]


def test_a_trend_stated_from_one_sample_is_not_grounded() -> None:
    evidence = EvidenceSet.coerce(["host=db-prod-1 rps=12.4 ts=14:02:01"])
    output = judge("Request rate on db-prod-1 dropped to 12 RPS.", evidence)
    assert not output.grounded_claims
    assert output.gaps == ("Request rate on db-prod-1 dropped to 12 RPS.: says decreased: a "
                           "trend needs two values or a stated change, and no evidence item "
                           "states one",)


def test_no_evidence_grounds_nothing() -> None:
    output = judge("CPU on db-prod-1 reached 97%.", EvidenceSet())
    assert not output.grounded_claims
    assert output.grounding_score == 0.0


def test_empty_answer_has_no_claims() -> None:
    output = judge("Here is what I found:")
    assert output.to_partition().is_empty
    assert output.grounding_score == 0.5


def test_the_judge_is_deterministic_and_instances_share_nothing() -> None:
    answer = "The 5xx rate on edge-lb-3 reached 41.2% at 10:15:32 UTC. " + CAUSE
    assert judge(answer) == judge(answer)
    used = StagedJudge()
    used.judge_now(synthesis=answer, evidence=EvidenceSet.coerce(["host=edge-lb-3 p99_ms=12"]))
    assert used.judge_now(synthesis=answer, evidence=SEED_EVIDENCE) == StagedJudge().judge_now(
        synthesis=answer, evidence=SEED_EVIDENCE)
    assert vars(StagedJudge()) == {"settings": OfflineSettings()}  # no state beyond settings


HOSTS = st.builds(lambda a, n: f"{a}-{n}", st.sampled_from(["edge-lb", "db-prod", "api-gw"]),
                  st.integers(1, 99))
VALUES = st.fixed_dictionaries({
    "count": st.integers(2, 9000),
    "pct": st.integers(1, 999).map(lambda v: v / 10),
    "clock": st.tuples(st.integers(0, 23), st.integers(0, 59), st.integers(0, 59)),
    "version": st.tuples(st.integers(1, 9), st.integers(0, 30), st.integers(0, 30)),
    "req": st.integers(1000, 99999),
})
TEMPLATE_ROW = ("host={host} conn_count={count} error_pct={pct}% ts={clock} "
                "release=v{version} request_id=req-{req}")
TEMPLATE_CLAIM = ("On {host} the conn count was {count} and the error pct was {pct}% at {clock} "
                  "with release v{version} for request req-{req}.")


def render(template: str, host: str, values: dict[str, object]) -> str:
    clock = "{:02d}:{:02d}:{:02d}".format(*values["clock"])  # type: ignore[str-format]
    version = "{}.{}.{}".format(*values["version"])  # type: ignore[str-format]
    return template.format(host=host, count=values["count"], pct=values["pct"], clock=clock,
                           version=version, req=values["req"])


@settings(max_examples=40, deadline=None)
@given(HOSTS, VALUES, st.sampled_from(["count", "pct"]))
def test_copying_a_row_is_never_contradicted_and_changing_a_value_is(
        host: str, values: dict[str, object], changed: str) -> None:
    evidence = EvidenceSet.coerce([render(TEMPLATE_ROW, host, values),
                                   "2024-05-01 10:00:00 UTC INFO unrelated line"])
    copied = judge(render(TEMPLATE_CLAIM, host, values), evidence)
    assert not copied.contradicted_claims
    other = dict(values)
    other[changed] = (int(values["count"]) * 3 + 7 if changed == "count"  # type: ignore[call-overload]
                      else round(float(values["pct"]) + 37.3, 1))  # type: ignore[arg-type]
    altered = judge(render(TEMPLATE_CLAIM, host, other), evidence)
    assert altered.contradicted_claims
