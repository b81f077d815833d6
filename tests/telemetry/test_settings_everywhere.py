"""GSAR_PROCEED, GSAR_REGENERATE and GSAR_CONFIG apply alike in GSAREvaluator, `gsar judge` and
@grounded, and every entry point rejects the same invalid values with the same message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gsar_otel.cli import main
from gsar_otel.config import SettingsError, reset_settings
from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.model import GSARThresholds
from gsar_otel.decorator import grounded
from tests.telemetry.helpers import CPU_ROW, ScriptedJudge, grounded_output

ANSWER = "CPU on db-prod-1 reached 97% at 14:02."
INVALID = [("GSAR_PROCEED", "2", "GSAR_PROCEED must be a number in [0, 1], got '2'"),
           ("GSAR_REGENERATE", "abc", "GSAR_REGENERATE must be a number in [0, 1]"),
           ("GSAR_CONFIG", "{missing}", "named by GSAR_CONFIG")]


@pytest.fixture
def lenient(tmp_path: Path) -> Path:
    path = tmp_path / "lenient.json"
    path.write_text(json.dumps({"thresholds": {"proceed": 0.6, "regenerate": 0.5},
                                "contradiction_penalty": 0.3, "k_max": 4}))
    return path


def test_the_evaluator_takes_its_defaults_from_the_environment_and_the_file(
        monkeypatch: pytest.MonkeyPatch, lenient: Path) -> None:
    monkeypatch.setenv("GSAR_CONFIG", str(lenient))
    monkeypatch.setenv("GSAR_PROCEED", "0.7")
    evaluator = GSAREvaluator(ScriptedJudge())
    assert evaluator.thresholds == GSARThresholds(proceed=0.7, regenerate=0.5)
    assert evaluator.contradiction_penalty == 0.3
    assert evaluator.k_max == 4


def test_the_settings_file_changes_the_evaluators_decision(
        monkeypatch: pytest.MonkeyPatch, lenient: Path) -> None:
    # The scripted verdict scores S = 0.625: below the default 0.80, above the file's 0.60.
    before = GSAREvaluator(ScriptedJudge()).evaluate_sync(report_synthesis=ANSWER,
                                                         evidence_corpus=[CPU_ROW])
    assert before.final_decision.value != "proceed"
    monkeypatch.setenv("GSAR_CONFIG", str(lenient))
    reset_settings()
    after = GSAREvaluator(ScriptedJudge()).evaluate_sync(report_synthesis=ANSWER,
                                                        evidence_corpus=[CPU_ROW])
    assert after.final_decision.value == "proceed"


def test_explicit_evaluator_arguments_beat_the_settings(
        monkeypatch: pytest.MonkeyPatch, lenient: Path) -> None:
    monkeypatch.setenv("GSAR_CONFIG", str(lenient))
    evaluator = GSAREvaluator(ScriptedJudge(), thresholds=GSARThresholds(proceed=0.9,
                                                                         regenerate=0.8),
                              contradiction_penalty=0.5, k_max=1)
    assert (evaluator.thresholds.proceed, evaluator.contradiction_penalty, evaluator.k_max) == (
        0.9, 0.5, 1)


@pytest.mark.parametrize(("variable", "value", "message"), INVALID)
def test_every_entry_point_rejects_an_invalid_setting_with_the_same_message(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        variable: str, value: str, message: str) -> None:
    monkeypatch.setenv(variable, value.format(missing=tmp_path / "missing.json"))
    with pytest.raises(SettingsError) as raised:
        GSAREvaluator(ScriptedJudge())
    assert message in str(raised.value)

    @grounded(judge=ScriptedJudge([grounded_output()]), on_low="raise",
              evidence=lambda call: [CPU_ROW])
    def agent() -> str:
        return ANSWER

    with pytest.raises(SettingsError) as raised:
        agent()
    assert message in str(raised.value)

    code = main(["judge", "--synthesis", ANSWER, "--evidence", CPU_ROW, "--judge", "lexical"])
    assert code == 2
    assert message in capsys.readouterr().err


def judge_cli(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    code = main(["judge", "--synthesis", ANSWER, "--evidence", CPU_ROW, "--judge", "lexical",
                 *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_gsar_judge_applies_gsar_proceed_and_says_where_each_threshold_came_from(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = judge_cli(capsys)
    assert "thresholds in force: proceed 0.80 (default), regenerate 0.65 (default)" in out
    monkeypatch.setenv("GSAR_PROCEED", "0.9")
    monkeypatch.setenv("GSAR_REGENERATE", "0.7")
    _, out, _ = judge_cli(capsys)
    assert ("thresholds in force: proceed 0.90 (GSAR_PROCEED), regenerate 0.70 "
            "(GSAR_REGENERATE)") in out
    _, out, _ = judge_cli(capsys, "--proceed", "0.95")
    assert "proceed 0.95 (--proceed), regenerate 0.70 (GSAR_REGENERATE)" in out


def test_gsar_judge_applies_the_settings_file_and_the_command_line_wins(
        monkeypatch: pytest.MonkeyPatch, lenient: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GSAR_CONFIG", str(lenient))
    code, out, _ = judge_cli(capsys)
    assert code == 0
    assert f"proceed 0.60 ({lenient}), regenerate 0.50 ({lenient})" in out
    code, out, _ = judge_cli(capsys, "--proceed", "0.8", "--regenerate", "0.6")
    assert "proceed 0.80 (--proceed), regenerate 0.60 (--regenerate)" in out


def test_gsar_judge_json_stays_valid_json_with_the_thresholds_on_stderr(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GSAR_PROCEED", "0.85")
    code, out, err = judge_cli(capsys, "--json")
    assert code == 0
    assert json.loads(out)["final_decision"] == "proceed"
    assert "thresholds in force: proceed 0.85 (GSAR_PROCEED)" in err


def test_an_evaluator_given_every_setting_does_not_read_the_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The decorator and the plugin pass settings they resolved themselves (the plugin's
    # --gsar-config replaces GSAR_CONFIG): the process's settings must not overrule them.
    monkeypatch.setenv("GSAR_CONFIG", "missing.json")
    evaluator = GSAREvaluator(ScriptedJudge(), thresholds=GSARThresholds(),
                              contradiction_penalty=0.5, k_max=2, max_regenerations=2,
                              conclusion_policy="cap", contradiction_policy="cap")
    assert evaluator.thresholds == GSARThresholds()
