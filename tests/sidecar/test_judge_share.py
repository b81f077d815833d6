"""``POST /v1/judge`` is judged apart from trace runs: with every ``/v1/judge`` place held by a
judgement that does not end, a trace run is still judged; past its places and queue a request is
answered 429 with ``Retry-After``, counted, rather than waiting without bound."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from typing import Any

from gsar_otel.runtime.pool import get_pool
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import JudgeOutput
from gsar_otel.judges.staged.judge import StagedJudge
from gsar_otel.sidecar.intake.admission import NetworkLimits
from tests.sidecar.support import CPU_ROW, GROUNDED, start_sidecar
from tests.sidecar.test_receiver_http import agent_spans, otlp_json, post

HELD = "held: this judgement waits for the test"


class HoldingJudge:
    """The offline judge, run synchronously on a worker pool (``judge_now``); a judgement of
    an answer starting with :data:`HELD` waits until ``release`` is set."""

    name = "holding"

    def __init__(self) -> None:
        self.inner = StagedJudge()
        self.release = threading.Event()
        self.held = 0
        self._lock = threading.Lock()

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        raise AssertionError("a synchronous judge is called through judge_now")

    def judge_now(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        if synthesis.startswith(HELD):
            with self._lock:
                self.held += 1
            self.release.wait(120)
        return self.inner.judge_now(synthesis=synthesis, evidence=evidence)


def _judge_request(base: str, out: list[Any]) -> None:
    body = json.dumps({"answer": f"{HELD}. {GROUNDED}", "evidence": [CPU_ROW]}).encode()
    request = urllib.request.Request(f"{base}/v1/judge", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            out.append((response.status, response.headers.get("Retry-After")))
    except urllib.error.HTTPError as error:
        out.append((error.code, error.headers.get("Retry-After")))


def test_a_trace_run_is_judged_while_every_v1_judge_place_is_held() -> None:
    judge = HoldingJudge()
    # As many /v1/judge places as the process pool has threads: sharing that pool, the held
    # judgements would take every one of its threads.
    places = get_pool().max_workers
    running = start_sidecar(judge=judge,  # type: ignore[arg-type]
                            network=NetworkLimits(judge_concurrency=places, judge_queue=1))
    answers: list[Any] = []
    threads = [threading.Thread(target=_judge_request, args=(running.http, answers))
               for _ in range(places)]
    try:
        for thread in threads:
            thread.start()
        running.wait_for(lambda: judge.held == places, "every /v1/judge place held")
        assert post(running, otlp_json(*agent_spans()))[0] == 200
        stats = running.sidecar.stats
        running.wait_for(lambda: stats.get("runs_judged") == 1, "the trace run judged", 60)
        assert judge.held == places and not answers  # judged while they were all held
        [evaluation] = running.evaluations()
        assert evaluation.attributes is not None
        assert evaluation.attributes["gsar.decision"] == "proceed"

        queued = threading.Thread(target=_judge_request, args=(running.http, answers))
        queued.start()  # takes the one waiting place
        running.wait_for(lambda: running.call(
            lambda: running.sidecar._receivers[0].judge_gate.held) == places + 1,
            "the queued request admitted")
        over: list[Any] = []
        _judge_request(running.http, over)  # past the places and the queue
        assert over == [(429, "1")]
        assert stats.get("spans", "rejected_judge_busy") == 1
        threads.append(queued)
    finally:
        judge.release.set()
        for thread in threads:
            thread.join(60)
        running.stop()
    assert [status for status, _ in answers] == [200] * (places + 1)
