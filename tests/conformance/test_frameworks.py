"""Framework conformance: real agent frameworks with their real OpenTelemetry instrumentation
and an offline model, the sidecar in between, a receiver behind ``--forward``.

For each framework and each of three answers (correct; a wrong number; correct plus a cause no
evidence states) the sidecar must find the run, judge exactly the answer text against exactly
the tool's result (no final-answer text among the evidence), read it under the expected
convention, name it after the agent, and let only the correct answer proceed. Each case's
outcome is written to ``$GSAR_FRAMEWORK_VENVS/results/<case>.json`` for ``table.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest

from gsar_otel import semconv as sc
from tests.conformance.harness import (
    ANSWERS,
    CORRECT,
    ROW,
    Outcome,
    installed_versions,
    run_agent,
    venvs_root,
)


@dataclass(frozen=True)
class Case:
    id: str
    framework: str
    """As the table names it."""
    venv: str
    script: str
    convention: str
    function: str
    packages: tuple[str, ...]
    """Distributions whose versions the table shows."""
    mode: str = ""
    env: dict[str, str] = field(default_factory=dict)
    evidence: tuple[str, ...] = (ROW,)
    notes: str = ""
    answer_source: str = ""
    """Where the answer must be read from (``gsar.sidecar.answer_source``), when checked."""


CASES = (
    Case("pydantic-ai", "pydantic-ai (built-in instrumentation)", "pydantic-ai",
         "pydantic_ai_agent.py", "genai", "incident-bot", ("pydantic-ai-slim",),
         notes="FunctionModel; invoke_agent final_result, execute_tool gen_ai.tool.call.result"),
    Case("openai-agents", "openai-agents + OpenInference", "openai", "openai_agent.py",
         "openinference", "incident-bot",
         ("openai-agents", "openinference-instrumentation-openai-agents"), mode="agents",
         notes="OpenAIChatCompletionsModel on a fake server; TOOL output.value, LLM output"),
    Case("openai-v2", "openai + opentelemetry-instrumentation-openai-v2", "openai",
         "openai_agent.py", "genai", "incident-service",
         ("openai", "opentelemetry-instrumentation-openai-v2"), mode="openai-v2",
         env={"OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental",
              "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_ONLY"},
         notes="hand-written tool loop in an application span; role: tool input messages "
               "after the model's own tool call"),
    Case("langgraph", "LangGraph / LangChain create_agent + OpenInference", "langgraph",
         "langgraph_agent.py", "openinference", "incident-bot",
         ("langgraph", "langchain", "openinference-instrumentation-langchain"),
         notes="GenericFakeChatModel; graph-state output answered by its last AI message, "
               "ToolMessage matched by tool_call_id"),
    Case("smolagents-toolcalling", "smolagents ToolCallingAgent + OpenInference", "smolagents",
         "smolagents_agent.py", "openinference", "incident_bot.run",
         ("smolagents", "openinference-instrumentation-smolagents"), mode="toolcalling",
         notes="Model subclass; the final_answer TOOL span echoes the answer: not evidence"),
    Case("smolagents-code", "smolagents CodeAgent + OpenInference", "smolagents",
         "smolagents_agent.py", "openinference", "incident_bot.run",
         ("smolagents", "openinference-instrumentation-smolagents"), mode="code",
         notes="Model subclass writing code; final_answer(...) echoes the answer: not evidence"),
    Case("strands-default", "Strands Agents (default conventions)", "strands",
         "strands_agent.py", "genai", "incident-bot", ("strands-agents",), mode="default",
         notes="OpenAIModel on a fake streaming server; execute_tool gen_ai.choice event is the "
               "result, its gen_ai.tool.message the arguments"),
    Case("strands-latest", "Strands Agents (gen_ai_latest_experimental)", "strands",
         "strands_agent.py", "genai", "incident-bot", ("strands-agents",), mode="latest",
         env={"OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental"},
         notes="tool_call_response [{text}] blocks unwrapped"),
    Case("strands-openinference", "Strands Agents + OpenInference processor", "strands",
         "strands_agent.py", "genai", "incident-bot",
         ("strands-agents", "openinference-instrumentation-strands-agents"),
         mode="openinference",
         notes="StrandsAgentsToOpenInferenceProcessor before export; it keeps the gen_ai.* "
               "attributes, so the run is read as GenAI with OpenInference alongside"),
    Case("openllmetry-anthropic", "anthropic + OpenLLMetry (attributes)", "anthropic",
         "anthropic_agent.py", "genai", "incident-service",
         ("anthropic", "opentelemetry-instrumentation-anthropic"), mode="attributes",
         env={"TRACELOOP_TRACE_CONTENT": "true"},
         notes="hand-written tool loop in an application span; gen_ai.input.messages "
               "tool_call_response after the model's own tool_call"),
    Case("openllmetry-anthropic-logs", "anthropic + OpenLLMetry (log records)", "anthropic",
         "anthropic_agent.py", "root", "incident-service",
         ("anthropic", "opentelemetry-instrumentation-anthropic"), mode="logs",
         env={"TRACELOOP_TRACE_CONTENT": "true"},
         notes="use_attributes=False: gen_ai.user.message tool_result blocks and gen_ai.choice "
               "in log records tied to the application span (so read as the root run)"),
    Case("adk", "Google ADK (message capture on)", "adk", "adk_agent.py", "genai",
         "incident_bot", ("google-adk",), mode="current",
         env={"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"},
         notes="BaseLlm subclass; operation.details log records; the history renames call "
               "ids, so results are matched to the model's calls by tool name"),
    Case("adk-v1", "Google ADK (older span format)", "adk", "adk_agent.py", "genai",
         "incident_bot", ("google-adk",), mode="v1",
         env={"ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN": "1",
              "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"},
         notes="gcp.vertex.agent.tool_response {result} and call_llm "
               "gcp.vertex.agent.llm_response"),
    Case("vercel-ai-sdk", "Vercel AI SDK + @ai-sdk/otel (GenAI conventions)", "vercel",
         "agent.mjs", "genai", "incident-bot", ("ai", "@ai-sdk/otel"), mode="genai",
         notes="Node.js; generateText with MockLanguageModelV4; functionId names the agent"),
    Case("vercel-ai-sdk-legacy", "Vercel AI SDK + @ai-sdk/otel (LegacyOpenTelemetry)", "vercel",
         "agent.mjs", "vercel", "incident-bot", ("ai", "@ai-sdk/otel"), mode="legacy",
         notes="ai.generateText ai.response.text, ai.toolCall ai.toolCall.result"),
    Case("llamaindex", "LlamaIndex FunctionAgent + OpenInference", "llamaindex",
         "llamaindex_agent.py", "openinference", "FunctionAgent.run",
         ("llama-index-core", "openinference-instrumentation-llama-index"),
         answer_source="model_output",
         notes="OpenAI LLM on a fake streaming server; the run span's output is a cut "
               "StopEvent(...) repr, so the answer is the last LLM output; TOOL ToolOutput "
               "{blocks, raw_output} unwrapped"),
    Case("crewai", "CrewAI + OpenInference", "crewai", "crewai_agent.py", "openinference",
         "incident-crew.kickoff",
         ("crewai", "openinference-instrumentation-crewai", "openinference-instrumentation-openai"),
         mode="openinference", answer_source="run_span:raw",
         notes="LLM on a fake OpenAI server; the kickoff span's output is the CrewOutput JSON, "
               "read for its raw field"),
    Case("crewai-openllmetry", "CrewAI + OpenLLMetry", "crewai-openllmetry", "crewai_agent.py",
         "genai", "incident-bot",
         ("crewai", "opentelemetry-instrumentation-crewai", "opentelemetry-instrumentation-openai"),
         mode="openllmetry", env={"TRACELOOP_TRACE_CONTENT": "true"},
         answer_source="model_output",
         notes="no tool span: the result is read from the next chat's gen_ai.input.messages, "
               "verified by the model's own tool_call; the answer is the last chat output"),
    Case("crewai-native", "CrewAI (its own event-driven tracing)", "crewai", "crewai_agent.py",
         "genai", "incident-crew", ("crewai",), mode="native", answer_source="run_span",
         notes="crewai.telemetry.tracing.TraceSession with an OTLP exporter; invoke_workflow "
               "and execute_tool spans with GenAI attributes"),
    Case("langchain-openllmetry", "LangChain create_agent + OpenLLMetry (attributes)",
         "langchain-openllmetry", "langchain_openllmetry_agent.py", "genai", "incident-bot",
         ("langchain", "langgraph", "opentelemetry-instrumentation-langchain"),
         mode="attributes", env={"TRACELOOP_TRACE_CONTENT": "true"},
         answer_source="agent_span:outputs.messages",
         notes="GenericFakeChatModel; execute_tool carries the {output: ToolMessage, kwargs} "
               "envelope twice (traceloop.entity.output, gen_ai.tool.call.result): one item; "
               "the workflow's {outputs: {messages}} answered by its last AI message"),
    Case("langchain-openllmetry-events", "LangChain create_agent + OpenLLMetry (log records)",
         "langchain-openllmetry", "langchain_openllmetry_agent.py", "genai", "incident-bot",
         ("langchain", "langgraph", "opentelemetry-instrumentation-langchain"),
         mode="events", env={"TRACELOOP_TRACE_CONTENT": "true"},
         answer_source="model_output",
         notes="use_attributes=False: gen_ai.tool.message and gen_ai.choice log records on the "
               "graph's task spans; the tool span records no result"),
)


def _record(case: Case, outcome: Outcome | None, error: str = "") -> None:
    results = venvs_root() / "results"
    results.mkdir(parents=True, exist_ok=True)
    verdicts = [] if outcome is None else [
        {"answer": v.answer, "decision": v.decision,
         "convention": v.attribute(sc.GSAR_SIDECAR_CONVENTION),
         "function": v.attribute(sc.GSAR_FUNCTION), "evidence": v.evidence,
         "judged_answer": v.judged_answer} for v in (outcome.verdicts if outcome else [])]
    (results / f"{case.id}.json").write_text(json.dumps({
        "case": case.id, "framework": case.framework, "convention": case.convention,
        "versions": installed_versions(case.venv, case.packages), "notes": case.notes,
        "passed": not error, "error": error[-2000:], "verdicts": verdicts,
        "seconds": round(outcome.seconds, 1) if outcome else None}, indent=1))


def check(case: Case, outcome: Outcome) -> None:
    assert len(outcome.verdicts) == len(ANSWERS)
    assert outcome.forwarded > 0, "nothing reached the receiver behind --forward"
    for verdict in outcome.verdicts:
        what = f"{case.id}, answer {verdict.answer[:40]!r}"
        assert verdict.skipped is None, (
            f"{what}: skipped: {verdict.attribute(sc.GSAR_SIDECAR_SKIPPED_REASON)}")
        assert verdict.span is not None, f"{what}: no verdict in the run's trace"
        assert verdict.judged_answer == verdict.answer, (
            f"{what}: the judge was given {outcome.judged}")
        assert verdict.evidence == list(case.evidence), f"{what}: evidence {verdict.evidence}"
        assert all(a not in item for a in ANSWERS for item in verdict.evidence or ())
        assert verdict.attribute(sc.GSAR_SIDECAR_CONVENTION) == case.convention, what
        assert verdict.attribute(sc.GSAR_FUNCTION) == case.function, what
        if case.answer_source:
            assert verdict.attribute(sc.GSAR_SIDECAR_ANSWER_SOURCE) == case.answer_source, (
                f"{what}: answer read from {verdict.attribute(sc.GSAR_SIDECAR_ANSWER_SOURCE)}")
        if verdict.answer == CORRECT:
            assert verdict.decision == "proceed", f"{what}: {verdict.decision}"
        else:
            assert verdict.decision != "proceed", f"{what}: {verdict.decision}"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_the_sidecar_reads_the_framework_right(case: Case) -> None:
    outcome: Outcome | None = None
    try:
        outcome = run_agent(case.venv, case.script, mode=case.mode, env=case.env)
        check(case, outcome)
    except (AssertionError, Exception) as error:
        _record(case, outcome, f"{type(error).__name__}: {error}")
        raise
    _record(case, outcome)


def test_a_run_without_message_content_leaves_an_explained_mark_in_its_trace() -> None:
    """Google ADK 2.13 records no message content by default: no answer can be read, so each run
    gets a gsar.sidecar.skipped span in its own trace saying why and what to turn on."""
    outcome = run_agent("adk", "adk_agent.py", mode="current",
                        env={"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "false"})
    for verdict in outcome.verdicts:
        assert verdict.span is None and verdict.skipped is not None
        assert verdict.attribute(sc.GSAR_SIDECAR_SKIPPED_REASON) == "no_answer"
        assert "message content" in str(verdict.attribute(sc.GSAR_SIDECAR_SKIPPED_HINT))
        assert verdict.attribute(sc.GSAR_FUNCTION) == "incident_bot"
        parent = verdict.skipped.parent
        assert parent is not None and f"{verdict.skipped.context.trace_id:032x}" == (
            verdict.trace_id)


def test_model_calls_traced_alone_say_their_history_was_left_out() -> None:
    """The openai-v2 instrumentation with no application span around the tool loop: each model
    call is its own trace, the tool result only in the last call's history, the call that asked
    for it in another trace. The result is left out (anti-forgery), and the verdict says why and
    what to do: unverified_history, a hint naming --include-unverified."""
    outcome = run_agent("openai", "openai_agent.py", mode="openai-v2-calls",
                        answers=(CORRECT,), env={
                            "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental",
                            "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_ONLY"})
    (verdict,) = outcome.verdicts
    # no evidence left: the evaluation abstains (no_evidence) without calling the judge
    assert verdict.span is not None and verdict.judged_answer is None
    assert verdict.attribute(sc.GSAR_DEGRADED_REASON) == "no_evidence"
    assert verdict.attribute(sc.GSAR_SIDECAR_RUN_INCOMPLETE_REASON) == "unverified_history"
    assert verdict.attribute(sc.GSAR_SIDECAR_EVIDENCE_UNVERIFIED) == 1
    assert "--include-unverified" in str(verdict.attribute(sc.GSAR_SIDECAR_RUN_INCOMPLETE_HINT))
    assert verdict.decision != "proceed"
