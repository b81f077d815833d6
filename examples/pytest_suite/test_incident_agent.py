"""Grounding regression tests for the incident-response agent.

Two kinds of test live here. ``gsar_incident_agent.jsonl`` holds recorded agent outputs, one case
per line, collected by the gsar plugin without any Python. The tests below judge a recorded run
stored as JSON and the live agent (``gsar_otel.cli.demo_agent``, scripted and offline); replace them
with your own agent's runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gsar_otel.cli.demo_agent import (
    ALERT_ID,
    OVERREACHING_CLAIM,
    drop_unsupported_claims,
    investigate,
)
from gsar_otel.core.capture import collect_evidence

RECORDED = Path(__file__).parent / "recorded"


def test_the_recorded_answer_to_a9912_is_grounded(assert_grounded):
    run = json.loads((RECORDED / "a9912_run.json").read_text())
    result = assert_grounded(run["answer"], run["evidence"])
    assert result.final_partition.counts()["ungrounded"] == 0


# The demo agent's draft over-reaches once: it states a root cause the evidence never states.
# Four of five claims are grounded (S above the proceed bar), but an ungrounded conclusion caps
# the decision at regenerate: the answer is sent back to be rewritten from the same evidence.
@pytest.mark.gsar(decision="regenerate")
def test_the_first_draft_over_reaches_and_is_sent_back(assert_grounded):
    with collect_evidence() as evidence:
        draft = investigate(ALERT_ID)
    result = assert_grounded(draft, evidence)
    assert OVERREACHING_CLAIM in [c.text for c in result.final_partition.ungrounded]


def test_rewriting_from_the_same_evidence_recovers_a_grounded_answer(assert_grounded):
    with collect_evidence() as evidence:
        draft = investigate(ALERT_ID)
    result = assert_grounded(draft, evidence, regenerate_fn=drop_unsupported_claims)
    assert result.regenerations_used == 1
    assert OVERREACHING_CLAIM not in result.final_report
