"""Evaluator settings are validated up front; evaluate_sync works from any caller."""

from __future__ import annotations

import asyncio

import pytest

from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.model import Decision, GSARThresholds
from gsar_otel.runtime.loop import run_sync
from tests.core.scripted import PROCEED, REGENERATE, Recorder, ScriptedJudge

ANSWER = "Disk usage is high on the web tier."
EVIDENCE = "[tool=df] disk usage high on web tier"


@pytest.mark.parametrize(
    ("setting", "value", "message"),
    [
        ("k_max", -1, r"k_max must be an integer >= 0, got -1"),
        ("k_max", 1.5, r"k_max must be an integer >= 0"),
        ("k_max", True, r"k_max must be an integer >= 0"),
        ("max_rounds", 0, r"max_rounds must be >= 1, got 0"),
        ("max_rounds", -3, r"max_rounds must be an integer >= 0"),
        ("max_regenerations", -1, r"max_regenerations must be an integer >= 0"),
        ("contradiction_penalty", 2, r"contradiction_penalty must be a finite number in \[0, 1\]"),
        ("contradiction_penalty", float("nan"), r"contradiction_penalty"),
        ("contradiction_penalty", float("inf"), r"contradiction_penalty"),
        ("default_unknown", -0.5, r"default_unknown"),
        ("deadline_s", 0, r"deadline_s must be a positive number of seconds, got 0"),
        ("deadline_s", -1.0, r"deadline_s must be a positive number"),
        ("deadline_s", float("inf"), r"deadline_s must be a positive number"),
        ("deadline_s", "10", r"deadline_s must be a positive number"),
        ("weight_map", {"tool_match": 1.5}, r"weight_map\['tool_match'\]"),
        ("weight_map", {"tool_match": float("nan")}, r"weight_map\['tool_match'\]"),
        ("weight_map", {"gut_feeling": 0.5}, r"weight_map key 'gut_feeling'"),
        ("thresholds", {"proceed": 0.9}, r"thresholds must be a GSARThresholds"),
        ("regenerate_fn", "rewrite it", r"regenerate_fn must be callable or None, got str"),
        ("replan_fn", 42, r"replan_fn must be callable or None, got int"),
    ],
)
def test_an_invalid_setting_is_rejected_naming_it(setting, value, message):
    with pytest.raises(ValueError, match=message):
        GSAREvaluator(ScriptedJudge(PROCEED), **{setting: value})


def test_a_judge_without_a_judge_method_is_rejected():
    with pytest.raises(ValueError, match="judge must have an async judge"):
        GSAREvaluator(object())  # type: ignore[arg-type]


def test_valid_settings_are_kept_and_a_partial_weight_map_is_merged():
    evaluator = GSAREvaluator(ScriptedJudge(PROCEED), k_max=0, max_rounds=1,
                              thresholds=GSARThresholds(proceed=0.7, regenerate=0.7),
                              contradiction_penalty=1, weight_map={"inference": 0.3},
                              deadline_s=5)
    assert (evaluator.k_max, evaluator.max_rounds, evaluator.deadline_s) == (0, 1, 5)
    assert evaluator.contradiction_penalty == 1.0
    assert evaluator.weight_map["inference"] == 0.3
    assert evaluator.weight_map["specific_data"] == 0.95


def test_evaluate_sync_works_outside_an_event_loop():
    calls = Recorder(regenerate_returns=["Disk usage is high on every web node."])
    evaluator = GSAREvaluator(ScriptedJudge(REGENERATE, PROCEED), calls.regenerate)
    result = evaluator.evaluate_sync(report_synthesis=ANSWER, evidence_corpus=EVIDENCE)
    assert result.final_decision is Decision.PROCEED
    assert result.rounds == 2


def test_evaluate_sync_works_inside_a_running_event_loop():
    evaluator = GSAREvaluator(ScriptedJudge(PROCEED))

    async def caller() -> Decision:
        # A sync helper called from async code: there is already a loop in this thread.
        result = evaluator.evaluate_sync(report_synthesis=ANSWER, evidence_corpus=EVIDENCE)
        return result.final_decision

    assert asyncio.run(caller()) is Decision.PROCEED


def test_run_sync_propagates_exceptions_unchanged_from_inside_a_loop():
    error = KeyError("missing")

    async def fails() -> None:
        raise error

    async def caller() -> None:
        run_sync(fails())

    with pytest.raises(KeyError) as raised:
        asyncio.run(caller())
    assert raised.value is error


def test_two_tier_thresholds_skip_regeneration_entirely():
    calls = Recorder(regenerate_returns=["unused"], replan_returns=[(ANSWER, EVIDENCE + "\nmore")])
    two_tier = GSARThresholds(proceed=0.8, regenerate=0.8)
    evaluator = GSAREvaluator(ScriptedJudge(REGENERATE, PROCEED), calls.regenerate, calls.replan,
                              thresholds=two_tier)
    result = evaluator.evaluate_sync(report_synthesis=ANSWER, evidence_corpus=EVIDENCE)
    assert [e.decision for e in result.trajectory] == [Decision.REPLAN, Decision.PROCEED]
    assert calls.regenerate_calls == []
