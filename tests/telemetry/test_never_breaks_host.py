"""Judging and telemetry never change what the decorated function returns or raises, and the
current context is always restored."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest
from opentelemetry import context as otel_context
from opentelemetry import metrics
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import StatusCode

from gsar_otel import flush, grounded, plugins, record_evidence
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.otel import instruments as telemetry
from tests.telemetry.helpers import (
    ANSWER,
    CPU_ROW,
    BlockingJudge,
    FailingJudge,
    Otel,
    ScriptedJudge,
)


class Report:
    """A non-str agent result; judged through synthesis=."""

    def __init__(self, text: str) -> None:
        self.text = text


class AgentFailure(Exception):
    pass


class RaisingExporter(SpanExporter):
    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        raise RuntimeError("collector unreachable")


class RaisingProcessor(SpanProcessor):
    def on_start(self, span: Any, parent_context: Any = None) -> None:
        raise RuntimeError("processor broken on start")

    def on_end(self, span: ReadableSpan) -> None:
        raise RuntimeError("processor broken on end")


class RaisingInstrument:
    def add(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("instrument broken")

    record = add


class RaisingMeter(metrics.Meter):
    """A meter whose every instrument raises when used."""

    def __getattribute__(self, name: str) -> Any:
        if name.startswith("create_"):
            return lambda *args, **kwargs: RaisingInstrument()
        return super().__getattribute__(name)

    create_counter = create_up_down_counter = create_histogram = create_gauge = None  # type: ignore
    create_observable_counter = create_observable_gauge = None  # type: ignore
    create_observable_up_down_counter = None  # type: ignore


class RaisingMeterProvider(metrics.MeterProvider):
    def get_meter(self, name: str, *args: Any, **kwargs: Any) -> metrics.Meter:
        return RaisingMeter(name)


class OddName:
    """Neither a usable judge name nor a model id: its str() raises."""

    def __str__(self) -> str:
        raise ValueError("cannot be shown")

    __repr__ = __str__


class OddlyNamedJudge(ScriptedJudge):
    pass


@pytest.fixture
def broken_tracing() -> Iterator[TracerProvider]:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(RaisingExporter()))
    provider.add_span_processor(RaisingProcessor())
    telemetry.set_providers(tracer_provider=provider, meter_provider=RaisingMeterProvider())
    yield provider
    flush(5.0)
    telemetry.set_providers()


def decorate_both(**options: Any) -> list[Callable[[], Any]]:
    """The same agent as a sync and an async function, each decorated with ``options``."""

    @grounded(**options)
    def sync_agent() -> Any:
        record_evidence(CPU_ROW)
        return RESULT

    @grounded(**options)
    async def async_agent() -> Any:
        record_evidence(CPU_ROW)
        return RESULT

    return [sync_agent, lambda: asyncio.run(async_agent())]


RESULT: Any = None

FAILURE_CASES: dict[str, dict[str, Any]] = {
    "judge raises": {"judge": FailingJudge()},
    "judge returns garbage": {"judge": type("Garbage", (), {
        "judge": lambda self, **kw: asyncio.sleep(0, result={"not": "a verdict"})})()},
    "evidence extractor raises": {"judge": ScriptedJudge(),
                                  "evidence": lambda call: 1 / 0},
    "evidence extractor returns junk": {"judge": ScriptedJudge(), "evidence": lambda call: 42},
    "synthesis extractor raises": {"judge": ScriptedJudge(),
                                   "synthesis": lambda result: result.missing},
    "synthesis extractor returns a non-str": {"judge": ScriptedJudge(),
                                              "synthesis": lambda result: b"bytes"},
    "judge name and model cannot be shown": {"judge": OddlyNamedJudge(
        name=OddName(), model=OddName())},  # type: ignore[arg-type]
}


@pytest.mark.parametrize("case", list(FAILURE_CASES))
@pytest.mark.parametrize("mode", ["inline", "background"])
def test_the_very_same_object_comes_back_whatever_fails_inside(
        otel: Otel, case: str, mode: str) -> None:
    global RESULT
    for agent in decorate_both(mode=mode, **FAILURE_CASES[case]):
        RESULT = Report(ANSWER)
        before = otel_context.get_current()
        assert agent() is RESULT
        assert otel_context.get_current() == before
    assert flush(5.0)


@pytest.mark.parametrize("case", ["evidence extractor raises", "synthesis extractor raises",
                                  "synthesis extractor returns a non-str"])
def test_our_own_failures_are_visible_as_an_error_on_the_evaluate_span(
        otel: Otel, case: str) -> None:
    global RESULT
    RESULT = Report(ANSWER)
    options = {"synthesis": lambda result: result.text, **FAILURE_CASES[case]}
    sync_agent, _ = decorate_both(**options)
    assert sync_agent() is RESULT
    span = otel.one_evaluate_span()
    assert span.status.status_code is StatusCode.ERROR
    assert dict(span.attributes or {})["error.type"] in {
        "ZeroDivisionError", "AttributeError", "TypeError"}


def test_a_non_str_result_without_a_synthesis_extractor_is_returned_and_logged_once(
        otel: Otel, caplog: pytest.LogCaptureFixture) -> None:
    global RESULT
    RESULT = Report(ANSWER)
    sync_agent, _ = decorate_both(judge=ScriptedJudge())
    with caplog.at_level(logging.WARNING, logger="gsar_otel.decorator.api"):
        assert sync_agent() is RESULT
        assert sync_agent() is RESULT
    assert [r.message for r in caplog.records].count(
        "gsar: decorate_both.<locals>.sync_agent returned Report, not a str; pass synthesis= to "
        "@grounded to say which text to judge") == 1
    assert dict(otel.evaluate_spans()[0].attributes or {})["error.type"] == "TypeError"


@pytest.mark.parametrize("mode", ["inline", "background"])
def test_a_raising_exporter_processor_and_meter_change_nothing(
        broken_tracing: TracerProvider, mode: str, caplog: pytest.LogCaptureFixture) -> None:
    global RESULT
    with caplog.at_level(logging.DEBUG, logger="gsar_otel"):
        for agent in decorate_both(judge=ScriptedJudge(), mode=mode,
                                   synthesis=lambda result: result.text):
            RESULT = Report(ANSWER)
            before = otel_context.get_current()
            assert agent() is RESULT
            assert otel_context.get_current() == before
        assert flush(5.0)
    failures = {r.getMessage() for r in caplog.records}
    assert "gsar telemetry: starting the evaluate span failed" in failures
    assert "gsar telemetry: recording the result failed" in failures


def test_a_redactor_returning_a_non_string_drops_the_text_but_nothing_else(
        otel: Otel, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GSAR_CAPTURE_CONTENT", "true")

    class DictRedactor:
        @plugins.hookimpl
        def gsar_redact(self, text: str, kind: str) -> Any:
            return {"masked": text}

    plugins.register(DictRedactor())

    @grounded(judge=ScriptedJudge())
    def agent() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    assert agent() == ANSWER
    span = otel.one_evaluate_span()
    assert "gsar.synthesis" not in (span.attributes or {})
    assert dict(span.attributes or {})["gsar.score"] == 0.625
    assert all("gsar.claim.text" not in (e.attributes or {}) for e in span.events)


def test_an_unshowable_judge_name_falls_back_to_the_class_name(otel: Otel) -> None:
    @grounded(judge=OddlyNamedJudge(name=OddName(), model=OddName()))  # type: ignore[arg-type]
    def agent() -> str:
        return ANSWER

    assert agent() == ANSWER
    attributes = dict(otel.one_evaluate_span().attributes or {})
    assert attributes["gsar.judge.name"] == "OddlyNamedJudge"
    assert "gsar.judge.model" not in attributes


@pytest.mark.parametrize("mode", ["inline", "background"])
def test_the_users_own_exception_passes_through_untouched(otel: Otel, mode: str) -> None:
    error = AgentFailure("tool timed out")

    @grounded(judge=ScriptedJudge(), mode=mode)
    def sync_agent() -> str:
        record_evidence(CPU_ROW)
        raise error

    @grounded(judge=ScriptedJudge(), mode=mode)
    async def async_agent() -> str:
        raise error

    for call in (sync_agent, lambda: asyncio.run(async_agent())):
        before = otel_context.get_current()
        with pytest.raises(AgentFailure) as raised:
            call()
        assert raised.value is error
        assert error.__cause__ is None and error.__context__ is None
        assert otel_context.get_current() == before
    flush(5.0)
    assert otel.evaluate_spans() == []


def test_cancelling_an_async_call_in_the_function_propagates_and_restores_context(
        otel: Otel) -> None:
    @grounded(judge=ScriptedJudge())
    async def agent(gate: asyncio.Event) -> str:
        record_evidence(CPU_ROW)
        gate.set()
        await asyncio.sleep(10)
        return ANSWER

    async def main() -> None:
        gate = asyncio.Event()
        with otel.tracer.start_as_current_span("request"):
            before = otel_context.get_current()
            task = asyncio.create_task(agent(gate))
            await gate.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert otel_context.get_current() == before
        # evidence recorded after the call goes nowhere: the collector was reset
        assert record_evidence("late") is None

    asyncio.run(main())
    assert otel.evaluate_spans() == []


def test_cancelling_an_async_call_while_it_is_judged_ends_the_spans_and_propagates(
        otel: Otel) -> None:
    judge = BlockingJudge()

    @grounded(judge=judge)
    async def agent() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    async def main() -> None:
        before = otel_context.get_current()
        task = asyncio.create_task(agent())
        while not judge.started.is_set():
            await asyncio.sleep(0.001)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert otel_context.get_current() == before

    asyncio.run(main())
    span = otel.one_evaluate_span()
    assert span.status.status_code is StatusCode.ERROR
    assert dict(span.attributes or {})["error.type"] == "CancelledError"
    [judge_span] = otel.spans("gsar.judge")
    assert judge_span.status.status_code is StatusCode.ERROR
    assert judge_span.parent is not None and judge_span.parent.span_id == span.context.span_id


def test_context_is_restored_after_every_kind_of_call(otel: Otel) -> None:
    @grounded(judge=ScriptedJudge(), on_low="raise")
    def strict() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    @grounded(judge=FailingJudge())
    def failing() -> str:
        return ANSWER

    with otel.tracer.start_as_current_span("outer"):
        before = otel_context.get_current()
        with pytest.raises(Exception, match="not 'proceed'"):
            strict()
        assert otel_context.get_current() == before
        failing()
        assert otel_context.get_current() == before


def test_evidence_seen_by_the_judge_is_exactly_what_the_call_recorded(otel: Otel) -> None:
    judge = ScriptedJudge()

    @grounded(judge=judge)
    async def agent(row: str) -> str:
        record_evidence(row)
        await asyncio.sleep(0.01)
        return f"Answer from {row}."

    async def main() -> None:
        await asyncio.gather(agent("row A"), agent("row B"), agent("row C"))

    asyncio.run(main())
    seen = {synthesis: [item.content for item in evidence] for synthesis, evidence in judge.seen}
    assert seen == {"Answer from row A.": ["row A"], "Answer from row B.": ["row B"],
                    "Answer from row C.": ["row C"]}
    assert all(isinstance(e, EvidenceSet) for _, e in judge.seen)
