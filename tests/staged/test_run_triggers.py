"""What started a run: "the deploy-prod run was triggered by a push" is the record's trigger
field (``event: push``), never an alert that fired or an unstated cause; another trigger is
contradicted, a trigger no record states is not grounded."""

from __future__ import annotations

import json

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

TRIGGERS = {"push": "a push", "pull_request": "a pull request", "schedule": "the nightly schedule",
            "workflow_dispatch": "a workflow dispatch", "merge_request": "a merge request",
            "webhook": "a webhook", "tag": "a tag", "api": "an API call"}
"""A trigger field's value and how an answer writes it."""
VERBS = ("was triggered by", "was started by", "was kicked off by", "was initiated by",
         "was launched by")
NOUNS = ("run", "workflow run", "pipeline", "build", "job", "deployment")
KEYS = ("event", "source", "trigger", "triggered_by")
UNRELATED = ["2024-05-01T10:00:00Z ERROR payments-api: timeout calling ledger",
             "ALERT ALRT-7 HighLatency on checkout-api fired at 10:02",
             "host=db-1 cpu_pct=12.5 conn_count=40"]


def _record(key: str, value: str, shape: str) -> str:
    if shape == "json":
        return json.dumps({"id": 8812, "name": "deploy-prod", key: value, "status": "completed",
                           "conclusion": "success"})
    return f"pipeline=deploy-prod {key}={value} status=success duration_s=184"


def _verdict(claim: str, items: list[str]) -> str:
    verdicts = StagedJudge().explain(synthesis=claim, evidence=EvidenceSet.coerce(items))
    assert len(verdicts) == 1, claim
    return verdicts[0].bucket


@settings(max_examples=60, deadline=None)
@given(key=st.sampled_from(KEYS), value=st.sampled_from(sorted(TRIGGERS)),
       other=st.sampled_from(sorted(TRIGGERS)), verb=st.sampled_from(VERBS),
       noun=st.sampled_from(NOUNS), shape=st.sampled_from(["json", "row"]),
       unrelated=st.permutations(UNRELATED), where=st.integers(0, 3))
@example(key="event", value="push", other="schedule", verb="was triggered by", noun="run",
         shape="json", unrelated=UNRELATED, where=0)
def test_a_runs_trigger_is_its_trigger_field(key: str, value: str, other: str, verb: str,
                                             noun: str, shape: str, unrelated: list[str],
                                             where: int) -> None:
    record = _record(key, value, shape)
    items = [*unrelated[:where], record, *unrelated[where:]]
    said = f"The deploy-prod {noun} {verb} {TRIGGERS[value]}."
    assert _verdict(said, [record]) == "grounded", (said, record)
    # unrelated items, added or reordered, change nothing
    assert _verdict(said, items) == "grounded", (said, items)
    if other != value:
        wrong = f"The deploy-prod {noun} {verb} {TRIGGERS[other]}."
        assert _verdict(wrong, [record]) == "contradicted", (wrong, record)
        assert _verdict(wrong, items) == "contradicted", (wrong, items)


@settings(max_examples=30, deadline=None)
@given(value=st.sampled_from(sorted(TRIGGERS)), verb=st.sampled_from(VERBS),
       noun=st.sampled_from(NOUNS))
def test_a_trigger_no_record_states_is_not_grounded(value: str, verb: str, noun: str) -> None:
    record = json.dumps({"id": 8812, "name": "deploy-prod", "status": "completed",
                         "conclusion": "success", "run_attempt": 1})
    said = f"The deploy-prod {noun} {verb} {TRIGGERS[value]}."
    assert _verdict(said, [record, *UNRELATED]) != "grounded", said


def test_what_an_alert_was_triggered_by_is_still_a_cause() -> None:
    # no run: "triggered by" states a cause, which a record must state
    record = "ALERT ALRT-7 HighLatency on checkout-api fired at 10:02"
    said = "Alert ALRT-7 was triggered by a bad config push on checkout-api."
    verdicts = StagedJudge().explain(synthesis=said, evidence=EvidenceSet.coerce([record]))
    assert [v.bucket for v in verdicts] == ["ungrounded"]
    assert verdicts[0].reason.startswith("cause:")


def test_what_a_deploy_triggered_is_still_a_cause() -> None:
    # the run is the trigger here, not what was triggered
    items = ["2024-05-01T13:30:00Z INFO deployer: deploy of payments-api v2.12.4 finished",
             "2024-05-01T13:34:39Z ALERT HighLatencyP99 fired for payments-api"]
    said = "The latency spike was triggered by the deploy of payments-api v2.12.4."
    verdicts = StagedJudge().explain(synthesis=said, evidence=EvidenceSet.coerce(items))
    assert [v.bucket for v in verdicts] == ["ungrounded"]
    assert verdicts[0].reason.startswith("cause:")
