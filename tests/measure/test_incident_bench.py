"""The incident benchmark runner counts false passes, false alarms and claim buckets right."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from benchmarks.worlds.incidents import KINDS, generate, make_case

ROOT = Path(__file__).resolve().parents[2]


def load_runner() -> ModuleType:
    spec = importlib.util.spec_from_file_location("incident_bench",
                                                  ROOT / "benchmarks" / "incident_bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["incident_bench"] = module
    spec.loader.exec_module(module)
    return module


bench = load_runner()


def test_summary_counts_false_passes_false_alarms_and_claim_buckets() -> None:
    faithful = make_case(0, "multi_claim", 1, 3)       # three true sentences
    unfaithful = make_case(0, "wrong_value", 0, 3)     # one contradicted sentence, alone
    caught = make_case(0, "wrong_state", 0, 3)
    judged = [
        bench.Judged(faithful, "regenerate", 0.2, None, False,
                     (("grounded", "grounded"), ("grounded", "ungrounded"), ("grounded", None))),
        bench.Judged(unfaithful, "proceed", 0.1, None, False, (("contradicted", "grounded"),)),
        bench.Judged(caught, "replan", 0.3, "TimeoutError", False,
                     (("contradicted", "contradicted"),)),
    ]
    summary = bench.summarize(judged)
    totals = summary["totals"]
    assert (totals["false_passes"], totals["unfaithful_cases"]) == (1, 2)
    assert totals["kinds_with_false_passes"] == ["wrong_value"]
    assert (totals["false_alarms"], totals["faithful_cases"]) == (1, 1)
    assert totals["false_alarm_rate"] == 1.0
    assert totals["claim_buckets"]["grounded"] == {
        "claims": 3, "agree": 1, "unmatched": 1, "agreement": 1 / 3}
    assert totals["claim_buckets"]["contradicted"]["agreement"] == 0.5
    assert totals["claim_buckets"]["ungrounded"]["agreement"] is None
    assert totals["judge_errors"] == 1
    assert totals["p50_s"] == pytest.approx(0.2)
    assert totals["meets_targets"] == {"zero_false_passes": False,
                                       "false_alarms_under_5pct": False,
                                       "claim_buckets_at_least_0_95": False}
    assert summary["kinds"]["wrong_value"]["wrong_ids"] == [unfaithful.id]
    assert summary["kinds"]["wrong_state"]["wrong"] == 0


def test_the_truth_judge_puts_every_false_sentence_in_its_bucket() -> None:
    cases = generate(seed=1, cases_per_kind=1, items=3)
    summary = bench.measure(bench.TruthJudge(cases), cases)
    assert list(summary["kinds"]) == list(KINDS)
    buckets = summary["totals"]["claim_buckets"]
    assert buckets["ungrounded"]["agreement"] == buckets["contradicted"]["agreement"] == 1.0
    # Case 0 of an unfaithful kind is its false sentence alone: with the true verdict it
    # cannot proceed.
    assert all(len(case.claims) == 1 for case in cases if not case.faithful)
    assert summary["totals"]["false_passes"] == 0
    assert summary["totals"]["cases"] == len(cases)


def test_main_writes_a_json_report_and_a_markdown_table(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    assert bench.main(["--truth", "--sizes", "1,2", "--cases", "1", "--json",
                       "--out", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["judges"] == ["truth"]
    assert [(r["judge"], r["items"]) for r in report["results"]] == [("truth", 1), ("truth", 2)]
    table = bench.markdown(report)
    assert "## truth, 2 evidence items" in table and "| wrong_value | not proceed | 1 |" in table
    assert table.count("| truth |") == 2


@pytest.mark.parametrize(("argv", "message"), [
    (["--sizes", "1,x"], "--sizes must be integers"),
    (["--sizes", "0"], "--sizes must be integers >= 1"),
    (["--cases", "0"], "--cases must be >= 1"),
    (["--judge", "no-such-judge"], "unknown judge 'no-such-judge'"),
])
def test_bad_options_are_refused_with_a_clear_message(
        argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        bench.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
