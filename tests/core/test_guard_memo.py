"""The integrity guard's recorded report (a memo) stands in for the guard only for exactly the
verdict, answer, evidence, options and code it was computed from; on any other round the guard
runs (counted by wrapping ``check_judge_output``, never timed)."""

from __future__ import annotations

import ast
import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core import guard_memo, judge_round
from gsar_otel.core.evidence import Evidence, EvidenceSet
from gsar_otel.core.guard_memo import GUARD_MODULES, make_memo, memo_stats
from gsar_otel.core.integrity import IntegrityReport, check_judge_output
from gsar_otel.core.model import BUCKETS, Claim, JudgeOutput
from gsar_otel.core.protocol import GuardMemo, JudgeVerdict
from gsar_otel.core.scoring import WeightMap, gsar_score, resolve_weight_map
from tests.core.strategies import UNKNOWN_TYPES, evidence_types, rhos, unit_floats, weight_maps

ROOT = Path(__file__).resolve().parents[2]
SENTENCES = ["CPU on db-prod-1 reached 97% at 14:02.", "Alert A-1234 fired at 14:02.",
             "The request rate was 120 rps.", "Memory stayed at 41%.", "The cause was a deploy.",
             "p99 latency hit 850 ms after v2.3.1 shipped."]
ROWS = ["[tool=query_metrics] host=db-prod-1 cpu_pct=97.2 at 14:02:01",
        "[signal] alert_id=A-1234 fired_at=14:02:00", "host=api-gw-3 rps=118 mem_pct=41.0",
        "deploy v2.3.1 finished 13:58; p99_ms=850"]
REFS = [(), ("E1",), ("E2",), ("E3", "E1"), ("E9",), ("E2", "E7"), ("[e4]",)]


@dataclass(frozen=True)
class Round:
    output: JudgeOutput
    synthesis: str
    evidence: EvidenceSet
    weight_map: WeightMap
    rho: float
    unknown: float

    def options(self) -> dict[str, Any]:
        return {"synthesis": self.synthesis, "evidence": self.evidence,
                "weight_map": self.weight_map, "contradiction_penalty": self.rho,
                "default_unknown": self.unknown}


@st.composite
def rounds(draw: st.DrawFn) -> Round:
    """A random judge output over a random answer and evidence: claims copied from the answer,
    edited, empty, duplicated, of unknown types, citing missing ids; so the guard adjusts often."""
    sentences = draw(st.lists(st.sampled_from(SENTENCES), min_size=1, max_size=5))
    rows = draw(st.lists(st.sampled_from(ROWS), min_size=0, max_size=4, unique=True))
    claims: dict[str, list[Claim]] = {name: [] for name in BUCKETS}
    if draw(st.booleans()):  # every sentence an ungrounded claim: often nothing to repair
        claims["ungrounded"] = [Claim(text, draw(evidence_types))
                                for text in dict.fromkeys(sentences)]
    for _ in range(draw(st.integers(min_value=0, max_value=6))):
        text = draw(st.one_of(st.sampled_from(sentences), st.sampled_from(SENTENCES),
                              st.sampled_from(["", "  ", "CPU reached 45%", "it was fine"])))
        kind = draw(st.one_of(evidence_types, st.sampled_from(UNKNOWN_TYPES)))
        claims[draw(st.sampled_from(BUCKETS))].append(Claim(
            text, kind, draw(st.sampled_from(REFS)), conclusion=draw(st.booleans())))
    output = JudgeOutput(grounding_score=draw(unit_floats), is_grounded=draw(st.booleans()),
                         explanation=draw(st.sampled_from(["", "looks fine", "97% at 14:02"])),
                         **{f"{name}_claims": found for name, found in claims.items()})
    return Round(output, " ".join(sentences), EvidenceSet.coerce(rows),
                 resolve_weight_map(draw(weight_maps())), draw(rhos), draw(unit_floats))


@pytest.fixture
def guard_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the guard runs of :func:`judge_round.judge_and_check`."""
    calls: list[int] = []
    real = judge_round.check_judge_output

    def counting(*args: Any, **kwargs: Any) -> IntegrityReport:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(judge_round, "check_judge_output", counting)
    return calls


def through_json(memo: GuardMemo) -> GuardMemo:
    """The memo as a cassette gives it back: written as JSON, read and validated."""
    return GuardMemo.model_validate(json.loads(json.dumps(memo.model_dump(mode="json"))))


class Replayed:
    """A judge that returns one fixed verdict, as a replayed recording does."""

    def __init__(self, verdict: JudgeVerdict) -> None:
        self.verdict = verdict

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        return self.verdict.output

    async def judge_verdict(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeVerdict:
        return self.verdict


def judged(verdict: JudgeVerdict, case: Round, timeout_s: float | None = None
           ) -> IntegrityReport:
    _, report = asyncio.run(judge_round.judge_and_check(
        Replayed(verdict), case.synthesis, case.evidence, timeout_s=timeout_s,
        weight_map=case.weight_map, contradiction_penalty=case.rho,
        default_unknown=case.unknown))
    return report


def recorded_memo(case: Round) -> GuardMemo:
    memo = make_memo(check_judge_output(case.output, **case.options()), case.output,
                     **case.options())
    assert memo is not None
    return through_json(memo)


def score(report: IntegrityReport, case: Round) -> float:
    return gsar_score(report.output.to_partition(), weight_map=case.weight_map,
                      contradiction_penalty=case.rho, default_unknown=case.unknown)


CASE = Round(JudgeOutput(grounding_score=1.0, is_grounded=True, grounded_claims=[
    Claim("CPU on db-prod-1 reached 97% at 14:02", "tool_match", ["E1"])]),
    "CPU on db-prod-1 reached 97% at 14:02.", EvidenceSet.coerce([ROWS[0]]),
    resolve_weight_map(None), 0.5, 0.6)


def _edited_output() -> JudgeOutput:
    """CASE's verdict with its claim citing an id the evidence does not have, and its number
    changed: the guard makes it ungrounded."""
    return JudgeOutput(grounding_score=1.0, is_grounded=True, grounded_claims=[
        Claim("CPU on db-prod-1 reached 45% at 14:02", "tool_match", ["E9"])])


REPAIRED = Round(**{**CASE.__dict__, "output": _edited_output()})
"""CASE with the verdict the guard repairs (its claim becomes ungrounded)."""


@example(CASE)
@example(REPAIRED)
@given(rounds())
@settings(max_examples=150, deadline=None)
def test_a_matching_memo_gives_exactly_the_guards_report(case: Round) -> None:
    output = JudgeOutput.model_validate(json.loads(case.output.model_dump_json()))  # as replayed
    fresh = check_judge_output(output, **case.options())
    memo = recorded_memo(case)
    before = memo_stats().reused
    replayed = judged(JudgeVerdict(output=output, guard_memo=memo), case)
    assert memo_stats().reused == before + 1
    assert replayed == fresh
    assert score(replayed, case) == score(fresh, case)


def test_the_examples_cover_repairs_and_clean_verdicts() -> None:
    """The property above always sees both kinds of report, whatever hypothesis draws: its
    explicit examples are one verdict the guard leaves alone and one it repairs."""
    assert check_judge_output(CASE.output, **CASE.options()).adjustments == ()
    assert check_judge_output(REPAIRED.output, **REPAIRED.options()).adjustments


def test_a_memo_skips_the_guard_and_its_absence_runs_it(guard_calls: list[int]) -> None:
    memo = recorded_memo(CASE)
    assert judged(JudgeVerdict(output=CASE.output, guard_memo=memo), CASE).adjustments == ()
    assert guard_calls == []
    judged(JudgeVerdict(output=CASE.output), CASE)
    assert guard_calls == [1]
    judged(JudgeVerdict(output=CASE.output, guard_memo=memo), CASE, timeout_s=30.0)
    assert guard_calls == [1]  # with a deadline too


TAMPERED: dict[str, Any] = {
    "verdict": {"output": _edited_output()},
    "answer": {"synthesis": "CPU on db-prod-1 reached 45% at 14:02."},
    "evidence": {"evidence": EvidenceSet.coerce(["host=db-prod-1 cpu_pct=45.0"])},
    "evidence source": {"evidence": EvidenceSet(items=(Evidence(
        "E1", ROWS[0], source="query_metrics"),))},
    "weight map": {"weight_map": resolve_weight_map({"tool_match": 0.5})},
    "contradiction penalty": {"rho": 0.25},
    "default_unknown": {"unknown": 0.5},
}


@pytest.mark.parametrize("change", list(TAMPERED))
def test_a_memo_for_other_inputs_is_ignored_and_the_guard_runs(
        change: str, guard_calls: list[int]) -> None:
    memo = recorded_memo(CASE)
    values = {**CASE.__dict__, **TAMPERED[change]}
    case = Round(**values)
    before = memo_stats().stale
    report = judged(JudgeVerdict(output=case.output, guard_memo=memo), case)
    assert guard_calls == [1]
    assert memo_stats().stale == before + 1
    assert report == check_judge_output(case.output, **case.options())
    if change == "verdict":
        assert {a.kind for a in report.adjustments} >= {"unknown_evidence_ref"}


def test_an_edited_memo_is_ignored(guard_calls: list[int]) -> None:
    """A memo whose report was changed (by hand, or by masking a secret in it) no longer
    matches its digest: the guard runs and its own report is used."""
    memo = recorded_memo(REPAIRED)
    assert memo.adjustments
    forged = memo.model_copy(update={"adjustments": (), "output": None})
    report = judged(JudgeVerdict(output=_edited_output(), guard_memo=forged), CASE)
    assert guard_calls == [1]
    assert report.adjustments  # the guard's repairs, not the forged clean report


def test_other_guard_code_makes_every_memo_stale(
        guard_calls: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    memo = recorded_memo(CASE)
    monkeypatch.setattr(guard_memo, "code_fingerprint", lambda: "another version")
    judged(JudgeVerdict(output=CASE.output, guard_memo=memo), CASE)
    assert guard_calls == [1]


def test_without_readable_guard_source_no_memo_is_made_or_used(
        guard_calls: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    memo = recorded_memo(CASE)
    monkeypatch.setattr(guard_memo, "code_fingerprint", lambda: None)
    assert make_memo(check_judge_output(CASE.output, **CASE.options()), CASE.output,
                     **CASE.options()) is None
    judged(JudgeVerdict(output=CASE.output, guard_memo=memo), CASE)
    assert guard_calls == [1]


def test_the_fingerprint_changes_with_any_guard_source(monkeypatch: pytest.MonkeyPatch) -> None:
    original = guard_memo.code_fingerprint()
    assert original is not None
    real_source = guard_memo._source
    guard_memo.code_fingerprint.cache_clear()
    try:
        monkeypatch.setattr(guard_memo, "_source", lambda name: (real_source(name) or b"") + (
            b"\n# edited" if name == "gsar_otel.core.anchor.scan" else b""))
        assert guard_memo.code_fingerprint() not in (None, original)
    finally:
        monkeypatch.undo()
        guard_memo.code_fingerprint.cache_clear()
    assert guard_memo.code_fingerprint() == original


def _project_imports(module: str) -> Iterator[str]:
    path = ROOT / (module.replace(".", "/") + ".py")
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        yield from (name for name in names if name.startswith("gsar_otel"))


def test_the_fingerprint_covers_every_module_the_guard_imports() -> None:
    """Module level and inside functions, transitively from the guard and the memo reader."""
    seen: set[str] = set()
    todo = ["gsar_otel.core.integrity", "gsar_otel.core.guard_memo"]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        todo.extend(name for name in _project_imports(module)
                    if (ROOT / (name.replace(".", "/") + ".py")).is_file())
    seen.discard("gsar_otel.core.protocol")  # GuardMemo's fields only: never runs the guard
    assert seen <= set(GUARD_MODULES), sorted(seen - set(GUARD_MODULES))


def test_a_memo_that_is_not_json_data_is_ignored(guard_calls: list[int]) -> None:
    """Built in Python rather than read from a cassette: no digest can match it; the guard runs
    and the round goes on."""
    odd = GuardMemo(digest="0" * 64, adjustments=({"kind": object()},))
    report = judged(JudgeVerdict(output=CASE.output, guard_memo=odd), CASE)
    assert guard_calls == [1]
    assert report == check_judge_output(CASE.output, **CASE.options())
