"""A process of judged agent calls for Prometheus to scrape: every outcome the dashboards chart.

Run from the repository root::

    GSAR_BACKGROUND_QUEUE_SIZE=4 python -m tests.dashboards.workload --port 9464

It serves its metrics on 127.0.0.1:PORT through ``configure_telemetry(prometheus_port=...)`` and
runs cycles of ``@grounded`` calls with the offline ``StagedJudge``: answers that proceed,
regenerate and replan, claims of all four verdicts, a recovery loop that ends degraded, a tiered
judge whose model tier grounds what the records leave unverified, an over-trusting model judge
whose wrong numbers the records dispute, a judge
that fails (so the call abstains and ``gsar.judge.errors`` counts the error type), a judge that
reports token usage, and bursts of background calls that overflow the bounded queue
(``gsar.background.dropped``). A ``gsar sidecar`` in the same process (``sidecar_load.py``)
receives agent runs over OTLP each cycle, so the ``gsar.sidecar.*`` series are scraped too.

It prints ``serving PORT`` once the endpoint is up, keeps running cycles until a ``stop`` line
arrives on stdin (or ``--max-load-seconds`` pass), prints ``stopped CYCLES``, and keeps serving
the final values until stdin closes or ``--serve-seconds`` pass.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import threading
import time
from typing import Any

from gsar_otel import grounded, record_evidence
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Claim, EvidenceType, JudgeOutput
from gsar_otel.core.protocol import JudgeUsage, JudgeVerdict
from gsar_otel.decorator.api import flush
from gsar_otel.judges.staged.judge import StagedJudge
from gsar_otel.judges.tiered.dispute import mark_model_claims
from gsar_otel.judges.tiered.judge import TieredJudge
from gsar_otel.judges.tiered.model_tier import ClaimsTask
from gsar_otel.otel.setup import configure_telemetry
from tests.dashboards.sidecar_load import SidecarLoad

EVIDENCE: list[tuple[str, str, EvidenceType]] = [
    ("M1", "cpu_pct=97.2 on host web-3 at 14:02", EvidenceType.TOOL_MATCH),
    ("M2", "rps=12.4 on checkout at 14:03", EvidenceType.TOOL_MATCH),
    ("D1", "Deploy 4711 of checkout finished at 14:01", EvidenceType.SPECIFIC_DATA),
    ("A1", "Alert HighLatency fired for checkout at 14:02", EvidenceType.SIGNAL_MATCH),
]

ANSWERS = {
    # every claim grounded: S = 1.0, proceed
    "proceed": ("CPU on web-3 reached 97.2% at 14:02. Request rate on checkout was "
                "12.4 RPS at 14:03. Deploy 4711 of checkout finished at 14:01. The HighLatency "
                "alert fired for checkout at 14:02."),
    # a framing line, and a summing-up sentence of nothing new: a complementary claim; proceeds
    "summary": ("Here is a summary:\nCPU on web-3 reached 97.2% at 14:02. Request rate on "
                "checkout was 12.4 RPS at 14:03. Deploy 4711 of checkout finished at "
                "14:01. The HighLatency alert fired for checkout at 14:02. These observations "
                "show a real incident."),
    # two grounded, one causal inference: S ~ 0.77, regenerate
    "regenerate": ("CPU on web-3 reached 97.2% at 14:02. Request rate on checkout was "
                   "12.4 RPS at 14:03. The outage was probably caused by the deploy."),
    # mostly speculation: S ~ 0.36, replan
    "replan": ("CPU on web-3 reached 97.2% at 14:02. The outage was caused by a config push. "
               "The database probably ran out of connections. Memory likely leaked in the cache."),
    # a wrong number: contradicted claims
    "contradicted": ("The request rate held steady at 4500 RPS. CPU was 40% on web-3 at 14:02. "
                     "Deploy 4711 of checkout finished at 14:01."),
}


def gather_evidence() -> None:
    """What the agent's tools returned, recorded as evidence of the current call."""
    for evidence_id, content, kind in EVIDENCE:
        record_evidence(content, id=evidence_id, type=kind, source="workload")


class MeteredJudge:
    """The offline judge, reporting token usage as a model-backed judge would."""

    name = "metered-lexical"
    model = "lexical-v1"

    def __init__(self) -> None:
        self._inner = StagedJudge()

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        return await self._inner.judge(synthesis=synthesis, evidence=evidence)

    async def judge_verdict(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeVerdict:
        output = await self.judge(synthesis=synthesis, evidence=evidence)
        prompt_words = len(synthesis.split()) + sum(len(e.content.split()) for e in evidence)
        usage = JudgeUsage(input_tokens=4 * prompt_words, output_tokens=3 * len(synthesis.split()),
                           cache_read_input_tokens=2 * prompt_words)
        return JudgeVerdict(output=output, usage=usage, model=self.model)


class FramingJudge:
    """The lexical judge, plus one complementary claim: an alternative reading of the incident.

    Complementary claims come from model judges far more often than from the lexical one, so
    the workload adds one itself to make sure every verdict reaches the dashboards.
    """

    name = "framing-lexical"

    def __init__(self) -> None:
        self._inner = StagedJudge()

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        output = await self._inner.judge(synthesis=synthesis, evidence=evidence)
        extra = Claim("Checkout latency may also reflect upstream saturation.",
                      EvidenceType.COMPLEMENTARY_FINDING)
        return output.model_copy(
            update={"complementary_claims": (*output.complementary_claims, extra)})


class CredulousModel:
    """A model judge that grounds every claim it is shown, as an over-trusting model would.

    As the model tier of a :class:`TieredJudge` it is asked only about the claims the records
    leave unverified (``gsar.judge.claims`` counts both tiers); alone, its grounded claims get
    the records' second opinion, so a wrong number it grounds is disputed
    (``gsar.claims.disputed``).
    """

    name = "credulous-model"
    model = "credulous-v1"

    def __init__(self) -> None:
        self._inner = StagedJudge()

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        try:
            texts = ClaimsTask.loads(synthesis).claims
        except ValueError:  # a whole answer, not a tier's task: the offline split, all grounded
            output = await self._inner.judge(synthesis=synthesis, evidence=evidence)
            texts = tuple(c.text for _, claims in output.to_partition().buckets() for c in claims)
            return mark_model_claims(self._believe(texts, evidence), evidence)
        return self._believe(texts, evidence)

    @staticmethod
    def _believe(texts: tuple[str, ...], evidence: EvidenceSet) -> JudgeOutput:
        refs = tuple(item.id for item in evidence)
        return JudgeOutput(grounded_claims=tuple(
            Claim(t, EvidenceType.SPECIFIC_DATA, evidence_refs=refs) for t in texts),
            grounding_score=1.0, is_grounded=True)


class RateLimitError(Exception):
    """Stands in for a provider's 429."""


class FailingJudge:
    """A judge whose provider is down: alternately rate-limited and timing out."""

    name = "failing"

    def __init__(self) -> None:
        self._calls = 0

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        self._calls += 1
        if self._calls % 2:
            raise RateLimitError("429 from the provider")
        raise TimeoutError("the provider did not answer")


class SlowJudge:
    """The lexical judge behind a slow network: background jobs pile up behind it."""

    name = "slow-lexical"

    def __init__(self, delay_s: float) -> None:
        self._inner = StagedJudge()
        self._delay_s = delay_s

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        await asyncio.sleep(self._delay_s)
        return await self._inner.judge(synthesis=synthesis, evidence=evidence)


lexical = StagedJudge()
metered = MeteredJudge()


@grounded(judge=FramingJudge(), name="frame_incident")
def frame_incident() -> str:
    gather_evidence()
    return ANSWERS["summary"]


@grounded(judge=TieredJudge(CredulousModel()), name="tier_incident")
def tier_incident(kind: str) -> str:
    gather_evidence()
    return ANSWERS[kind]


@grounded(judge=CredulousModel(), name="believe_incident")
def believe_incident() -> str:
    gather_evidence()
    record_evidence("cpu_pct=41.0 on host web-4 at 14:02", id="M3", type=EvidenceType.TOOL_MATCH,
                    source="workload")
    # web-3's value said of web-4: grounded by the model, disputed by the records
    return "CPU was 97.2% on web-4 at 14:02. Deploy 4711 of checkout finished at 14:01."



@grounded(judge=lexical, name="triage_incident")
def triage_incident(kind: str) -> str:
    gather_evidence()
    return ANSWERS[kind]


@grounded(judge=metered, name="summarise_alerts")
async def summarise_alerts(kind: str) -> str:
    gather_evidence()
    return ANSWERS[kind]


def keep_the_same_text(synthesis: str, judge_output: Any) -> str:
    """A regenerate step that cannot improve the answer: the loop stalls and ends degraded."""
    return synthesis


@grounded(judge=lexical, on_low="recover", regenerate_fn=keep_the_same_text, k_max=1,
          name="explain_outage")
def explain_outage() -> str:
    gather_evidence()
    return ANSWERS["regenerate"]


@grounded(judge=FailingJudge(), name="lookup_runbook")
def lookup_runbook() -> str:
    gather_evidence()
    return ANSWERS["proceed"]


@grounded(judge=SlowJudge(0.05), mode="background", name="digest_in_background")
def digest_in_background(kind: str) -> str:
    gather_evidence()
    return ANSWERS[kind]


def run_cycle(cycle: int, sidecar: SidecarLoad | None = None) -> None:
    """One round of calls covering every outcome."""
    if sidecar is not None:
        sidecar.cycle(cycle)
    for kind in ("proceed", "summary", "regenerate", "replan", "contradicted"):
        triage_incident(kind)
    tier_incident(("regenerate", "replan", "contradicted")[cycle % 3])
    believe_incident()
    frame_incident()
    asyncio.run(summarise_alerts(("proceed", "regenerate", "replan")[cycle % 3]))
    explain_outage()
    lookup_runbook()
    # A burst bigger than the queue: the first few are judged, the rest dropped and counted.
    for index in range(12):
        digest_in_background(("proceed", "replan")[index % 2])


def main(argv: list[str] | None = None) -> int:
    """Serve metrics and run judged calls until told to stop."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--max-load-seconds", type=float, default=60.0)
    parser.add_argument("--serve-seconds", type=float, default=120.0)
    parser.add_argument("--pause-seconds", type=float, default=0.1,
                        help="pause between cycles, so the load spreads over several scrapes")
    args = parser.parse_args(argv)

    handle = configure_telemetry(service_name="gsar-dashboard-workload", console=False,
                                 otlp=False, prometheus_port=args.port)
    stop = threading.Event()
    stdin_closed = threading.Event()

    def read_commands() -> None:
        for line in sys.stdin:
            if line.strip() == "stop":
                stop.set()
        stop.set()
        stdin_closed.set()

    threading.Thread(target=read_commands, daemon=True).start()
    sidecar = SidecarLoad(SlowJudge(0.3), tracer_provider=handle.tracer_provider,
                          meter_provider=handle.meter_provider)
    print(f"serving {handle.prometheus_port}", flush=True)
    deadline = time.monotonic() + args.max_load_seconds
    cycles = 0
    while not stop.is_set() and time.monotonic() < deadline:
        run_cycle(cycles, sidecar)
        cycles += 1
        stop.wait(args.pause_seconds)
    flush(timeout=10.0)
    print(f"stopped {cycles}", flush=True)
    stdin_closed.wait(args.serve_seconds)
    sidecar.stop()
    handle.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
