"""Recording into one cassette from many processes at once: four pytest-xdist workers, and four
bare processes saving after every verdict. Every verdict is kept, the file is always valid JSON,
no temporary file is left behind, and a damaged cassette is replaced once, not fought over."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Claim, JudgeOutput
from gsar_otel.core.protocol import JudgeVerdict
from gsar_otel.judges.recorded.store import CassetteStore, read_cassette
from tests.plugin.helpers import read_json, write_cases
from tests.plugin.paid_judge import PAID_JUDGE_CONFTEST, host_case

CASES = 200
XDIST = ("-n", "4", "-p", "no:cacheprovider")


def generated_suite(pytester: pytest.Pytester) -> Path:
    """200 cases sharing one cassette, judged by the paid stand-in; returns the cassette path."""
    pytester.makeconftest(PAID_JUDGE_CONFTEST)
    write_cases(pytester, "gsar_cases.jsonl", [host_case(n) for n in range(CASES)])
    return pytester.path / "cassettes" / "gsar" / "gsar_cases.json"


def assert_complete(cassette: Path) -> None:
    verdicts = read_json(cassette)["verdicts"]
    assert len(verdicts) == CASES
    assert {entry["synthesis"] for entry in verdicts.values()} == {
        host_case(n)["synthesis"] for n in range(CASES)}
    assert [p.name for p in cassette.parent.iterdir()
            if p.name.endswith(".tmp")] == []


def test_four_workers_record_every_verdict_into_one_cassette(
        gsar_pytester: pytest.Pytester) -> None:
    cassette = generated_suite(gsar_pytester)
    result = gsar_pytester.runpytest_subprocess(*XDIST, "--gsar-record-mode=once")
    result.assert_outcomes(passed=CASES)
    assert_complete(cassette)
    # Every verdict replays: nothing was lost to a concurrent save.
    gsar_pytester.runpytest_subprocess(*XDIST).assert_outcomes(passed=CASES)


def test_four_workers_in_record_mode_all_replace_a_damaged_cassette_once(
        gsar_pytester: pytest.Pytester) -> None:
    cassette = generated_suite(gsar_pytester)
    cassette.parent.mkdir(parents=True)
    damaged = b'{"format": "gsar-cassette/1", "verdicts": {"abc": {"judge"'
    cassette.write_bytes(damaged)
    result = gsar_pytester.runpytest_subprocess(*XDIST, "--gsar-record-mode=all")
    result.assert_outcomes(passed=CASES)
    assert_complete(cassette)
    assert Path(f"{cassette}.damaged").read_bytes() == damaged


def _verdict(n: int) -> JudgeVerdict:
    return JudgeVerdict(output=JudgeOutput(
        grounding_score=1.0, is_grounded=True, grounded_claims=[Claim(f"claim {n}", "tool_match",
                                                                      ["E1"])],
        explanation="recorded"))


def _record(path: str, worker: int, count: int) -> None:
    """One process: record ``count`` verdicts, saving after each (the most contention)."""
    store = CassetteStore(path)
    for n in range(count):
        synthesis = f"worker {worker} answer {n}"
        store.put(f"{worker}-{n}", identity={"backend": "paid"}, synthesis=synthesis,
                  evidence=EvidenceSet.coerce([f"row {n}"]), verdict=_verdict(n))
        store.save()
        # Whatever the others did meanwhile, the file on disk is a whole cassette.
        json.loads(Path(path).read_text(encoding="utf-8"))


def test_four_processes_saving_after_every_verdict_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "cassettes" / "shared.json"
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_record, args=(str(path), w, 50)) for w in range(4)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(timeout=300)
    assert [p.exitcode for p in workers] == [0, 0, 0, 0]
    entries = read_cassette(path)
    assert sorted(entries) == sorted(f"{w}-{n}" for w in range(4) for n in range(50))
    assert sorted(p.name for p in path.parent.iterdir()) == ["shared.json"]
