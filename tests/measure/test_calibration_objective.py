"""The default calibration objective bounds false passes: on a small set where the F1 of
"proceed" opens the gate (fits a low tau_proceed that lets graded-bad answers through), the cost
objective does not; ``gsar calibrate`` warns about a fit that lets more bad answers through than
the thresholds in force and will not write it; a set too small is refused before judging."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gsar_otel.cli.main import main
from gsar_otel.core.model import GSARThresholds
from gsar_otel.measure.calibration import false_passes, fit_thresholds
from gsar_otel.measure.grades import MIN_EXAMPLES, GradedScore

# 30 graded answers as in the report that found the problem: 20 graded ok spread over S 0.2 to
# 1.0 (the judge underrates some good answers), 10 graded not_ok at S 0.3 to 0.7.
OK_TENTHS = [2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 10, 10]
BAD_TENTHS = [3, 3, 4, 4, 5, 5, 6, 6, 7, 7]


def graded(tenths: int, label: str) -> GradedScore:
    return GradedScore(support=tenths, ungrounded=10 - tenths, contradicted=0.0, label=label)


EXAMPLES = ([graded(t, "ok") for t in OK_TENTHS] + [graded(t, "not_ok") for t in BAD_TENTHS])


def test_f1_of_proceed_opens_the_gate_and_the_default_objective_does_not() -> None:
    in_force = GSARThresholds()
    f1 = fit_thresholds(EXAMPLES, scale="binary", objective="f1")
    assert f1.thresholds.proceed <= 0.3
    assert false_passes(EXAMPLES, f1.thresholds, 0.5) > false_passes(EXAMPLES, in_force, 0.5)
    safe = fit_thresholds(EXAMPLES, scale="binary")
    assert false_passes(EXAMPLES, safe.thresholds, 0.5) <= false_passes(EXAMPLES, in_force, 0.5)
    assert safe.thresholds.proceed > max(BAD_TENTHS) / 10


def test_a_cheaper_false_pass_trades_some_for_recall() -> None:
    cheap = fit_thresholds(EXAMPLES, scale="binary", false_pass_cost=1.0)
    dear = fit_thresholds(EXAMPLES, scale="binary", false_pass_cost=5.0)
    assert cheap.thresholds.proceed < dear.thresholds.proceed
    assert (false_passes(EXAMPLES, cheap.thresholds, 0.5)
            > false_passes(EXAMPLES, dear.thresholds, 0.5))


@pytest.mark.parametrize("cost", [0.5, float("nan"), float("inf")])
def test_a_false_pass_cost_below_one_is_refused(cost: float) -> None:
    with pytest.raises(ValueError, match="false-pass cost must be a finite number >= 1"):
        fit_thresholds(EXAMPLES, scale="binary", false_pass_cost=cost)


@pytest.fixture(autouse=True)
def score_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The graded file's ungrounded claims are tool_match rows, which the contradiction policy
    would cap (tests/measure/test_calibration_caps.py); these tests are about the thresholds."""
    monkeypatch.setenv("GSAR_CONTRADICTION_POLICY", "score")


def _graded_file(tmp_path: Path) -> Path:
    def line(tenths: int, label: str) -> str:
        claims = ([{"text": f"g{i}", "type": "tool_match"} for i in range(tenths)],
                  [{"text": f"u{i}", "type": "tool_match"} for i in range(10 - tenths)])
        return json.dumps({"label": label, "partition": {"grounded": claims[0],
                                                         "ungrounded": claims[1]}})

    path = tmp_path / "graded.jsonl"
    path.write_text("".join(line(t, "ok") + "\n" for t in OK_TENTHS)
                    + "".join(line(t, "not_ok") + "\n" for t in BAD_TENTHS), encoding="utf-8")
    return path


def test_calibrate_warns_and_will_not_write_a_gate_that_lets_more_bad_answers_through(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, output = _graded_file(tmp_path), tmp_path / "settings.json"
    code = main(["calibrate", str(path), "--objective", "f1", "--output", str(output),
                 "--resamples", "50"])
    err = capsys.readouterr().err
    assert code == 2 and not output.exists()
    assert "gsar calibrate: warning: the fitted thresholds (proceed 0." in err
    assert "answer(s) not graded ok proceed, the thresholds in force (proceed 0.80) 0" in err
    assert "--accept-more-false-passes" in err
    assert main(["calibrate", str(path), "--objective", "f1", "--output", str(output),
                 "--resamples", "50", "--accept-more-false-passes"]) == 0
    assert json.loads(output.read_text())["thresholds"]["proceed"] <= 0.3


def test_the_default_objective_writes_a_fit_that_keeps_the_gate(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, output = _graded_file(tmp_path), tmp_path / "settings.json"
    assert main(["calibrate", str(path), "--output", str(output), "--json",
                 "--resamples", "50"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["opens_gate"] is False
    assert report["fitted"]["false_passes"] <= report["defaults"]["false_passes"]
    assert json.loads(output.read_text())["thresholds"]["proceed"] > 0.7


def test_too_few_answers_are_refused_before_anything_is_judged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "graded.jsonl"
    rows = [{"synthesis": "x", "evidence": "y", "label": label} for label in ["ok", "not_ok"] * 3]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    # An unknown judge would be the error if judging had started.
    assert main(["calibrate", str(path), "--judge", "no-such-judge"]) == 2
    err = capsys.readouterr().err
    assert f"too few graded answers: 6; calibration needs at least {MIN_EXAMPLES}" in err
    assert "judging" not in err and "no-such-judge" not in err
