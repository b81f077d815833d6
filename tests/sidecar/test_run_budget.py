"""One run's judging cost is bounded before any judge starts: a run whose answer's claims times
its evidence rows are over ``max_judge_pairs`` (the issue's 1,000 claims x 1,000 rows) is not
judged but skipped, with a ``gsar.sidecar.skipped`` span giving the figures and a count on
``/metrics``; a run under it is judged as before, and 0 lifts the bound."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged.judge import StagedJudge
from gsar_otel.sidecar.config import SidecarConfig
from gsar_otel.sidecar.run_budget import DEFAULT_MAX_JUDGE_PAIRS, evidence_rows, judging_cost
from tests.sidecar.support import RunningSidecar, start_sidecar
from tests.sidecar.test_receiver_http import kv, otlp_json, post, span

ROOT = "a" * 16


class CountingJudge:
    """The staged judge, counting its calls."""

    name = "counting"

    def __init__(self) -> None:
        self.inner = StagedJudge()
        self.calls = 0

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> Any:
        self.calls += 1
        return await self.inner.judge(synthesis=synthesis, evidence=evidence)


def run_body(trace_id: str, claims: int, rows: int) -> bytes:
    """A GenAI run: ``rows`` tool spans of one metric row each, an answer of ``claims``
    sentences."""
    answer = " ".join(f"Host web-{i} CPU reached {i % 100}.{i % 7}% at 14:{i % 60:02d} UTC."
                      for i in range(claims))
    final = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": answer}],
                         "finish_reason": "stop"}])
    spans = [span(ROOT, "", "invoke_agent bot", [
        kv("gen_ai.operation.name", "invoke_agent"), kv("gen_ai.agent.name", "bot"),
        kv("gen_ai.output.messages", final)], trace_id)]
    spans += [span(f"{i + 1:016x}", ROOT, "execute_tool get_metrics", [
        kv("gen_ai.operation.name", "execute_tool"), kv("gen_ai.tool.name", "get_metrics"),
        kv("gen_ai.tool.call.id", f"call_{i}"),
        kv("gen_ai.tool.call.result", f"host=web-{i} cpu_pct={(i * 13) % 100}.{i % 9}")],
        trace_id) for i in range(rows)]
    return otlp_json(*spans)


def metrics(running: RunningSidecar) -> str:
    with urllib.request.urlopen(f"{running.http}/metrics", timeout=30) as response:
        return str(response.read().decode())


def send_and_count(running: RunningSidecar, trace_id: str, claims: int, rows: int,
                   total: int) -> None:
    assert post(running, run_body(trace_id, claims, rows))[0] == 200
    stats = running.sidecar.stats
    running.wait_for(lambda: sum(stats.get(name) for name in (
        "runs_judged", "runs_skipped", "runs_failed", "runs_dropped")) == total, "the run counted")


def test_the_issues_run_of_a_thousand_claims_by_a_thousand_rows_is_skipped_unjudged() -> None:
    judge = CountingJudge()
    running = start_sidecar(judge=judge, max_body_bytes=8 * 1024 * 1024,
                            max_decompressed_bytes=8 * 1024 * 1024)
    try:
        assert running.sidecar.config.max_judge_pairs == DEFAULT_MAX_JUDGE_PAIRS
        send_and_count(running, "1" * 32, 1_000, 1_000, 1)
        assert judge.calls == 0  # no judge started: no pool thread held by it
        assert running.sidecar.stats.get("runs_skipped", "judging_budget") == 1
        [skipped] = [s for s in running.exporter.get_finished_spans()
                     if s.name == "gsar.sidecar.skipped"]
        assert running.evaluations() == []
        assert skipped.attributes is not None
        assert skipped.attributes["gsar.sidecar.skipped.reason"] == "judging_budget"
        hint = str(skipped.attributes["gsar.sidecar.skipped.hint"])
        assert "1000 claims x 1000 evidence rows = 1000000 pairs" in hint
        assert "--max-judge-pairs" in hint
        assert ('gsar_sidecar_runs_total{gsar_sidecar_outcome="skipped",'
                'gsar_sidecar_reason="judging_budget"} 1') in metrics(running)

        send_and_count(running, "2" * 32, 5, 5, 2)  # a run under the budget: judged
        assert judge.calls == 1 and running.sidecar.stats.get("runs_judged") == 1
    finally:
        running.stop()


def test_a_budget_of_zero_judges_every_run() -> None:
    judge = CountingJudge()
    running = start_sidecar(judge=judge, max_judge_pairs=0)
    try:
        send_and_count(running, "3" * 32, 40, 40, 1)
        assert judge.calls == 1 and running.sidecar.stats.get("runs_judged") == 1
    finally:
        running.stop()


def test_a_small_budget_skips_a_run_just_over_it_and_judges_one_at_it() -> None:
    judge = CountingJudge()
    running = start_sidecar(judge=judge, max_judge_pairs=12)
    try:
        send_and_count(running, "4" * 32, 3, 4, 1)  # 12 pairs: at the budget
        send_and_count(running, "5" * 32, 3, 5, 2)  # 15 pairs: over it
        assert judge.calls == 1
        assert running.sidecar.stats.get("runs_skipped", "judging_budget") == 1
    finally:
        running.stop()


def test_rows_are_lines_or_json_objects_and_claims_are_sentences() -> None:
    assert evidence_rows("") == 1
    assert evidence_rows("a=1\n\nb=2\nc=3\n") == 3
    assert evidence_rows(json.dumps([{"host": f"h{i}"} for i in range(50)])) == 50
    cost = judging_cost("CPU was 97%. Memory was 12%.\nDisk was 3%.", ["a=1\nb=2", "c=3"])
    assert (cost.claims, cost.rows, cost.pairs) == (3, 3, 9)
    assert cost.over(8) and not cost.over(9) and not cost.over(0)
    assert judging_cost(None, ["x"]).pairs == 0
    # within the evidence set's limits: an item's first 20,000 characters, 2,000 items
    assert judging_cost("A.", ["r\n" * 30_000]).rows == 10_000
    assert judging_cost("A.", ["r"] * 3_000).rows == 2_000


@pytest.mark.parametrize("value", [-1, True, 1.5])
def test_a_bad_budget_is_refused(value: object) -> None:
    with pytest.raises(ValueError, match="max_judge_pairs"):
        SidecarConfig(max_judge_pairs=value)  # type: ignore[arg-type]


def test_a_small_run_is_extracted_on_the_judging_loop() -> None:
    """A run of a few KiB is read on the judging loop (no pool job, two thread switches fewer);
    the issue's 1,000 x 1,000 run (over 64 KiB of values) still goes to the extraction pool."""
    running = start_sidecar(judge=CountingJudge(), max_body_bytes=8 * 1024 * 1024,
                            max_decompressed_bytes=8 * 1024 * 1024)
    try:
        extractor = running.sidecar._extractor
        assert extractor is not None
        send_and_count(running, "6" * 32, 3, 3, 1)
        assert extractor.inline == 1
        send_and_count(running, "7" * 32, 1_000, 1_000, 2)
        assert extractor.inline == 1
    finally:
        running.stop()
