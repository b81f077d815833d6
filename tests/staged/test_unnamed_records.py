"""A word a claim gives a field of a record it does not name: "the run was on the release
branch" beside the one CI run listed, ``head_branch: main``.

The claim names no subject, so the record may not be the one it means: another word for the
field, stated by no evidence item, is a value the evidence lacks (never grounded), while the
record's own word is grounded; naming the record ("the deploy-prod run") makes the same word
a contradiction."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()
FIELDS = [("head_branch", "branch", ["main", "release", "hotfix", "develop"]),
          ("strategy", "strategy", ["canary", "bluegreen", "recreate", "rolling"]),
          ("trigger_event", "event", ["push", "schedule", "dispatch", "tag"])]


def bucket(claim: str, items: list[str]) -> str:
    got = [v.bucket for v in judge.explain(synthesis=claim, evidence=EvidenceSet.coerce(items))]
    assert len(got) == 1, (claim, got)
    return got[0]


@settings(max_examples=40, deadline=None)
@given(field=st.sampled_from(FIELDS), pick=st.integers(0, 3), other=st.integers(1, 3),
       run=st.integers(1000, 99999))
def test_another_word_for_a_field_of_an_unnamed_record_is_never_grounded(
        field: tuple[str, str, list[str]], pick: int, other: int, run: int) -> None:
    key, noun, words = field
    own, said = words[pick], words[(pick + other) % len(words)]
    record = json.dumps({"id": run, "name": "deploy-prod", key: own, "status": "completed",
                         "conclusion": "success"})
    assert bucket(f"The run used the {own} {noun}.", [record]) == "grounded", record
    assert bucket(f"The run used the {said} {noun}.", [record]) != "grounded", record
    assert bucket(f"The deploy-prod run used the {said} {noun}.", [record]) == "contradicted", \
        record


@settings(max_examples=20, deadline=None)
@given(status=st.sampled_from(["completed", "in_progress", "queued"]), run=st.integers(1, 9999))
def test_a_run_in_progress_has_no_outcome_yet(status: str, run: int) -> None:
    """"Still in progress" is a run with no outcome yet: contradicted by a completed run,
    grounded by one in progress."""
    record = json.dumps({"id": run, "name": "deploy-prod", "status": status,
                         "conclusion": "success" if status == "completed" else None})
    verdict = bucket("The deploy-prod run is still in progress.", [record])
    # queued is under way too (no outcome), but not running: never contradicted as finished
    assert verdict == {"completed": "contradicted", "in_progress": "grounded"}.get(
        status, verdict), record
    assert verdict != "contradicted" or status == "completed", record
