"""``gsar judge --contradiction-policy``: cap (a contradicted or unsupported tool-backed claim
holds the decision at regenerate) or score (S alone decides), over GSAR_CONTRADICTION_POLICY;
one answer and ``--batch`` alike. Judged by the plugin tests' scripted judge, whose verdicts are
plain to read."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gsar_otel import config
from gsar_otel.cli import main
from gsar_otel.plugins import register, unregister
from tests.plugin.helpers import METRIC_ROW
from tests.plugin.scripted_judge import ScriptedJudgePlugin
from tests.plugin.test_contradiction_policy_option import ONE_WRONG_FACT


@pytest.fixture(autouse=True)
def scripted(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``--judge scripted``, and no GSAR_* settings from the outside."""
    for name in list(os.environ):
        if name.startswith("GSAR_"):
            monkeypatch.delenv(name)
    config.reset_settings()
    plugin = ScriptedJudgePlugin()
    register(plugin, name="tests-cli-scripted-judge")
    yield
    unregister(plugin)
    config.reset_settings()


def judge(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict[str, Any]]:
    code = main(["judge", "--synthesis", ONE_WRONG_FACT, "--evidence", METRIC_ROW,
                 "--judge", "scripted", "--json", *extra])
    return code, json.loads(capsys.readouterr().out)


def test_a_wrong_tool_fact_is_capped_by_default_and_exits_1(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, result = judge(capsys)
    assert code == 1
    assert result["final_score"] == pytest.approx(4 / 4.5)
    assert (result["final_decision"], result["contradiction_capped"],
            result["contradiction_policy"]) == ("regenerate", True, "cap")


def test_the_printed_verdict_says_what_capped_the_decision(
        capsys: pytest.CaptureFixture[str]) -> None:
    main(["judge", "--synthesis", ONE_WRONG_FACT, "--evidence", METRIC_ROW, "--judge", "scripted"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2:] == ["S alone would proceed; capped at regenerate by a contradicted or "
                          "unsupported tool-backed claim (contradiction_policy=cap)",
                          "S = 0.889  decision: regenerate"]


def test_score_lets_s_decide_and_the_flag_beats_the_variable(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, result = judge(capsys, "--contradiction-policy", "score")
    assert code == 0
    assert (result["final_decision"], result["contradiction_capped"],
            result["contradiction_policy"]) == ("proceed", False, "score")
    monkeypatch.setenv("GSAR_CONTRADICTION_POLICY", "score")
    assert judge(capsys)[1]["final_decision"] == "proceed"
    assert judge(capsys, "--contradiction-policy", "cap")[1]["final_decision"] == "regenerate"


def test_an_unknown_value_is_refused_naming_the_choices(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["judge", "--synthesis", "s", "--evidence", "e", "--contradiction-policy", "soft"])
    assert raised.value.code == 2
    # Python versions differ in quoting the choices.
    assert re.search(r"--contradiction-policy: invalid choice: 'soft' \(choose from '?cap'?, "
                     r"'?score'?\)", capsys.readouterr().err)


def test_the_batch_takes_the_flag_too(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text(json.dumps({"id": "one", "synthesis": ONE_WRONG_FACT,
                                "evidence": [METRIC_ROW]}) + "\n", encoding="utf-8")
    decisions = []
    for policy in ("cap", "score"):
        main(["judge", "--batch", str(path), "--judge", "scripted",
              "--contradiction-policy", policy])
        [row] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        decisions.append(row["decision"])
    assert decisions == ["regenerate", "proceed"]
