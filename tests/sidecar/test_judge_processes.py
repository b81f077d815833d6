"""The offline judge in worker processes (``--judge-processes``): the same output as in process,
a worker that dies judged in process and counted, a clear error for a judge that is not offline,
and a sidecar judging a run through its workers."""

from __future__ import annotations

import asyncio
import json

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.process import ProcessJudge
from gsar_otel.judges.records.judge import RecordsJudge
from gsar_otel.sidecar.config import SidecarConfig
from gsar_otel.sidecar.server import Sidecar, _configured_judge
from tests.sidecar.support import GROUNDED, agent_tracer, run_genai_agent, start_sidecar

NOTED: list[tuple[str, str]] = []
PODS = ("NAME                      READY   STATUS             RESTARTS   AGE\n"
        "checkout-7d9f8-x2x9k      0/1     CrashLoopBackOff   14         2h\n"
        "checkout-7d9f8-q8lmn      1/1     Running            0          2h")
CASES = [
    ("checkout-7d9f8-x2x9k is in CrashLoopBackOff with 14 restarts.", [PODS]),
    ("checkout-7d9f8-q8lmn is in CrashLoopBackOff with 14 restarts.", [PODS]),
    ("The order total was $42.", [json.dumps({"order": {"total": 42.0, "currency": "usd"}})]),
]


@pytest.fixture
def judge():
    made = ProcessJudge("records", 1, note=lambda name, reason: NOTED.append((name, reason)))
    NOTED.clear()
    yield made
    made.close()


def _judged(judge: ProcessJudge, answer: str, items: list[object]):
    return asyncio.run(judge.judge(synthesis=answer, evidence=EvidenceSet.coerce(items)))


def test_a_worker_gives_the_output_the_judge_gives_in_process(judge):
    for answer, items in CASES:
        assert _judged(judge, answer, items) == RecordsJudge().judge_now(
            synthesis=answer, evidence=EvidenceSet.coerce(items))
    assert judge.started and judge.fallbacks == 0
    assert (judge.name, judge.deterministic, judge.checks_values) == ("records", True, True)


def test_a_worker_that_dies_is_judged_in_process_and_counted(judge):
    answer, items = CASES[0]
    expected = _judged(judge, answer, items)
    assert judge._pool._pool is not None
    for process in list(judge._pool._pool._processes.values()):  # type: ignore[attr-defined]
        process.kill()
        process.join(5)
    assert _judged(judge, answer, items) == expected
    assert judge.fallbacks == 1 and NOTED == [("judge_process", "process_failed")]
    assert _judged(judge, answer, items) == expected  # a pool started again
    assert judge.started and judge.fallbacks == 1


def test_a_closed_judge_judges_in_process(judge):
    answer, items = CASES[1]
    expected = RecordsJudge().judge_now(synthesis=answer, evidence=EvidenceSet.coerce(items))
    _judged(judge, answer, items)
    judge.close()
    assert not judge.started
    assert _judged(judge, answer, items) == expected


@pytest.mark.parametrize(("name", "processes"), [("anthropic", 2), ("tiered", 1),
                                                 ("records", 0), ("records", -1)])
def test_only_an_offline_judge_runs_in_at_least_one_process(name, processes):
    with pytest.raises(ValueError, match=r"offline judge|at least 1"):
        ProcessJudge(name, processes)


def test_the_sidecar_makes_the_offline_judge_it_is_told_in_processes():
    made = _configured_judge(SidecarConfig(judge="records", judge_processes=2))
    assert isinstance(made, ProcessJudge) and made.processes == 2 and not made.started
    assert not isinstance(_configured_judge(SidecarConfig(judge="records")), ProcessJudge)
    with pytest.raises(ValueError, match="--judge-processes runs an offline judge"):
        Sidecar(SidecarConfig(judge="anthropic", judge_processes=2))
    with pytest.raises(ValueError, match="judge_processes must be an integer >= 0"):
        SidecarConfig(judge_processes=-1)


def test_a_sidecar_judges_a_run_through_its_workers_and_stops_them():
    judge = ProcessJudge("records", 1)
    running = start_sidecar(judge=judge, judge_processes=1)
    try:
        tracer, provider = agent_tracer(OTLPSpanExporter(endpoint=f"{running.http}/v1/traces"))
        run_genai_agent(tracer, GROUNDED)
        provider.force_flush()
        running.wait_for(lambda: running.sidecar.stats.get("runs_judged") >= 1, "a run judged")
        verdicts = [s for s in running.exporter.get_finished_spans()
                    if s.name.startswith("gsar.evaluate")]
        assert verdicts and verdicts[0].attributes["gsar.judge.name"] == "records"
        assert judge.started and judge.fallbacks == 0
    finally:
        running.stop()
    assert not judge.started  # the sidecar's stop stopped its workers
