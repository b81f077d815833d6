"""The gate fails closed: with on_low="raise" or "recover", invalid settings or a call that
cannot be judged raise; nothing unchecked gets through. In observe mode grounding stays off
and every unjudged call is counted in telemetry."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from gsar_otel.config import SettingsError
from gsar_otel.core.model import Decision
from gsar_otel.decorator import GroundingError, grounded
from tests.telemetry.helpers import CPU_ROW, Otel, ScriptedJudge, grounded_output

ANSWER = "CPU on db-prod-1 reached 97% at 14:02."
"""Grounded by CPU_ROW in full: a gate lets it through."""

# (variable, value, what the message must say)
INVALID = [
    ("GSAR_PROCEED", "2", "GSAR_PROCEED must be a number in [0, 1], got '2'"),
    ("GSAR_PROCEED", "abc", "GSAR_PROCEED must be a number in [0, 1], got 'abc'"),
    ("GSAR_SAMPLE_RATE", "5", "GSAR_SAMPLE_RATE must be a number in [0, 1], got '5'"),
    ("GSAR_K_MAX", "-1", "GSAR_K_MAX must be an integer >= 0, got '-1'"),
    ("GSAR_CONFIG", "{missing}", "named by GSAR_CONFIG"),
]
IDS = [f"{name}={value}" for name, value, _ in INVALID]


def regenerate(synthesis: str, judge_output: Any) -> str:
    return synthesis


def gate(on_low: str, calls: list[str], *, is_async: bool, **options: Any) -> Any:
    if on_low == "recover":
        options.setdefault("regenerate_fn", regenerate)
    decorate = grounded(judge=ScriptedJudge([grounded_output()]), on_low=on_low,  # type: ignore[call-overload]
                        evidence=lambda call: [CPU_ROW], **options)
    if is_async:
        async def agent_async() -> str:
            calls.append("ran")
            return ANSWER

        return decorate(agent_async)

    def agent() -> str:
        calls.append("ran")
        return ANSWER

    return decorate(agent)


def call(fn: Any, is_async: bool) -> Any:
    return asyncio.run(fn()) if is_async else fn()


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("on_low", ["raise", "recover"])
@pytest.mark.parametrize(("variable", "value", "message"), INVALID, ids=IDS)
def test_an_invalid_setting_makes_a_gate_raise_naming_the_variable_on_every_call(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, variable: str, value: str,
        message: str, on_low: str, is_async: bool) -> None:
    monkeypatch.setenv(variable, value.format(missing=tmp_path / "missing.json"))
    calls: list[str] = []
    agent = gate(on_low, calls, is_async=is_async)
    for _ in range(2):
        with pytest.raises(SettingsError) as raised:
            call(agent, is_async)
        assert message in str(raised.value)
        assert on_low in str(raised.value)
    assert calls == []  # the answer was never produced, so it cannot leak unchecked


@pytest.mark.parametrize(("variable", "value", "message"), INVALID, ids=IDS)
def test_in_observe_mode_an_invalid_setting_is_counted_on_every_call(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, otel: Otel, variable: str, value: str,
        message: str) -> None:
    monkeypatch.setenv(variable, value.format(missing=tmp_path / "missing.json"))
    calls: list[str] = []
    agent = gate("observe", calls, is_async=False)
    assert [agent() for _ in range(3)] == [ANSWER] * 3
    assert calls == ["ran"] * 3
    points = otel.points("gsar.evaluations.degraded")
    key = frozenset({("gsar.function", agent.__qualname__),
                     ("gsar.degraded.reason", "invalid_settings")})
    assert points[key].value == 3
    assert otel.evaluate_spans() == []


class Report:
    text = ANSWER


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("on_low", ["raise", "recover"])
def test_a_gate_whose_function_returns_no_str_and_has_no_synthesis_raises(
        on_low: str, is_async: bool) -> None:
    options: dict[str, Any] = {"regenerate_fn": regenerate} if on_low == "recover" else {}
    decorate = grounded(judge=ScriptedJudge([grounded_output()]), on_low=on_low,  # type: ignore[call-overload]
                        evidence=lambda call: [CPU_ROW], **options)

    def agent() -> dict[str, str]:
        return {"answer": ANSWER}

    async def agent_async() -> dict[str, str]:
        return {"answer": ANSWER}

    fn = decorate(agent_async if is_async else agent)
    with pytest.raises(GroundingError) as raised:
        call(fn, is_async)
    result = raised.value.result
    assert result.final_decision is Decision.ABSTAIN
    assert result.judge_errors == ("TypeError",)
    assert "pass synthesis=" in str(raised.value)


class Boom(BaseException):
    """A BaseException subclass from the caller's extractor."""


@pytest.mark.parametrize("error", [Boom, GeneratorExit, asyncio.CancelledError],
                         ids=lambda e: e.__name__)
@pytest.mark.parametrize("which", ["evidence", "synthesis"])
def test_an_extractor_raising_a_base_exception_never_reaches_an_observe_caller(
        otel: Otel, which: str, error: type[BaseException]) -> None:
    def extractor(*_: Any) -> Any:
        raise error()

    options: dict[str, Any] = {"synthesis": lambda report: report.text, which: extractor}

    @grounded(judge=ScriptedJudge([grounded_output()]), **options)
    def agent() -> Report:
        return RESULT

    RESULT = Report()
    assert agent() is RESULT
    span = otel.one_evaluate_span()
    assert dict(span.attributes or {})["error.type"] == error.__name__


@pytest.mark.parametrize("error", [Boom, GeneratorExit], ids=lambda e: e.__name__)
def test_an_extractor_raising_a_base_exception_closes_the_gate(error: type[BaseException]
                                                                ) -> None:
    def extractor(call: Any) -> Any:
        raise error()

    @grounded(judge=ScriptedJudge([grounded_output()]), on_low="raise", evidence=extractor)
    def agent() -> str:
        return ANSWER

    with pytest.raises(GroundingError) as raised:
        agent()
    assert raised.value.result.judge_errors == (error.__name__,)
    assert "evidence extractor raised" in str(raised.value)


def test_keyboard_interrupt_from_an_extractor_still_propagates() -> None:
    def extractor(call: Any) -> Any:
        raise KeyboardInterrupt

    @grounded(judge=ScriptedJudge([grounded_output()]), evidence=extractor)
    def agent() -> str:
        return ANSWER

    with pytest.raises(KeyboardInterrupt):
        agent()


def test_valid_settings_still_judge_and_let_a_grounded_answer_through(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GSAR_PROCEED", "0.9")
    calls: list[str] = []
    assert gate("raise", calls, is_async=False)() == ANSWER
    assert calls == ["ran"]


class SelfCancellingJudge:
    name = "self-cancelling"

    async def judge(self, *, synthesis: str, evidence: Any) -> Any:
        raise asyncio.CancelledError  # nobody cancelled the caller


def test_a_judge_raising_cancelled_error_by_itself_never_reaches_a_plain_sync_call(
        otel: Otel) -> None:
    @grounded(judge=SelfCancellingJudge(), evidence=lambda call: [CPU_ROW])
    def agent() -> str:
        return ANSWER

    assert agent() == ANSWER
    span = otel.one_evaluate_span()
    assert dict(span.attributes or {})["gsar.decision"] == "abstain"
    [judge_span] = otel.spans("gsar.judge")
    assert dict(judge_span.attributes or {})["gsar.judge.error_type"] == "CancelledError"

    @grounded(judge=SelfCancellingJudge(), on_low="raise", evidence=lambda call: [CPU_ROW])
    def gated() -> str:
        return ANSWER

    with pytest.raises(GroundingError) as raised:
        gated()
    assert raised.value.result.judge_errors == ("CancelledError",)
