"""The tiered judge over the real anthropic SDK and HTTP, against the local fake Messages API:
the offline tier settles what it can, the model judges the rest in one call with the evidence
aligned to it, and the model's reply is matched back claim by claim."""

from __future__ import annotations

from pathlib import Path

import pytest

from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Decision
from gsar_otel.judges.factory import BUILTIN_JUDGES, make_judge
from gsar_otel.judges.recorded.judge import RecordingJudge
from gsar_otel.judges.recorded.store import CassetteStore
from gsar_otel.judges.tiered.judge import TieredJudge
from gsar_otel.judges.tiered.model_tier import ClaimsModelJudge
from tests.anthropic.conftest import JudgeFactory
from tests.support.fake_anthropic import (
    FakeMessagesServer,
    claim,
    judged_synthesis,
    verdict,
    verdict_message,
)

EVIDENCE = EvidenceSet.coerce([
    "host=api-1 cpu_pct=95 p99_ms=420",
    "host=api-2 cpu_pct=40 p99_ms=120",
    "deploy=checkout version=v2.3.1 status=succeeded note=rollout of the checkout release",
    "user=alice action=restart target=api-1",
])
SETTLED = "api-1 ran at 95% CPU. api-2 ran at 40% CPU."
ONE_UNVERIFIABLE = "api-1 ran at 95% CPU. The team seems worried about the rollout."
WORRIED = "The team seems worried about the rollout."
CALMER = "Things look calmer overall now."


def tiered(make_judge: JudgeFactory, **options: object) -> TieredJudge:
    return TieredJudge(make_judge(), **options)  # type: ignore[arg-type]


def evaluate(judge: object, answer: str, **options: object):  # type: ignore[no-untyped-def]
    return GSAREvaluator(judge, **options).evaluate_sync(  # type: ignore[arg-type]
        report_synthesis=answer, evidence_corpus=EVIDENCE)


def test_tiered_is_a_builtin_judge_name() -> None:
    assert "tiered" in BUILTIN_JUDGES


def test_an_answer_that_settles_offline_makes_no_call(fake_anthropic: FakeMessagesServer,
                                                      make_judge: JudgeFactory) -> None:
    result = evaluate(tiered(make_judge), SETTLED)
    assert fake_anthropic.message_requests == []
    assert result.final_decision is Decision.PROCEED
    assert result.tiers is not None
    assert (result.tiers.settled, result.tiers.escalated, result.tiers.model_tier) == (
        2, 0, "all_settled")  # two sentences, two claims, both settled offline
    assert {c.judged_by for c in result.final_partition.all_claims()} == {"offline"}


def test_one_unverifiable_sentence_makes_one_call_with_that_claim_and_its_evidence(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    result = evaluate(tiered(make_judge), ONE_UNVERIFIABLE)
    [request] = fake_anthropic.message_requests
    shown = request.user_text()
    assert judged_synthesis(request) == WORRIED
    assert 'part="context"' in shown and "api-1 ran at 95% CPU." in shown  # context, marked
    assert "rollout of the checkout release" in shown  # the item aligned to the claim
    assert "cpu_pct=40" not in shown and "user=alice" not in shown  # unrelated items stay home
    judged = {c.text: c.judged_by for c in result.final_partition.all_claims()}
    assert judged == {"api-1 ran at 95% CPU.": "offline", WORRIED: "model"}
    assert result.tiers is not None and result.tiers.escalated == 1
    assert result.judge_usage is not None and result.judge_usage.input_tokens == 1200


def test_the_escalation_cap_leaves_the_rest_unverified_and_counts_it(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    result = evaluate(tiered(make_judge, max_escalated_claims=1),
                      f"api-1 ran at 95% CPU. {WORRIED} {CALMER}")
    [request] = fake_anthropic.message_requests
    assert judged_synthesis(request) == WORRIED
    assert result.tiers is not None
    assert (result.tiers.escalated, result.tiers.over_cap) == (1, 1)
    capped = [c for c in result.final_partition.ungrounded if c.text == CALMER]
    assert capped and not capped[0].verifiable and capped[0].judged_by == "offline"
    assert [a.kind for a in result.adjustments if a.claim == CALMER] == ["escalation_capped"]


def test_a_model_reply_that_omits_a_claim_makes_it_ungrounded_with_a_note(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    fake_anthropic.enqueue(verdict_message(verdict(grounded=[claim(WORRIED, refs=["E3"])])))
    result = evaluate(tiered(make_judge), f"api-1 ran at 95% CPU. {WORRIED} {CALMER}")
    omitted = [c for c in result.final_partition.ungrounded if c.text == CALMER]
    assert omitted and omitted[0].verifiable and omitted[0].judged_by == "model"
    assert [a.kind for a in result.adjustments if a.claim == CALMER] == ["model_omitted_claim"]
    assert [c.text for c in result.final_partition.grounded if c.judged_by == "model"] == [
        WORRIED]


def test_a_reworded_or_added_claim_is_reported_never_merged(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    fake_anthropic.enqueue(verdict_message(verdict(grounded=[
        claim("The team seems very worried about the checkout rollout", refs=["E3"]),
        claim("The database is healthy", refs=["E1"])])))
    result = evaluate(tiered(make_judge), ONE_UNVERIFIABLE)
    texts = [c.text for c in result.final_partition.all_claims()]
    assert "The database is healthy" not in texts
    assert WORRIED in [c.text for c in result.final_partition.ungrounded]
    kinds = sorted(a.kind for a in result.adjustments)
    assert kinds == ["model_added_claim", "model_omitted_claim", "model_renamed_claim"]
    assert result.final_decision is not Decision.PROCEED


def test_a_failed_model_call_keeps_the_offline_verdict_and_says_so(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    from tests.support.fake_anthropic import server_error

    fake_anthropic.enqueue(server_error())
    result = evaluate(tiered(make_judge), ONE_UNVERIFIABLE)
    assert result.judge_errors == ("InternalServerError",)
    worried = [c for c in result.final_partition.all_claims() if c.text == WORRIED]
    assert worried and not worried[0].verifiable
    assert [a.kind for a in result.adjustments if a.claim == WORRIED] == ["model_tier_failed"]


def test_without_a_key_tiered_is_the_offline_judge_and_says_so(
        caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("WARNING"):
        judge = make_judge("tiered")
    assert isinstance(judge, TieredJudge) and judge.model_tier is None and judge.deterministic
    assert "ANTHROPIC_API_KEY" in caplog.text
    result = evaluate(judge, f"api-1 ran at 95% CPU. {WORRIED} {CALMER}")
    assert result.final_decision is Decision.ABSTAIN
    assert "ANTHROPIC_API_KEY" in (result.final_judge_output.abstain_reason or "")
    assert result.tiers is not None
    assert (result.tiers.no_model, result.tiers.model_tier) == (2, "no_api_key")


def test_replay_from_a_cassette_makes_no_call(fake_anthropic: FakeMessagesServer,
                                              make_judge: JudgeFactory, tmp_path: Path) -> None:
    judge = tiered(make_judge)
    assert isinstance(judge.model_tier, ClaimsModelJudge)
    path = tmp_path / "tiered.json"
    recorder = RecordingJudge(judge.model_tier, CassetteStore(path), "all")
    recorded = evaluate(judge.with_model_tier(recorder), ONE_UNVERIFIABLE)
    recorder.store.save()
    assert len(fake_anthropic.message_requests) == 1
    assert "api-1 ran at 95% CPU." not in path.read_text().split('"output"')[1]  # model part only
    replayer = RecordingJudge(judge.model_tier, CassetteStore(path), "none")
    replayed = evaluate(judge.with_model_tier(replayer), ONE_UNVERIFIABLE)
    assert len(fake_anthropic.message_requests) == 1
    assert replayer.replayed == 1
    assert replayed.final_partition == recorded.final_partition


def test_a_model_grounding_another_rows_value_is_disputed(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    wrong = "api-2 ran at 95% CPU."
    answer = f"api-1 ran at 95% CPU. {wrong} api-1 had a p99 of 420 ms."
    reply = verdict(grounded=[claim("api-1 ran at 95% CPU.", refs=["E1"]),
                              claim(wrong, refs=["E1"]),
                              claim("api-1 had a p99 of 420 ms.", refs=["E1"])])
    fake_anthropic.enqueue(verdict_message(reply), verdict_message(reply))
    flagged = evaluate(make_judge(), answer, dispute_policy="flag")
    disputed = [c for c in flagged.final_partition.grounded if c.disputed]
    assert [c.text for c in disputed] == [wrong]
    assert "E2" in (disputed[0].disputed or "")
    assert flagged.final_decision is Decision.PROCEED and not flagged.dispute_capped
    capped = evaluate(make_judge(), answer, dispute_policy="cap")
    assert capped.final_decision is Decision.REGENERATE and capped.dispute_capped
    assert "dispute" in capped.capped_by


def test_a_cassette_of_the_anthropic_judge_holds_no_dispute(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory, tmp_path: Path) -> None:
    wrong = "api-2 ran at 95% CPU."
    fake_anthropic.enqueue(verdict_message(verdict(grounded=[claim(wrong, refs=["E1"])])))
    path = tmp_path / "anthropic.json"
    recorder = RecordingJudge(make_judge(), CassetteStore(path), "all")
    first = evaluate(recorder, wrong)
    recorder.store.save()
    assert "disputed" not in path.read_text() and "judged_by" not in path.read_text()
    replay = RecordingJudge(make_judge(), CassetteStore(path), "none")
    again = evaluate(replay, wrong)
    assert [bool(c.disputed) for c in first.final_partition.grounded] == [True]
    assert again.final_partition == first.final_partition
    assert len(fake_anthropic.message_requests) == 1


def test_a_bad_cap_is_a_clear_error(make_judge: JudgeFactory) -> None:
    with pytest.raises(ValueError, match="max_escalated_claims"):
        TieredJudge(make_judge(), max_escalated_claims=-1)


def _descriptions(node: object) -> int:
    if isinstance(node, dict):
        return ("description" in node) + sum(_descriptions(v) for v in node.values())
    if isinstance(node, list):
        return sum(_descriptions(v) for v in node)
    return 0


def test_the_model_tier_sends_the_claims_prompt_and_the_compact_schema(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    """The model tier's request says the claims are given (no splitting step) and carries the
    verdict schema without its field notes, the same shape; the Claude judge alone sends the
    full prompt and schema."""
    from gsar_otel.judges.anthropic.prompt import (
        CLAIMS_SYSTEM_PROMPT,
        SYSTEM_PROMPT,
        compact_verdict_schema,
        verdict_schema,
    )

    evaluate(tiered(make_judge), ONE_UNVERIFIABLE)
    evaluate(make_judge(), ONE_UNVERIFIABLE)
    tier, alone = fake_anthropic.message_requests
    assert tier.body["system"][0]["text"] == CLAIMS_SYSTEM_PROMPT
    assert alone.body["system"][0]["text"] == SYSTEM_PROMPT
    assert "# Step 1: enumerate" in SYSTEM_PROMPT and "# Step 1: enumerate" not in (
        CLAIMS_SYSTEM_PROMPT)
    tier_schema = tier.body["output_config"]["format"]["schema"]
    assert tier_schema == compact_verdict_schema() and _descriptions(tier_schema) == 0
    assert alone.body["output_config"]["format"]["schema"] == verdict_schema()
    assert _descriptions(verdict_schema()) > 0
    assert len(tier.raw) < len(alone.raw)
