"""AnthropicJudge against the fake Messages API: verdicts, requests, usage, identity."""

from __future__ import annotations

import asyncio
import json
import logging
import typing

import anthropic
import pytest
from anthropic._data import DEPRECATED_MODELS
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import Evidence, EvidenceSet
from gsar_otel.core.model import Decision, EvidenceType
from gsar_otel.core.protocol import Judge, JudgeUsage
from gsar_otel.judges.anthropic.judge import (
    DEFAULT_MODEL,
    AnthropicJudge,
    model_accepts_sampling,
)
from gsar_otel.judges.anthropic.prompt import PROMPT_VERSION, SYSTEM_PROMPT, VERDICT_TOOL_NAME
from tests.anthropic.conftest import (
    API_KEY,
    INCIDENT_ANSWER,
    INCIDENT_EVIDENCE,
    JudgeFactory,
    sdk_client,
)
from tests.support.fake_anthropic import (
    FakeMessagesServer,
    claim,
    tool_use_message,
    verdict,
    verdict_message,
)


def judge_once(judge: AnthropicJudge, synthesis: str = INCIDENT_ANSWER,
               evidence: EvidenceSet = INCIDENT_EVIDENCE) -> typing.Any:
    return asyncio.run(judge.judge_verdict(synthesis=synthesis, evidence=evidence))


def test_a_normal_verdict_comes_back_as_a_judge_output_with_usage(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    fake_anthropic.enqueue(verdict_message(verdict(
        grounded=[claim("CPU utilisation on host db-prod-1 reached 97% at 14:02 UTC", refs=["E1"])],
        contradicted=[claim("Request rate dropped to 12 RPS at the same time", "tool_match",
                            ["E2"])],
    ), usage={"input_tokens": 310, "output_tokens": 142, "cache_read_input_tokens": 1480,
              "cache_creation_input_tokens": 0}, model="claude-sonnet-4-6"))
    judge = make_judge(model="claude-sonnet-4-6")

    result = judge_once(judge)

    assert result.error_type is None
    assert result.attempts == 1
    assert [c.evidence_refs for c in result.output.grounded_claims] == [("E1",)]
    assert result.output.contradicted_claims[0].type is EvidenceType.TOOL_MATCH
    assert result.usage == JudgeUsage(input_tokens=310, output_tokens=142,
                                      cache_read_input_tokens=1480, cache_creation_input_tokens=0)
    assert result.model == "claude-sonnet-4-6"
    assert result.duration_s > 0


def test_the_judge_satisfies_the_judge_protocol_and_its_plain_judge_returns_the_output(
        make_judge: JudgeFactory) -> None:
    judge = make_judge()
    assert isinstance(judge, Judge)
    output = asyncio.run(judge.judge(synthesis="CPU on db-prod-1 reached 97%.",
                                     evidence=INCIDENT_EVIDENCE))
    assert [c.text for c in output.grounded_claims] == ["CPU on db-prod-1 reached 97%."]


def test_the_request_carries_evidence_ids_model_cache_marker_and_schema(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    evidence = EvidenceSet(items=(Evidence("metrics-14", "host=db-prod-1 cpu_pct=97.2"),
                                  Evidence("E7", "alert_id=A-9912 severity=high",
                                           EvidenceType.SIGNAL_MATCH, source="pagerduty")))
    judge_once(make_judge(model="claude-opus-4-6"), "CPU on db-prod-1 reached 97%.", evidence)

    body = fake_anthropic.last_request.body
    assert body["model"] == "claude-opus-4-6"
    assert body["system"] == [{"type": "text", "text": SYSTEM_PROMPT,
                               "cache_control": {"type": "ephemeral"}}]
    user = fake_anthropic.last_request.user_text()
    assert '<item id="metrics-14" type="tool_match">' in user
    assert '<item id="E7" type="signal_match" source="pagerduty">' in user
    schema = body["output_config"]["format"]
    assert schema["type"] == "json_schema"
    assert schema["schema"]["properties"]["grounded_claims"]["items"]["required"] == [
        "text", "type", "evidence_refs", "conclusion"]
    assert "tools" not in body and "tool_choice" not in body


def test_prompt_caching_off_sends_the_system_prompt_without_a_cache_marker(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    judge_once(make_judge(prompt_caching=False, system_prompt="Judge strictly."))
    assert fake_anthropic.last_request.body["system"] == [{"type": "text",
                                                           "text": "Judge strictly."}]


def test_the_api_key_travels_only_in_the_auth_header(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    judge_once(make_judge())

    request = fake_anthropic.last_request
    assert API_KEY not in request.text
    carrying = [name for name, value in request.headers.items() if API_KEY in value]
    # anthropic 2.x sends the key as a bearer token; older SDKs used x-api-key.
    assert carrying in (["authorization"], ["x-api-key"])


def test_the_key_stays_out_of_repr_logs_reasons_and_the_sdk_span(
        fake_anthropic: FakeMessagesServer, caplog: pytest.LogCaptureFixture) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    client = sdk_client(fake_anthropic, open_telemetry={"tracer_provider": provider})
    judge = AnthropicJudge(client=client)
    fake_anthropic.enqueue(verdict_message("not json"), verdict_message("still not json"))
    caplog.set_level(logging.DEBUG)

    result = judge_once(judge)

    assert result.error_type == "InvalidJSON"
    assert API_KEY not in repr(judge) and API_KEY not in str(judge)
    assert API_KEY not in result.model_dump_json()
    assert API_KEY not in caplog.text
    spans = exporter.get_finished_spans()
    assert [span.name for span in spans] == ["anthropic.messages.create"] * 2
    for span in spans:
        assert API_KEY not in json.dumps(dict(span.attributes or {}), default=str)


def test_tool_mode_forces_one_tool_and_reads_its_input(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    fake_anthropic.enqueue(tool_use_message(verdict(
        grounded=[claim("CPU utilisation on host db-prod-1 reached 97% at 14:02 UTC")],
        ungrounded=[claim("Request rate dropped to 12 RPS at the same time", "inference", [])],
    )))
    judge = make_judge(output_mode="tool")

    result = judge_once(judge)

    body = fake_anthropic.last_request.body
    assert body["tool_choice"] == {"type": "tool", "name": VERDICT_TOOL_NAME,
                                   "disable_parallel_tool_use": True}
    assert [tool["name"] for tool in body["tools"]] == [VERDICT_TOOL_NAME]
    assert body["tools"][0]["input_schema"]["additionalProperties"] is False
    assert "output_config" not in body
    assert VERDICT_TOOL_NAME in fake_anthropic.last_request.user_text()
    assert result.error_type is None
    assert [c.type for c in result.output.ungrounded_claims] == [EvidenceType.INFERENCE]


def test_a_claim_with_an_unknown_type_is_kept_and_judged(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    fake_anthropic.enqueue(tool_use_message(verdict(grounded=[
        claim("CPU utilisation on host db-prod-1 reached 97% at 14:02 UTC", "metric_row", ["E1"]),
        claim("Request rate dropped to 12 RPS at the same time", "tool_match", ["E2"]),
    ])))
    evaluator = GSAREvaluator(make_judge(output_mode="tool"))

    result = evaluator.evaluate_sync(report_synthesis=INCIDENT_ANSWER,
                                     evidence_corpus=INCIDENT_EVIDENCE)

    types = [c.type for c in result.final_partition.grounded]
    assert types == ["metric_row", EvidenceType.TOOL_MATCH]
    assert not result.final_judge_output.abstained
    assert "unknown_evidence_type" in [a.kind for a in result.adjustments]
    assert result.final_decision is Decision.PROCEED


def test_a_conclusion_the_judge_marks_ungrounded_caps_the_decision_at_regenerate(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    answer = INCIDENT_ANSWER + " The spike was caused by a deploy."
    fake_anthropic.enqueue(verdict_message(verdict(
        grounded=[claim("CPU utilisation on host db-prod-1 reached 97% at 14:02 UTC"),
                  claim("Request rate dropped to 12 RPS at the same time", refs=["E2"]),
                  claim("Alert A-9912 fired", "signal_match", ["E3"])],
        ungrounded=[claim("The spike was caused by a deploy", "inference", [],
                          conclusion=True)])))

    result = GSAREvaluator(make_judge()).evaluate_sync(
        report_synthesis=answer + " Alert A-9912 fired.", evidence_corpus=INCIDENT_EVIDENCE)

    [cause] = result.final_partition.ungrounded
    assert cause.conclusion is True
    assert result.final_score >= 0.8  # S alone would proceed
    assert result.final_decision is Decision.REGENERATE
    assert result.conclusion_capped is True


def test_temperature_zero_is_sent_where_the_api_version_and_model_accept_it(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    judge = make_judge(model="claude-sonnet-4-6",
                       client_options={"default_headers": {"anthropic-version": "2023-06-01"}})
    judge_once(judge)
    assert fake_anthropic.last_request.body["temperature"] == 0.0
    assert fake_anthropic.last_request.headers["anthropic-version"] == "2023-06-01"


def test_temperature_is_left_out_where_the_sdk_api_version_removed_it(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    judge_once(make_judge(model="claude-sonnet-4-6"))
    request = fake_anthropic.last_request
    assert request.headers["anthropic-version"] >= "2026-10-21"
    assert "temperature" not in request.body


def test_a_rejected_temperature_is_dropped_and_the_call_repeated(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    from tests.support.fake_anthropic import error_response

    fake_anthropic.enqueue(error_response(400, message="`temperature` is deprecated for this "
                                                       "model."))
    judge = make_judge(model="claude-sonnet-4-6",
                       client_options={"default_headers": {"anthropic-version": "2023-06-01"}})

    async def twice() -> list[typing.Any]:
        # A client the caller gives belongs to one event loop: both rounds run in it.
        return [await judge.judge_verdict(synthesis=INCIDENT_ANSWER, evidence=INCIDENT_EVIDENCE)
                for _ in range(2)]

    first, second = asyncio.run(twice())

    sent = [r.body.get("temperature") for r in fake_anthropic.message_requests]
    assert sent == [0.0, None, None]
    assert first.error_type is None and second.error_type is None


@pytest.mark.parametrize(("model", "accepts"), [
    ("claude-sonnet-4-6", True), ("claude-haiku-4-5-20251001", True), ("claude-opus-4-7", False),
    ("claude-sonnet-5-5", False), ("claude-sonnet-4-20250514", True), ("claude-fable-5", False),
    ("anthropic.claude-opus-4-8-v1:0", False), ("my-gateway-model", True),
])
def test_models_from_the_4_7_generation_on_take_no_sampling_parameters(
        model: str, accepts: bool) -> None:
    assert model_accepts_sampling(model) is accepts


def test_the_default_model_is_a_current_sonnet_the_installed_sdk_names(
        fake_anthropic: FakeMessagesServer, monkeypatch: pytest.MonkeyPatch) -> None:
    literal = typing.get_args(anthropic.types.Model)[0]
    assert DEFAULT_MODEL in typing.get_args(literal)
    assert "sonnet" in DEFAULT_MODEL and DEFAULT_MODEL not in DEPRECATED_MODELS
    assert AnthropicJudge(client=sdk_client(fake_anthropic)).model == DEFAULT_MODEL
    monkeypatch.setenv("GSAR_JUDGE_MODEL", "claude-haiku-4-5")
    assert AnthropicJudge(client=sdk_client(fake_anthropic)).model == "claude-haiku-4-5"
    assert AnthropicJudge("claude-opus-4-7", client=sdk_client(fake_anthropic)).model == (
        "claude-opus-4-7")


def test_without_a_client_or_key_construction_explains_how_to_set_one() -> None:
    with pytest.raises(ValueError) as raised:
        AnthropicJudge()
    message = str(raised.value)
    assert "ANTHROPIC_API_KEY" in message and "StagedJudge" in message


@pytest.mark.parametrize(("options", "field"), [
    ({"max_tokens": 0}, "max_tokens"), ({"max_concurrency": -1}, "max_concurrency"),
    ({"timeout": 0}, "timeout"), ({"max_retries": -2}, "max_retries"),
    ({"temperature": 1.5}, "temperature"), ({"output_mode": "json"}, "output_mode"),
    ({"system_prompt": "  "}, "system_prompt"), ({"model": ""}, "model"),
])
def test_bad_arguments_are_refused_with_the_field_named(
        make_judge: JudgeFactory, options: dict[str, object], field: str) -> None:
    with pytest.raises(ValueError, match=field):
        make_judge(**options)


def test_a_sync_client_is_refused(fake_anthropic: FakeMessagesServer) -> None:
    client = anthropic.Anthropic(api_key=API_KEY, base_url=fake_anthropic.base_url)
    with pytest.raises(ValueError, match="AsyncAnthropic"):
        AnthropicJudge(client=client)  # type: ignore[arg-type]


def test_identity_names_backend_model_and_prompt_version(make_judge: JudgeFactory) -> None:
    plain = make_judge(model="claude-sonnet-4-6")
    assert plain.identity == {"backend": "anthropic", "model": "claude-sonnet-4-6",
                              "prompt_version": PROMPT_VERSION}
    custom = make_judge(model="claude-sonnet-4-6", system_prompt="Judge strictly.")
    assert custom.identity["prompt_version"].startswith(PROMPT_VERSION + "+system-")
    assert custom.identity != plain.identity
    assert plain.name == "anthropic"


def test_a_judge_built_from_the_environment_works_across_event_loops(
        fake_anthropic: FakeMessagesServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_anthropic.base_url)
    judge = AnthropicJudge(max_retries=0)

    first = judge_once(judge)
    second = judge_once(judge)

    assert first.error_type is None and second.error_type is None
    assert len(fake_anthropic.message_requests) == 2


def test_max_concurrency_bounds_the_calls_in_flight(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    import threading
    import time

    from tests.support.fake_anthropic import default_responder

    lock = threading.Lock()
    in_flight = peak = 0

    def slow(request: typing.Any) -> typing.Any:
        nonlocal in_flight, peak
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        time.sleep(0.15)
        with lock:
            in_flight -= 1
        return default_responder(request)

    fake_anthropic.respond_with(slow)
    judge = make_judge(max_concurrency=2)

    async def many() -> list[typing.Any]:
        return await asyncio.gather(*(judge.judge_verdict(synthesis=INCIDENT_ANSWER,
                                                          evidence=INCIDENT_EVIDENCE)
                                      for _ in range(5)))

    results = asyncio.run(many())

    assert all(r.error_type is None for r in results)
    assert peak == 2


def test_cancellation_propagates_and_frees_the_slot(
        fake_anthropic: FakeMessagesServer, make_judge: JudgeFactory) -> None:
    from tests.support.fake_anthropic import ScriptedResponse, verdict_message

    fake_anthropic.enqueue(ScriptedResponse(body=verdict_message(verdict()), delay_s=30))
    judge = make_judge(max_concurrency=1)

    async def cancel_then_judge() -> typing.Any:
        task = asyncio.create_task(judge.judge_verdict(synthesis=INCIDENT_ANSWER,
                                                       evidence=INCIDENT_EVIDENCE))
        while not fake_anthropic.message_requests:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return await asyncio.wait_for(judge.judge_verdict(synthesis=INCIDENT_ANSWER,
                                                          evidence=INCIDENT_EVIDENCE), 5)

    after = asyncio.run(cancel_then_judge())

    assert after.error_type is None
    assert len(fake_anthropic.message_requests) == 2


def test_importing_the_judge_module_does_not_import_the_sdk() -> None:
    import subprocess
    import sys

    code = ("import sys, gsar_otel, gsar_otel.judges.anthropic.judge, gsar_otel.judges.factory; "
            "print('anthropic' in sys.modules)")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True)
    assert shown.stdout.strip() == "False"
