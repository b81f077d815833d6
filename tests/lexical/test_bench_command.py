"""`gsar bench`: the report, the runner's concurrency bound, usage, and bad input."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import pytest

from gsar_otel.cli import main
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Claim, Decision, JudgeOutput
from gsar_otel.core.protocol import JudgeUsage, JudgeVerdict
from gsar_otel.judges.staged.judge import StagedJudge
from gsar_otel.measure.bench import judge_examples
from gsar_otel.measure.datasets import load_examples

CASES = Path(__file__).resolve().parents[2] / "examples" / "incident" / "cases.jsonl"


def test_the_offline_judge_decides_the_bundled_incident_cases(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["bench", str(CASES), "--judge", "staged", "--json"])
    report = json.loads(capsys.readouterr().out)
    overall = report["splits"][0]
    assert code == 0
    assert [s["split"] for s in report["splits"]] == ["all", "dev", "heldout"]
    assert overall["examples"] == len(load_examples(CASES))
    # incident-cpu-spike-grounded says "Request rate dropped to 12 RPS": its rps row states the
    # value before and the change, so the trend has its two values and the faithful label holds.
    assert overall["confusion"] == {"tp": 9, "fn": 0, "fp": 0, "tn": 7}
    assert overall["balanced_accuracy"] == pytest.approx(1.0)


def test_every_faithful_case_proceeds_and_a_single_sample_trend_would_not() -> None:
    examples = load_examples(CASES)
    outcomes = asyncio.run(judge_examples(examples, StagedJudge(), concurrency=4))
    faithful = {e.id for e in examples if e.faithful}
    held_back = [o.id for o in outcomes if o.id in faithful and o.decision is not Decision.PROCEED]
    assert held_back == []
    # The same answer against the rate's one sample states a trend no evidence holds.
    [spike] = [e for e in examples if e.id == "incident-cpu-spike-grounded"]
    one_sample = replace(spike, evidence=spike.evidence.replace(
        " rps_before=4480.0 rps_change=decreased", ""))
    [outcome] = asyncio.run(judge_examples([one_sample], StagedJudge()))
    assert outcome.decision is not Decision.PROCEED


def test_the_report_puts_the_baseline_beside_the_judge(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["bench", str(CASES), "--judge", "staged"])
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[2].split() == ["split", "n", "bal.acc", "95%", "interval", "prec(unf)",
                                "rec(unf)", "bag-of-words", "f", "bal.acc", "length"]
    assert [line.split()[0] for line in lines[3:6]] == ["all", "dev", "heldout"]
    assert "[all] claim agreement (gold bucket -> judge's bucket); bucket accuracy" in captured.out
    assert "[dev] per judgement: mean" in captured.out
    assert "judged 16/16" in captured.err


def test_limit_and_split_choose_the_examples(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", str(CASES), "--judge", "staged", "--split", "dev", "--limit", "3",
                 "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [(s["split"], s["examples"]) for s in report["splits"]] == [("dev", 3)]


class SlowCountingJudge:
    """Counts judgements in flight and reports token usage, like a model-backed judge."""

    name = "slow"

    def __init__(self) -> None:
        self.in_flight = 0
        self.most = 0

    async def judge_verdict(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeVerdict:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        await asyncio.sleep(0.005)
        self.in_flight -= 1
        output = JudgeOutput(grounding_score=1.0, is_grounded=True, grounded_claims=(
            Claim(synthesis, "tool_match", [evidence.ids[0]]),))
        return JudgeVerdict(output=output, usage=JudgeUsage(input_tokens=100, output_tokens=20))

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        return (await self.judge_verdict(synthesis=synthesis, evidence=evidence)).output


def test_judgements_run_concurrently_within_the_bound_and_report_usage() -> None:
    examples = load_examples(CASES)
    judge = SlowCountingJudge()
    seen: list[int] = []
    outcomes = asyncio.run(judge_examples(examples, judge, concurrency=3,
                                          progress=lambda done, total: seen.append(done)))
    assert judge.most == 3
    assert seen == list(range(1, len(examples) + 1))
    assert [o.id for o in outcomes] == [e.id for e in examples]
    assert all(o.input_tokens == 100 and o.output_tokens == 20 for o in outcomes)
    assert {o.decision for o in outcomes} <= set(Decision)


@pytest.mark.parametrize(("argv", "message"), [
    (["/nonexistent/data.jsonl"], "cannot read '/nonexistent/data.jsonl'"),
    ([str(CASES), "--limit", "0"], "--limit must be an integer >= 1"),
    ([str(CASES), "--concurrency", "0"], "--concurrency must be an integer >= 1"),
    ([str(CASES), "--rho", "1.5"], "--rho must be a finite number in [0, 1]"),
    ([str(CASES), "--judge", "oracle"], "unknown judge 'oracle'"),
])
def test_bad_input_exits_2_with_a_message(argv: list[str], message: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", *argv])
    captured = capsys.readouterr()
    assert code == 2
    assert message in captured.err
    assert "Traceback" not in captured.err


def test_a_malformed_line_is_named_by_its_number(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data.jsonl"
    first = CASES.read_text().splitlines()[0]
    data.write_text(f"{first}\n\n{{\"id\": \"x\", \"synthesis\": \"s\"}}\n")
    code = main(["bench", str(data), "--judge", "staged"])
    assert code == 2
    assert f"{data}:3: field 'evidence' is missing" in capsys.readouterr().err


def test_several_files_and_judges_print_one_comparison_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    second = tmp_path / "copy.jsonl"
    second.write_text(CASES.read_text(encoding="utf-8"), encoding="utf-8")
    code = main(["bench", str(CASES), str(second), "--judge", "staged", "--split", "heldout"])
    out = capsys.readouterr().out
    assert code == 0
    rows = [line.split() for line in out.splitlines() if " heldout " in f" {line} "]
    assert [(row[0], row[1]) for row in rows] == [(CASES.stem, "staged"), ("copy", "staged")]
    assert rows[0][3:-1] == rows[1][3:-1]  # same data, same figures (time aside)
    assert out.splitlines()[2].split()[:5] == ["data", "judge", "split", "n", "bal.acc"]


def test_a_judge_named_twice_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", str(CASES), "--judge", "staged", "--judge", "staged"])
    assert code == 2
    assert "names a judge twice" in capsys.readouterr().err


def test_the_json_of_several_runs_lists_every_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    second = tmp_path / "copy.jsonl"
    second.write_text(CASES.read_text(encoding="utf-8"), encoding="utf-8")
    main(["bench", str(CASES), str(second), "--judge", "staged", "--json"])
    reports = json.loads(capsys.readouterr().out)["reports"]
    assert [Path(r["data"]).name for r in reports] == [CASES.name, "copy.jsonl"]
    assert all(r["splits"][0]["length_baseline"] is not None for r in reports)
