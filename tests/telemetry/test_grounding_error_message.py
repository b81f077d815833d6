"""An uncaught GroundingError reads cleanly: no unrelated chained exception, and its message lists
every claim that is not grounded (bucket, evidence type, refs, text), secrets masked."""

from __future__ import annotations

import traceback

import pytest

from gsar_otel import GroundingError, grounded, record_evidence
from gsar_otel.core.model import Claim, JudgeOutput
from tests.telemetry.helpers import ANSWER, CPU_ROW, Otel, ScriptedJudge


def raise_mode_error(judge: ScriptedJudge) -> GroundingError:
    @grounded(judge=judge, on_low="raise")
    def agent() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    with pytest.raises(GroundingError) as raised:
        agent()
    return raised.value


def test_a_sync_raise_carries_no_event_loop_error_in_its_chain(otel: Otel) -> None:
    error = raise_mode_error(ScriptedJudge())
    assert error.__cause__ is None
    assert error.__context__ is None
    printed = "".join(traceback.format_exception(error))
    assert "no running event loop" not in printed
    assert "During handling of the above exception" not in printed


def test_the_message_lists_every_claim_that_is_not_grounded(otel: Otel) -> None:
    error = raise_mode_error(ScriptedJudge())
    lines = str(error).splitlines()
    assert "grounding decision 'replan' (score 0.62) is not 'proceed'" in lines[0]
    assert lines[1] == "claims not grounded (1 of 2):"
    assert lines[2] == ("  - ungrounded, inference, refs none: "
                        "'The spike was caused by a runaway query'")
    assert len(lines) == 3


def test_contradicted_claims_are_listed_with_their_refs_and_secrets_are_masked(otel: Otel) -> None:
    key = "sk-ant-api03-" + "Q" * 40
    output = JudgeOutput(
        grounding_score=0.2, is_grounded=False,
        contradicted_claims=[Claim("CPU on db-prod-1 was 12%", "tool_match", ["E1"])],
        ungrounded_claims=[Claim(f"Rotate the key {key} now", "inference")])
    message = str(raise_mode_error(ScriptedJudge(outputs=[output])))
    # The integrity guard adds the answer's uncovered sentences: they are listed too.
    assert "claims not grounded (4 of 4):" in message
    assert "  - contradicted, tool_match, refs E1: 'CPU on db-prod-1 was 12%'" in message
    assert key not in message
    assert "Rotate the key" in message
