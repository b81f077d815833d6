"""Every way a judge call can fail ends in a safe default with a reason and an error type."""

from __future__ import annotations

import asyncio
import json
import typing

from gsar_otel.core.model import EvidenceType
from gsar_otel.core.protocol import JudgeVerdict
from gsar_otel.judges.anthropic.judge import AnthropicJudge
from tests.anthropic.conftest import (
    API_KEY,
    INCIDENT_ANSWER,
    INCIDENT_EVIDENCE,
    JudgeFactory,
)
from tests.support.fake_anthropic import (
    FakeMessagesServer,
    ScriptedResponse,
    claim,
    error_response,
    max_tokens_message,
    overloaded,
    rate_limited,
    refusal_message,
    server_error,
    tool_use_message,
    verdict,
    verdict_message,
)
from tests.support.servers import free_port


def judge_once(judge: AnthropicJudge) -> JudgeVerdict:
    return asyncio.run(judge.judge_verdict(synthesis=INCIDENT_ANSWER,
                                           evidence=INCIDENT_EVIDENCE))


def assert_safe_default(result: JudgeVerdict, error_type: str, *reason_parts: str) -> None:
    assert result.error_type == error_type
    assert result.output.abstained
    assert result.output.to_partition().is_empty
    reason = result.output.abstain_reason or ""
    for part in reason_parts:
        assert part in reason, reason
    assert API_KEY not in reason


def test_a_429_is_retried_by_the_sdk_and_then_succeeds(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    fake_anthropic.enqueue(rate_limited())
    judge = make_judge(client_options={"max_retries": 2})

    result = judge_once(judge)

    assert result.error_type is None
    assert not result.output.abstained
    assert len(fake_anthropic.message_requests) == 2
    retries = [r.headers.get("x-stainless-retry-count") for r in fake_anthropic.message_requests]
    assert retries == ["0", "1"]


def test_529_until_the_retries_run_out_ends_in_an_overloaded_safe_default(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    fake_anthropic.enqueue(overloaded(), overloaded(), overloaded(), overloaded())
    judge = make_judge(max_retries=2)

    result = judge_once(judge)

    assert_safe_default(result, "OverloadedError", "HTTP 529", "after 2 retries")
    assert len(fake_anthropic.message_requests) == 3
    assert fake_anthropic.pending == 1


def test_a_server_error_ends_in_a_safe_default(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    fake_anthropic.enqueue(server_error())
    assert_safe_default(judge_once(make_judge()), "InternalServerError", "HTTP 500")


def test_a_reply_slower_than_the_timeout_ends_in_a_timeout_safe_default(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    fake_anthropic.enqueue(ScriptedResponse(body=verdict_message(verdict()), delay_s=30))
    judge = make_judge(timeout=0.3)

    result = judge_once(judge)

    assert_safe_default(result, "APITimeoutError", "judge model call failed")
    # The reply was never waited for: the server holds it for 30 s. (A tighter wall-clock bound
    # failed on a loaded machine; the timeout error itself shows the client gave up first.)
    assert result.duration_s < 30


def test_an_unreachable_api_ends_in_a_connection_error_safe_default() -> None:
    import anthropic

    client = anthropic.AsyncAnthropic(api_key=API_KEY, base_url=f"http://127.0.0.1:{free_port()}",
                                      max_retries=0)
    result = judge_once(AnthropicJudge(client=client))
    assert_safe_default(result, "APIConnectionError")


def test_an_auth_error_names_the_api_message_but_never_the_key(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    fake_anthropic.enqueue(error_response(401, message=f"invalid x-api-key {API_KEY}"))
    result = judge_once(make_judge())
    assert_safe_default(result, "AuthenticationError", "HTTP 401", "invalid x-api-key [redacted]")


def test_a_refusal_ends_in_a_safe_default_without_a_repair(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    fake_anthropic.enqueue(refusal_message())
    result = judge_once(make_judge())
    assert_safe_default(result, "Refusal", "refusal")
    assert result.attempts == 1
    assert len(fake_anthropic.message_requests) == 1


def test_a_reply_cut_at_max_tokens_ends_in_a_safe_default(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    fake_anthropic.enqueue(max_tokens_message())
    result = judge_once(make_judge(max_tokens=512))
    assert_safe_default(result, "MaxTokensExceeded", "max_tokens=512")
    assert len(fake_anthropic.message_requests) == 1


def test_malformed_json_is_repaired_by_one_more_call_that_shows_the_error(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    fake_anthropic.enqueue(verdict_message('{"grounded_claims": [,]}'))

    result = judge_once(make_judge())

    assert result.error_type is None
    assert result.attempts == 2
    assert len(result.output.grounded_claims) == 2
    assert result.usage is not None and result.usage.input_tokens == 2 * 1200
    repair = fake_anthropic.last_request.body["messages"]
    assert [m["role"] for m in repair] == ["user", "assistant", "user"]
    assert repair[1]["content"] == [{"type": "text", "text": '{"grounded_claims": [,]}'}]
    assert "not valid JSON" in repair[2]["content"][0]["text"]


def test_invalid_json_twice_abstains_with_the_parse_error(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    fake_anthropic.enqueue(verdict_message("I think it is grounded."),
                           verdict_message("Still grounded, I promise."))
    result = judge_once(make_judge())
    assert_safe_default(result, "InvalidJSON", "after one repair attempt", "not valid JSON")
    assert result.attempts == 2
    assert len(fake_anthropic.message_requests) == 2


def test_a_fenced_json_reply_is_read_without_a_repair(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    data = verdict(grounded=[claim("CPU reached 97%.")])
    fake_anthropic.enqueue(verdict_message(f"Here it is:\n```json\n{json.dumps(data)}\n```"))
    result = judge_once(make_judge())
    assert result.error_type is None and result.attempts == 1


def test_schema_violations_that_survive_the_repair_are_salvaged_claim_by_claim(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    broken = verdict(
        grounded=[claim("CPU utilisation on host db-prod-1 reached 97% at 14:02 UTC"),
                  {"text": "Request rate dropped to 12 RPS", "evidence_refs": ["E2"]}],
        ungrounded=[claim("The spike was caused by a runaway query", "inference", []),
                    "not a claim"],
        grounding_score=7,
    )
    fake_anthropic.enqueue(verdict_message(broken), verdict_message(broken))

    result = judge_once(make_judge())

    assert result.error_type == "SchemaViolation"
    assert result.attempts == 2
    output = result.output
    assert not output.abstained
    assert [c.text for c in output.grounded_claims] == [
        "CPU utilisation on host db-prod-1 reached 97% at 14:02 UTC"]
    assert [c.type for c in output.ungrounded_claims] == [EvidenceType.INFERENCE]
    assert output.grounding_score == 0.5
    for dropped in ("grounded_claims[1]", "ungrounded_claims[1]", "grounding_score"):
        assert dropped in output.explanation
    repair_turn = fake_anthropic.last_request.body["messages"][2]["content"][0]["text"]
    assert "grounding_score" in repair_turn


def test_a_schema_violation_with_no_valid_claim_abstains(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    empty = {"grounded_claims": [{"text": 3}], "is_grounded": "yes"}
    fake_anthropic.enqueue(verdict_message(empty), verdict_message(empty))
    result = judge_once(make_judge())
    assert_safe_default(result, "SchemaViolation", "schema violation")


def test_a_failed_repair_call_still_salvages_the_first_reply(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    partial = verdict(grounded=[claim("CPU reached 97%.")], decision_status="maybe")
    fake_anthropic.enqueue(verdict_message(partial), server_error())
    result = judge_once(make_judge())
    assert result.error_type == "SchemaViolation"
    assert [c.text for c in result.output.grounded_claims] == ["CPU reached 97%."]
    assert "decision_status" in result.output.explanation


def test_a_bad_tool_call_is_answered_with_an_error_tool_result_before_the_repair(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    bad = tool_use_message(verdict(grounded=[claim("CPU reached 97%.")], grounding_score="high"))
    fake_anthropic.enqueue(bad)

    result = judge_once(make_judge(output_mode="tool"))

    assert result.error_type is None and result.attempts == 2
    messages = fake_anthropic.last_request.body["messages"]
    tool_use = messages[1]["content"][0]
    assert tool_use["type"] == "tool_use"
    result_block, text_block = messages[2]["content"]
    assert result_block["type"] == "tool_result" and result_block["is_error"] is True
    assert result_block["tool_use_id"] == tool_use["id"]
    assert "grounding_score" in result_block["content"]
    assert "record_grounding_verdict" in text_block["text"]


def test_an_abstaining_judge_reply_is_kept_as_a_real_abstain(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    fake_anthropic.enqueue(verdict_message(verdict(
        decision_status="abstain", abstain_reason="the evidence is truncated mid-row")))
    result = judge_once(make_judge())
    assert result.error_type is None
    assert result.output.abstain_reason == "the evidence is truncated mid-row"


def test_unusable_input_is_a_safe_default_not_an_exception(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    judge = make_judge()
    bad_evidence = asyncio.run(judge.judge_verdict(synthesis=INCIDENT_ANSWER,
                                                   evidence=typing.cast(typing.Any, 42)))
    bad_synthesis = asyncio.run(judge.judge_verdict(synthesis=typing.cast(typing.Any, None),
                                                    evidence=INCIDENT_EVIDENCE))
    assert_safe_default(bad_evidence, "InvalidInput", "evidence must be")
    assert_safe_default(bad_synthesis, "InvalidInput", "synthesis must be a str")
    assert fake_anthropic.message_requests == []
