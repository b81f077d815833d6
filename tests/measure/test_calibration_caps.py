"""``gsar calibrate`` predicts what the real decision does: an answer a decision policy caps at
regenerate (an ungrounded conclusion, a contradicted tool-backed claim) never proceeds in a
prediction, a false-pass count or the fit's search, whatever its S."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from gsar_otel.cli import main
from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.model import Claim, Decision, GSARThresholds, Partition
from gsar_otel.measure import calibration
from gsar_otel.measure.calibration import false_passes, predict
from gsar_otel.measure.grades import THREE_WAY_LABELS, GradedScore, policy_capped
from gsar_otel.measure.stats import f1_from_counts
from tests.core.scripted import ScriptedJudge

FACTS = [Claim(f"CPU on db-{n} reached 9{n}%.", "tool_match", ["E1"]) for n in range(9)]
CAUSE = Claim("The outage was caused by the config push.", "inference", conclusion=True)
CAPPED = Partition(grounded=tuple(FACTS), ungrounded=(CAUSE,))


def test_a_capped_partition_is_predicted_as_the_evaluator_decides_it() -> None:
    example = GradedScore.from_partition(CAPPED, "not_ok")
    assert example.capped and example.score() > 0.9
    answer = " ".join(claim.text for claim in (*FACTS, CAUSE))
    rows = "\n".join(f"CPU on db-{n} reached 9{n}%" for n in range(9))
    result = GSAREvaluator(_partition_judge(CAPPED)).evaluate_sync(
        report_synthesis=answer, evidence_corpus=[{"id": "E1", "content": rows}])
    assert result.final_score == pytest.approx(example.score())
    assert result.final_decision is Decision.REGENERATE  # the real decision, capped
    assert predict(example, GSARThresholds(), 0.5) == "regenerate"
    assert false_passes([example], GSARThresholds(), 0.5) == 0
    # Under the score policies nothing caps it, and S alone lets it through.
    scored = GradedScore.from_partition(CAPPED, "not_ok", policies={
        "conclusion_policy": "score", "contradiction_policy": "score"})
    assert not scored.capped
    assert false_passes([scored], GSARThresholds(), 0.5) == 1


def _partition_judge(partition: Partition) -> ScriptedJudge:
    from gsar_otel.core.model import JudgeOutput

    return ScriptedJudge(lambda s, e: JudgeOutput(
        grounding_score=0.9, is_grounded=True, grounded_claims=list(partition.grounded),
        ungrounded_claims=list(partition.ungrounded)))


def test_policy_capped_follows_each_policy() -> None:
    contradicted = Partition(grounded=tuple(FACTS), contradicted=(
        Claim("CPU on db-1 reached 45%.", "tool_match", ["E1"]),))
    assert policy_capped(contradicted)
    assert not policy_capped(contradicted, {"contradiction_policy": "score"})
    assert not policy_capped(Partition(grounded=tuple(FACTS)))
    with pytest.raises(ValueError):
        policy_capped(CAPPED, {"conclusion_policy": "maybe"})


def _brute(examples: list[GradedScore], scale: str, rho: float, proceed: float,
           regenerate: float) -> float:
    """The search's objective at one point, from predict() alone (cost objective)."""
    thresholds = GSARThresholds(proceed=proceed, regenerate=regenerate)
    predicted = [predict(e, thresholds, rho) for e in examples]
    if scale == "binary":
        passed = sum(p == "proceed" for p in predicted)
        ok_passed = sum(p == "proceed" and e.ok for p, e in zip(predicted, examples, strict=True))
        actual_ok = sum(e.ok for e in examples)
        return -(calibration.DEFAULT_FALSE_PASS_COST * (passed - ok_passed)
                 + (actual_ok - ok_passed)) / len(examples)
    f1s = []
    for name in THREE_WAY_LABELS:
        tp = sum(p == name and e.label == name for p, e in zip(predicted, examples, strict=True))
        fp = sum(p == name for p in predicted) - tp
        fn = sum(e.label == name for e in examples) - tp
        f1s.append(f1_from_counts(tp, fp, fn))
    passed = sum(p == "proceed" for p in predicted)
    ok_passed = sum(p == "proceed" and e.label == "proceed"
                    for p, e in zip(predicted, examples, strict=True))
    actual_ok = sum(e.label == "proceed" for e in examples)
    cost = -(calibration.DEFAULT_FALSE_PASS_COST * (passed - ok_passed)
             + (actual_ok - ok_passed)) / len(examples)
    return cost + calibration._TIE_BREAK * sum(f1s) / 3


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("scale", ["binary", "three_way"])
def test_the_search_counts_what_predict_decides_with_caps(seed: int, scale: str) -> None:
    rng = random.Random(seed)
    labels = ("ok", "not_ok") if scale == "binary" else THREE_WAY_LABELS
    examples = [GradedScore(support=rng.uniform(0, 5), ungrounded=rng.uniform(0, 2),
                            contradicted=rng.uniform(0, 1), label=rng.choice(labels),
                            abstained=rng.random() < 0.1, capped=rng.random() < 0.3)
                for _ in range(40)]
    grid = (0.0, 0.3, 0.5, 0.65, 0.72, 0.8, 0.9, 1.0)
    points = list(calibration._search_one_rho(examples, scale, 0.5, grid))  # type: ignore[arg-type]
    assert points
    for value, proceed, regenerate in points:
        assert value == pytest.approx(_brute(examples, scale, 0.5, proceed, regenerate)), (
            proceed, regenerate)


def test_calibrate_reports_no_false_pass_the_capped_decision_does_not_make(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [n for n in os.environ if n.startswith("GSAR_")]:
        monkeypatch.delenv(name)
    capped = {"grounded": [c.model_dump() for c in FACTS], "ungrounded": [CAUSE.model_dump()]}
    clean = {"grounded": [c.model_dump() for c in FACTS]}
    weak = {"grounded": [FACTS[0].model_dump()], "ungrounded": [c.model_dump()
                                                               for c in FACTS[1:4]]}
    rows = ([{"partition": capped, "label": "not_ok"}] * 6 + [{"partition": clean, "label": "ok"}]
            * 6 + [{"partition": weak, "label": "not_ok"}] * 6)
    graded = tmp_path / "graded.jsonl"
    graded.write_text("".join(json.dumps(row) + "\n" for row in rows))
    code = main(["calibrate", str(graded), "--json", "--resamples", "50", "--folds", "3"])
    out = capsys.readouterr().out
    assert code == 0
    report = json.loads(out)
    assert report["defaults"]["false_passes"] == 0
    # The six over-reaching answers (conclusion), and the six weak ones (their ungrounded
    # claims are tool-backed: the contradiction policy), though S already holds those back.
    assert report["judging"]["capped"] == 12
    monkeypatch.setenv("GSAR_CONCLUSION_POLICY", "score")
    main(["calibrate", str(graded), "--json", "--resamples", "50", "--folds", "3"])
    assert json.loads(capsys.readouterr().out)["defaults"]["false_passes"] == 6
