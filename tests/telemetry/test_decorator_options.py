"""Decorator usage: bare and with options, signatures kept, sampling, evidence, settings."""

from __future__ import annotations

import asyncio
import inspect
import threading
from typing import Any

import pytest

from gsar_otel import Evidence, GroundingError, grounded, plugins, record_evidence, tool_evidence
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.decorator.api import GroundedCall, merge_evidence
from tests.telemetry.helpers import (
    ANSWER,
    CPU_ROW,
    WRONG_FACT_ANSWER,
    Otel,
    ScriptedJudge,
    grounded_output,
    wrong_fact_output,
)


class JudgePlugin:
    """Offers the judge 'scripted' and counts how often it is built."""

    def __init__(self) -> None:
        self.built: list[tuple[str, str | None]] = []
        self.judge = ScriptedJudge(outputs=[grounded_output()])

    @plugins.hookimpl
    def gsar_make_judge(self, name: str, model: str | None) -> Any:
        if name != "scripted":
            return None
        self.built.append((name, model))
        return self.judge

    @plugins.hookimpl
    def gsar_judge_names(self) -> list[str]:
        return ["scripted"]


def test_bare_and_called_forms_keep_name_doc_and_signature(otel: Otel) -> None:
    def plain(question: str, *, verbose: bool = False) -> str:
        """Answer a question."""
        return ANSWER

    async def coro(question: str) -> str:
        return ANSWER

    bare = grounded(plain)
    called = grounded(judge=ScriptedJudge())(plain)
    for wrapped in (bare, called):
        assert wrapped.__name__ == "plain"
        assert wrapped.__doc__ == "Answer a question."
        assert wrapped.__wrapped__ is plain  # type: ignore[attr-defined]
        assert inspect.signature(wrapped) == inspect.signature(plain)
    assert inspect.iscoroutinefunction(grounded(judge=ScriptedJudge())(coro))


def test_sample_rate_zero_never_judges_and_one_always_does(otel: Otel) -> None:
    never, always = ScriptedJudge(), ScriptedJudge()

    @grounded(judge=never, sample_rate=0.0)
    def skipped() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    @grounded(judge=always, sample_rate=1.0)
    def judged() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    for _ in range(20):
        assert skipped() == ANSWER
        assert judged() == ANSWER
    assert len(never.seen) == 0
    assert len(always.seen) == 20
    assert len(otel.evaluate_spans()) == 20


def test_a_partial_sample_rate_judges_about_that_share_of_calls(otel: Otel) -> None:
    judge = ScriptedJudge()

    @grounded(judge=judge, sample_rate=0.5)
    def agent() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    for _ in range(200):
        agent()
    assert 60 <= len(judge.seen) <= 140


def test_gsar_sample_rate_scales_the_decorators_rate(otel: Otel,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GSAR_SAMPLE_RATE", "0")
    judge = ScriptedJudge()

    @grounded(judge=judge)
    def agent() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    agent()
    assert judge.seen == []


def test_gsar_disabled_turns_the_decorator_into_a_plain_call(
        otel: Otel, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GSAR_DISABLED", "true")
    judge = ScriptedJudge()

    @grounded(judge=judge)
    def agent() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    assert agent() == ANSWER
    assert judge.seen == []
    assert otel.spans() == []


def test_an_invalid_setting_turns_grounding_off_with_a_warning_not_an_error(
        otel: Otel, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("GSAR_SAMPLE_RATE", "lots")
    judge = ScriptedJudge()

    @grounded(judge=judge)
    def agent() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    assert agent() == ANSWER
    assert judge.seen == []
    assert "GSAR_SAMPLE_RATE must be a number in [0, 1], got 'lots'" in caplog.text


def test_the_evidence_extractor_sees_the_call_and_its_items_follow_the_recorded_ones(
        otel: Otel) -> None:
    judge = ScriptedJudge()
    calls: list[GroundedCall] = []

    def from_call(call: GroundedCall) -> list[Any]:
        calls.append(call)
        return ["from the extractor", {"id": "alert", "content": "[signal] alert_id=A-1"}]

    @tool_evidence(source="metrics")
    def query_metrics(host: str) -> str:
        return f"host={host} cpu_pct=97.2"

    @grounded(judge=judge, evidence=from_call)
    def agent(host: str, *, depth: int = 1) -> str:
        query_metrics(host)
        record_evidence("log line", id="E2")
        return ANSWER

    agent("db-prod-1", depth=3)
    [call] = calls
    assert (call.args, dict(call.kwargs), call.result) == (("db-prod-1",), {"depth": 3}, ANSWER)
    assert [item.id for item in call.collected] == ["E1", "E2"]
    [(_, evidence)] = judge.seen
    assert [(item.id, item.content) for item in evidence] == [
        ("E1", "host=db-prod-1 cpu_pct=97.2"),
        ("E2", "log line"),
        ("E3", "from the extractor"),
        ("alert", "[signal] alert_id=A-1"),
    ]
    assert evidence.items[0].source == "metrics"


def test_merging_renumbers_only_colliding_ids_to_free_ones() -> None:
    collected = [Evidence("E1", "a"), Evidence("E3", "b")]
    extra = EvidenceSet.coerce(["c", "d", {"id": "E3", "content": "e"}])
    merged = merge_evidence(collected, extra)
    # "c" and "e" collide; "d" keeps its own E2, so the renamed ones take E4 and E5
    assert [(i.id, i.content) for i in merged] == [
        ("E1", "a"), ("E3", "b"), ("E4", "c"), ("E2", "d"), ("E5", "e")]


def test_evidence_recorded_in_a_nested_grounded_call_also_counts_for_the_outer_one(
        otel: Otel) -> None:
    outer_judge, inner_judge = ScriptedJudge(), ScriptedJudge()

    @grounded(judge=inner_judge)
    def sub_agent() -> str:
        record_evidence("inner row")
        return "Inner answer."

    @grounded(judge=outer_judge)
    def orchestrator() -> str:
        record_evidence("outer row")
        sub_agent()
        return ANSWER

    orchestrator()
    assert [i.content for i in inner_judge.seen[0][1]] == ["inner row"]
    assert [i.content for i in outer_judge.seen[0][1]] == ["outer row", "inner row"]


def test_the_default_judge_comes_from_settings_and_is_built_once(
        otel: Otel, monkeypatch: pytest.MonkeyPatch) -> None:
    plugin = JudgePlugin()
    plugins.register(plugin)
    monkeypatch.setenv("GSAR_JUDGE", "scripted")
    monkeypatch.setenv("GSAR_JUDGE_MODEL", "model-x")

    @grounded
    async def agent() -> str:
        record_evidence(CPU_ROW)
        return "CPU on db-prod-1 reached 97% at 14:02."

    async def main() -> None:
        await asyncio.gather(*(agent() for _ in range(5)))

    asyncio.run(main())
    assert plugin.built == [("scripted", "model-x")]
    assert len(plugin.judge.seen) == 5


def test_explicit_arguments_beat_environment_variables(
        otel: Otel, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GSAR_PROCEED", "0.95")
    monkeypatch.setenv("GSAR_REGENERATE", "0.9")
    monkeypatch.setenv("GSAR_CONTRADICTION_PENALTY", "0.1")

    @grounded(judge=ScriptedJudge(), thresholds={"proceed": 0.6, "regenerate": 0.5},
              contradiction_penalty=0.7)
    def explicit() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    @grounded(judge=ScriptedJudge())
    def from_env() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    explicit()
    from_env()
    by_function = {dict(s.attributes or {})["gsar.function"].rsplit(".", 1)[-1]:
                   dict(s.attributes or {}) for s in otel.evaluate_spans()}
    assert (by_function["explicit"]["gsar.thresholds.proceed"],
            by_function["explicit"]["gsar.contradiction_penalty"],
            by_function["explicit"]["gsar.decision"]) == (0.6, 0.7, "proceed")
    assert (by_function["from_env"]["gsar.thresholds.proceed"],
            by_function["from_env"]["gsar.thresholds.regenerate"],
            by_function["from_env"]["gsar.contradiction_penalty"],
            by_function["from_env"]["gsar.decision"]) == (0.95, 0.9, 0.1, "replan")


def test_the_contradiction_policy_option_beats_the_environment(
        otel: Otel, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GSAR_CONTRADICTION_POLICY", "score")

    @grounded(judge=ScriptedJudge([wrong_fact_output()]), contradiction_policy="cap")
    def capped() -> str:
        record_evidence(CPU_ROW)
        return WRONG_FACT_ANSWER

    @grounded(judge=ScriptedJudge([wrong_fact_output()]))
    def from_env() -> str:
        record_evidence(CPU_ROW)
        return WRONG_FACT_ANSWER

    capped()
    from_env()
    by_function = {dict(s.attributes or {})["gsar.function"].rsplit(".", 1)[-1]:
                   dict(s.attributes or {}) for s in otel.evaluate_spans()}
    assert [by_function["capped"][key] for key in (
        "gsar.contradiction.policy", "gsar.contradiction.capped", "gsar.decision")] == [
        "cap", True, "regenerate"]
    assert [by_function["from_env"][key] for key in (
        "gsar.contradiction.policy", "gsar.contradiction.capped", "gsar.decision")] == [
        "score", False, "proceed"]


def test_a_gate_raises_on_a_capped_contradiction_and_passes_under_score(otel: Otel) -> None:
    @grounded(judge=ScriptedJudge([wrong_fact_output()]), on_low="raise")
    def gated() -> str:
        record_evidence(CPU_ROW)
        return WRONG_FACT_ANSWER

    @grounded(judge=ScriptedJudge([wrong_fact_output()]), on_low="raise",
              contradiction_policy="score")
    def scored() -> str:
        record_evidence(CPU_ROW)
        return WRONG_FACT_ANSWER

    with pytest.raises(GroundingError) as raised:
        gated()
    assert raised.value.result.capped_by == ("contradiction",)
    assert ("S alone would proceed; capped at regenerate by a contradicted or unsupported "
            "tool-backed claim "
            "(contradiction_policy=cap)") in str(raised.value)
    assert scored() == WRONG_FACT_ANSWER


def test_the_decorators_policy_names_are_the_scorings() -> None:
    from gsar_otel.core.scoring import CONTRADICTION_POLICIES
    from gsar_otel.decorator import api

    assert api.CONTRADICTION_POLICIES == CONTRADICTION_POLICIES


def test_the_settings_file_supplies_thresholds_below_the_environment(
        otel: Otel, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    path = tmp_path / "gsar.json"
    path.write_text('{"thresholds": {"proceed": 0.6, "regenerate": 0.5}, "k_max": 0}')
    monkeypatch.setenv("GSAR_CONFIG", str(path))

    @grounded(judge=ScriptedJudge())
    def agent() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    agent()
    attributes = dict(otel.one_evaluate_span().attributes or {})
    assert (attributes["gsar.thresholds.proceed"], attributes["gsar.decision"]) == (0.6, "proceed")


class LoopRecordingJudge(ScriptedJudge):
    """Remembers the event loop each round ran on."""

    def __init__(self) -> None:
        super().__init__()
        self.loops: list[int] = []

    async def judge_verdict(self, **kwargs: Any) -> Any:
        self.loops.append(id(asyncio.get_running_loop()))
        return await super().judge_verdict(**kwargs)


def test_sync_calls_reuse_one_event_loop_per_thread(otel: Otel) -> None:
    judge = LoopRecordingJudge()

    @grounded(judge=judge)
    def agent() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    agent()
    agent()
    thread = threading.Thread(target=agent)
    thread.start()
    thread.join()
    assert judge.loops[0] == judge.loops[1]
    assert judge.loops[2] != judge.loops[0]
    assert len(otel.evaluate_spans()) == 3
