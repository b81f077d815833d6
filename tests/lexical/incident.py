"""Incident evidence and small helpers shared by the offline judge's rule tests."""

from __future__ import annotations

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import JudgeOutput
from gsar_otel.judges.staged.judge import StagedJudge
from gsar_otel.judges.staged.verdicts import ClaimVerdict

CPU_ROW = "[tool=query_metrics row=14:02:01] host=db-prod-1 cpu_pct=97.2"
RPS_ROW = "[tool=query_metrics row=14:02:01] host=db-prod-1 rps=12.4"
ALERT_ROW = "[signal] alert_id=A-9912 fired_at=14:02:00 metric=cpu_pct severity=high"
EVIDENCE_A = [CPU_ROW, RPS_ROW, ALERT_ROW]
"""GSAR-SPEC §8 Evidence A: a grounded CPU spike."""

OUTAGE_EVIDENCE = [
    "[tool=query_metrics row=02:50:00] cluster=us-west-2a request_rate=0",
    "[signal] alert_id=A-1042 fired_at=02:48:12 metric=availability severity=critical",
]

PUSH_EVIDENCE = [
    "[tool=search_logs] 14:01:30 deploy-bot: config push cfg-4471 applied to db-prod-1",
    "[signal] alert_id=A-7731 fired_at=14:02:00 metric=availability severity=critical "
    "host=db-prod-1",
]
"""A config push thirty seconds before an outage alert, and nothing that links the two."""

# The request rate is stated as the one sample it is: "dropped to 12 RPS" would be a trend, and
# a trend needs two values or a stated change (E2 holds one rps sample), so it is ungrounded.
SCENARIO_1 = ("CPU utilisation on host db-prod-1 reached 97% at 14:02 UTC. Request rate was 12 RPS "
              "at the same time. These two observations indicate the spike is real.")
SCENARIO_4 = ("CPU utilisation on host db-prod-1 reached 97% at 14:02 UTC. Request rate held "
              "steady at 4500 RPS throughout the spike. An alert fired at 14:02 UTC.")
SCENARIO_4_FIXED = ("CPU utilisation on host db-prod-1 reached 97% at 14:02 UTC. An alert fired at "
                    "14:02 UTC.")
OUTAGE_REPORT = ("The outage was caused by a failed power supply unit in rack 7B. The replacement "
                 "was completed at 03:15 UTC. Customer-facing latency returned to baseline within "
                 "8 minutes.")


def judge(synthesis: str, evidence: object) -> JudgeOutput:
    """The offline judge's verdict, synchronously."""
    return StagedJudge().judge_now(synthesis=synthesis, evidence=EvidenceSet.coerce(evidence))


def explain(synthesis: str, evidence: object) -> list[ClaimVerdict]:
    """Every claim with its bucket, type, refs and reason."""
    return StagedJudge().explain(synthesis=synthesis, evidence=EvidenceSet.coerce(evidence))


def verdict(claim: str, evidence: object) -> ClaimVerdict:
    """The verdict on a one-claim answer."""
    verdicts = explain(claim, evidence)
    assert len(verdicts) == 1, [v.text for v in verdicts]
    return verdicts[0]
