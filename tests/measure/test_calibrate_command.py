"""`gsar calibrate` end to end: exit codes, --json, the settings file, the plot, bad input."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gsar_otel.cli import main
from gsar_otel.config import load_settings
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Claim, JudgeOutput
from gsar_otel.core.text import split_sentences
from gsar_otel.measure.calibration_report import SETTINGS_SCHEMA
from gsar_otel.plugins import hookimpl, register, unregister

GradedFile = Callable[..., Path]


@pytest.fixture(autouse=True)
def no_gsar_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command reads GSAR_* settings; tests start from the built-in ones."""
    import os

    for name in list(os.environ):
        if name.startswith("GSAR_"):
            monkeypatch.delenv(name)


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code = main(["calibrate", *argv, "--json", "--resamples", "200"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    report: dict[str, Any] = json.loads(captured.out)
    return report


def run_failing(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(["calibrate", *argv])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    return captured.err


def test_json_report_has_fitted_values_metrics_and_intervals(
    capsys: pytest.CaptureFixture[str], graded_file: GradedFile
) -> None:
    report = run_json(capsys, str(graded_file(proceed=0.72, regenerate=0.5)))
    assert report["examples"] == 120
    assert report["label_scale"] == "three_way"
    assert report["objective"] == "cost (false pass 5, false stop 1)"
    assert sum(report["labels"].values()) == 120
    assert report["defaults"]["thresholds"] == {"proceed": 0.8, "regenerate": 0.65}
    assert report["defaults"]["source"] == "built-in"
    fitted = report["fitted"]
    assert fitted["thresholds"]["proceed"] == pytest.approx(0.72, abs=0.03)
    assert fitted["thresholds"]["regenerate"] == pytest.approx(0.5, abs=0.03)
    assert fitted["contradiction_penalty"] == 0.5
    for block in (report["defaults"], fitted, report["cross_validated"]):
        assert set(block["metrics"]) == {"precision", "recall", "f1", "accuracy", "macro_f1"}
        for interval in block["metrics"].values():
            assert 0.0 <= interval["low"] <= interval["value"] <= interval["high"] <= 1.0
    # The defaults misjudge answers graded by other thresholds; the fit does better.
    assert fitted["metrics"]["macro_f1"]["value"] > report["defaults"]["metrics"]["macro_f1"][
        "value"]
    assert len(report["cross_validated"]["fold_fits"]) == 5


def test_same_seed_gives_the_same_report_and_another_seed_other_intervals(
    capsys: pytest.CaptureFixture[str], graded_file: GradedFile
) -> None:
    path = str(graded_file(noise=0.1))
    first = run_json(capsys, path, "--seed", "3")
    again = run_json(capsys, path, "--seed", "3")
    other = run_json(capsys, path, "--seed", "4")
    assert first == again
    assert first["defaults"]["metrics"] != other["defaults"]["metrics"]


def test_binary_labels_fit_proceed_and_report_f1_of_proceed(
    capsys: pytest.CaptureFixture[str], graded_file: GradedFile
) -> None:
    report = run_json(capsys, str(graded_file(binary=True, proceed=0.66)), "--folds", "3",
                      "--objective", "f1")
    assert report["label_scale"] == "binary"
    assert report["objective"] == "f1_proceed"
    assert report["fitted"]["regenerate_fitted"] is False
    assert report["fitted"]["thresholds"]["proceed"] == pytest.approx(0.66, abs=0.03)
    assert "macro_f1" not in report["fitted"]["metrics"]
    assert len(report["cross_validated"]["fold_fits"]) == 3


def test_fit_rho_moves_rho_towards_the_graders(
    capsys: pytest.CaptureFixture[str], graded_file: GradedFile
) -> None:
    report = run_json(capsys, str(graded_file(count=200, rho=1.0, seed=5)), "--fit-rho")
    assert report["fitted"]["rho_fitted"] is True
    assert report["fitted"]["contradiction_penalty"] >= 0.8


def test_settings_file_round_trips_through_gsar_config(
    capsys: pytest.CaptureFixture[str], graded_file: GradedFile, tmp_path: Path
) -> None:
    output = tmp_path / "settings.json"
    report = run_json(capsys, str(graded_file(count=200, rho=1.0, seed=5)), "--fit-rho",
                      "--output", str(output))
    assert report["settings_file"] == str(output)
    document = json.loads(output.read_text())
    assert set(document) == set(SETTINGS_SCHEMA["properties"])
    settings = load_settings({"GSAR_CONFIG": str(output)})
    fitted = report["fitted"]
    assert settings.proceed == fitted["thresholds"]["proceed"]
    assert settings.regenerate == fitted["thresholds"]["regenerate"]
    assert settings.contradiction_penalty == fitted["contradiction_penalty"]
    assert settings.config_file == str(output)


def test_a_configured_baseline_is_measured_as_the_defaults(
    capsys: pytest.CaptureFixture[str], graded_file: GradedFile, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = tmp_path / "current.json"
    config.write_text(json.dumps({"thresholds": {"proceed": 0.9, "regenerate": 0.4}}))
    monkeypatch.setenv("GSAR_CONFIG", str(config))
    report = run_json(capsys, str(graded_file()))
    assert report["defaults"]["thresholds"] == {"proceed": 0.9, "regenerate": 0.4}
    assert report["defaults"]["source"].startswith(f"GSAR_CONFIG={config}")


def test_plain_output_is_a_table_with_the_three_rows(
    capsys: pytest.CaptureFixture[str], graded_file: GradedFile
) -> None:
    assert main(["calibrate", str(graded_file()), "--resamples", "50"]) == 0
    out = capsys.readouterr().out
    for row in ("defaults", "fitted (in-sample)", "5-fold CV (held out)"):
        assert row in out
    assert "add --output settings.json" in out


def test_plot_writes_a_png(
    capsys: pytest.CaptureFixture[str], graded_file: GradedFile, tmp_path: Path
) -> None:
    pytest.importorskip("matplotlib")
    plot = tmp_path / "scores.png"
    report = run_json(capsys, str(graded_file()), "--plot", str(plot))
    assert report["plot"] == str(plot)
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert plot.stat().st_size > 10_000


def test_plot_without_matplotlib_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], graded_file: GradedFile, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    err = run_failing(capsys, str(graded_file()), "--plot", str(tmp_path / "x.png"))
    assert "--plot needs matplotlib" in err
    assert "[plot]" in err and "matplotlib" in err
    assert not (tmp_path / "x.png").exists()


def _partition_line(label: str = "ok") -> str:
    return json.dumps({"partition": {"grounded": [{"text": "a", "type": "tool_match"}]},
                       "label": label})


@pytest.mark.parametrize(("bad_line", "message"), [
    ("{not json", "graded.jsonl:3: not valid JSON"),
    ("[1, 2]", "graded.jsonl:3: expected a JSON object, got list"),
    ('{"partition": {}}', "graded.jsonl:3: 'label' is missing; allowed: proceed, regenerate"),
    ('{"partition": {}, "label": "fine"}', "graded.jsonl:3: label must be one of"),
    ('{"label": "ok"}', "graded.jsonl:3: give either 'partition'"),
    ('{"synthesis": "x", "label": "ok"}', "graded.jsonl:3: 'synthesis' needs 'evidence'"),
    ('{"synthesis": 5, "evidence": "e", "label": "ok"}', "'synthesis' must be a string, got int"),
    ('{"partition": {"grounded": [{"text": "a"}]}, "label": "ok"}',
     "graded.jsonl:3: 'partition' is not a valid Partition: grounded.0.type: Field required"),
    ('{"partition": {"supported": []}, "label": "ok"}', "supported: Extra inputs"),
    ('{"partition": {}, "label": "replan"}',
     "graded.jsonl:3: label 'replan' is on the three_way scale but line 1 ('ok')"),
])
def test_a_bad_line_is_reported_with_its_number(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, bad_line: str, message: str
) -> None:
    path = tmp_path / "graded.jsonl"
    path.write_text(f"{_partition_line()}\n\n{bad_line}\n{_partition_line('not_ok')}\n")
    assert message in run_failing(capsys, str(path))


@pytest.mark.parametrize(("lines", "message"), [
    ([], "holds no graded answers"),
    ([_partition_line()] * 4 + [_partition_line("not_ok")] * 4, "too few graded answers: 8"),
    ([_partition_line()] * 12, "every answer is graded 'ok'"),
    ([_partition_line()] * 12 + [_partition_line("not_ok")] * 2,
     "only 2 answer(s) graded 'not_ok'; 5-fold cross-validation needs at least 5"),
])
def test_unusable_sets_are_rejected_with_the_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, lines: list[str], message: str
) -> None:
    path = tmp_path / "graded.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    assert message in run_failing(capsys, str(path))


def test_missing_file_and_bad_options_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, graded_file: GradedFile
) -> None:
    assert "cannot read" in run_failing(capsys, str(tmp_path / "absent.jsonl"))
    assert "--folds must be >= 2, got 1" in run_failing(capsys, str(graded_file()), "--folds", "1")
    unwritable = tmp_path / "no-such-dir" / "settings.json"
    assert "cannot write" in run_failing(capsys, str(graded_file()), "--output", str(unwritable),
                                         "--resamples", "10")


class KeywordJudge:
    """A deterministic judge: a sentence is grounded when most of its words occur in the evidence.

    Registered through the gsar_otel plugin hook, the way a user adds a judge backend.
    """

    name = "keyword-test"

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        corpus = " ".join(item.content.lower() for item in evidence)
        ids = list(evidence.ids)
        grounded, ungrounded = [], []
        for sentence in split_sentences(synthesis):
            words = [w.strip(".,").lower() for w in sentence.split()]
            found = sum(1 for w in words if w and w in corpus)
            if found >= 0.6 * len(words):
                grounded.append(Claim(sentence, "tool_match", ids[:1]))
            else:
                ungrounded.append(Claim(sentence, "inference"))
        return JudgeOutput(grounding_score=0.5, is_grounded=not ungrounded,
                           grounded_claims=grounded, ungrounded_claims=ungrounded)


class KeywordJudgePlugin:
    @hookimpl
    def gsar_make_judge(self, name: str, model: str | None) -> KeywordJudge | None:
        return KeywordJudge() if name == KeywordJudge.name else None

    @hookimpl
    def gsar_judge_names(self) -> list[str]:
        return [KeywordJudge.name]


@pytest.fixture
def keyword_judge() -> Iterator[str]:
    plugin = KeywordJudgePlugin()
    register(plugin)
    try:
        yield KeywordJudge.name
    finally:
        unregister(plugin)


def test_answers_with_evidence_are_judged_with_the_chosen_judge(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, keyword_judge: str
) -> None:
    evidence = ["host db-prod-1 cpu 97 at 14:02", "request rate 12 rps"]
    grounded = "host db-prod-1 cpu 97 at 14:02."
    unsupported = "A failed power supply in rack 7B caused it."
    rows = []
    for i in range(12):
        rows.append({"id": f"g{i}", "synthesis": grounded, "evidence": evidence, "label": "ok"})
        rows.append({"id": f"u{i}", "synthesis": f"{grounded} {unsupported}",
                     "evidence": evidence, "label": "not_ok"})
    # Already judged lines are mixed in and not judged again.
    rows.append({"partition": {"grounded": [{"text": "a", "type": "tool_match"}]}, "label": "ok"})
    path = tmp_path / "graded.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    report = run_json(capsys, str(path), "--judge", keyword_judge)
    assert report["judging"] == {"judge": "keyword-test", "judged": 24, "judge_errors": 0,
                                 "abstained": 0, "capped": 0}
    assert report["examples"] == 25
    # Grounded answers score 1.0; the others 1 / (1 + 0.6) = 0.625 (one tool_match claim
    # grounded, one inference claim not): any proceed threshold in (0.625, 1.0] splits them.
    assert report["fitted"]["metrics"]["f1"]["value"] == 1.0
    assert 0.625 < report["fitted"]["thresholds"]["proceed"] <= 1.0


def test_an_unknown_judge_lists_the_available_ones(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "graded.jsonl"
    path.write_text("".join(json.dumps({"synthesis": "x", "evidence": "y", "label": label}) + "\n"
                            for label in ["ok", "not_ok"] * 5))
    err = run_failing(capsys, str(path), "--judge", "oracle", "--folds", "2")
    assert "unknown judge 'oracle'; available: staged, anthropic, records, tiered, lexical" in err


def test_answers_are_judged_with_the_staged_judge_by_default(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)  # else the default is anthropic
    evidence = ["host=db-prod-1 cpu_pct=97.2 at 14:02:01", "alert_id=A-9912 fired_at=14:02:00"]
    rows = []
    for i in range(6):
        rows.append({"synthesis": "CPU on db-prod-1 reached 97.2% at 14:02.",
                     "evidence": evidence, "label": "ok", "id": f"ok-{i}"})
        rows.append({"synthesis": "The outage was caused by a failed power supply in rack 7B, "
                                  "replaced at 03:15 by technician T-218.",
                     "evidence": evidence, "label": "not_ok", "id": f"bad-{i}"})
    path = tmp_path / "graded.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    report = run_json(capsys, str(path), "--folds", "3")
    assert report["judging"]["judged"] == 12
    assert report["judging"]["judge"].lower().startswith("staged")
    assert report["fitted"]["metrics"]["f1"]["value"] == 1.0
