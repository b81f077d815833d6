"""A replay scores exactly what was recorded, even when the answer holds secrets.

The cassette masks every secret, also in the recorded claims; a replayed verdict must still
cover the answer's sentences as the recorded one did, or the integrity guard finds sentences
"uncovered" on replay only (recorded S=1.0 proceed, replayed S=0.769 regenerate).
"""

from __future__ import annotations

import asyncio
import string
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Claim, EvidenceType, JudgeOutput
from gsar_otel.core.result import GSARResult
from gsar_otel.core.text import split_sentences
from gsar_otel.judges.recorded.judge import RecordingJudge
from gsar_otel.judges.recorded.store import CassetteStore
from gsar_otel.plugins import hookimpl, register, unregister
from tests.core.test_redact import secret_shape

IDENTITY = {"backend": "echo", "model": "echo-1", "prompt_version": "1"}
METRIC_ROW = "[tool=query_metrics row=14:02:01] host=db-prod-1 cpu_pct=97.2"


class EchoJudge:
    """Puts every sentence of the answer in grounded_claims, word for word, citing E1; repeats
    the first sentence in the explanation (a judge quotes what it judges)."""

    name = "echo"
    deterministic = False

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        sentences = split_sentences(synthesis)
        claims = [Claim(text=s, type=EvidenceType.TOOL_MATCH, evidence_refs=["E1"])
                  for s in sentences]
        return JudgeOutput(grounded_claims=claims, is_grounded=True, grounding_score=1.0,
                           explanation=f"backed: {sentences[0] if sentences else ''}")


def _judge(path: Path, mode: str) -> RecordingJudge:
    return RecordingJudge(EchoJudge(), CassetteStore(path), mode, identity=IDENTITY)


def _evaluate(judge: RecordingJudge, answer: str, evidence: list[str]) -> GSARResult:
    evaluator = GSAREvaluator(judge, k_max=0)
    return asyncio.run(evaluator.evaluate(report_synthesis=answer, evidence_corpus=evidence))


def _buckets(result: GSARResult) -> list[tuple[str, list[tuple[str, str, tuple[str, ...]]]]]:
    return [(bucket, [(c.text, str(c.type), tuple(c.evidence_refs)) for c in claims])
            for bucket, claims in result.final_partition.buckets()]


sentence = st.text(string.ascii_letters + " ", min_size=3, max_size=30).map(str.strip).filter(bool)


@st.composite
def answer_with_secrets(draw: st.DrawFn) -> tuple[str, list[str]]:
    """An answer of sentences, some holding a secret shape, and evidence that may hold them too."""
    parts: list[str] = []
    secrets: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            text, _secret = draw(secret_shape())
            secrets.append(text)
            parts.append(f"{draw(sentence)} {text} {draw(sentence)}.")
        else:
            parts.append(f"CPU on host db-prod-1 reached 97% at 14:02 {draw(sentence)}.")
    evidence = [METRIC_ROW]
    if secrets and draw(st.booleans()):
        evidence.append(f"config dump: {draw(st.sampled_from(secrets))}")
    return " ".join(parts), evidence


@settings(max_examples=60, deadline=None)
@given(answer_with_secrets())
def test_a_replay_scores_exactly_what_was_recorded(case: tuple[str, list[str]]) -> None:
    answer, evidence = case
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "cassette.json"
        recording = _judge(path, "all")
        recorded = _evaluate(recording, answer, evidence)
        recording.store.save()
        replaying = _judge(path, "none")
        replayed = _evaluate(replaying, answer, evidence)
        assert replaying.replayed == 1 and not replaying.misses
        text = path.read_text(encoding="utf-8")
    assert replayed.final_score == recorded.final_score
    assert replayed.final_decision == recorded.final_decision
    assert _buckets(replayed) == _buckets(recorded)
    assert [a.kind for a in replayed.adjustments] == [a.kind for a in recorded.adjustments]
    assert replayed.final_judge_output == recorded.final_judge_output
    for part in answer.split():
        if "sk-ant-" in part or part.startswith(("AKIA", "ghp_", "xoxb-", "eyJ")):
            assert part.rstrip(".") not in text


def test_the_reported_case_replays_as_recorded(tmp_path: Path) -> None:
    # Issue 16.6: an answer holding a key-shaped string recorded S=1.0 proceed and replayed
    # S=0.769 regenerate.
    answer = ("CPU on host db-prod-1 reached 97% at 14:02. The deploy used key "
              "sk-ant-api03-abcdefghijklmnop. Requests recovered at 14:05.")
    path = tmp_path / "c.json"
    recording = _judge(path, "all")
    recorded = _evaluate(recording, answer, [METRIC_ROW])
    recording.store.save()
    replayed = _evaluate(_judge(path, "none"), answer, [METRIC_ROW])
    assert (replayed.final_score, replayed.final_decision) == (recorded.final_score,
                                                               recorded.final_decision)
    assert not [a for a in replayed.adjustments if a.kind == "uncovered_sentence"]
    text = path.read_text(encoding="utf-8")
    assert "sk-ant-api03-abcdefghijklmnop" not in text
    assert "[REDACTED:synthesis@" in text


class HostMasker:
    @hookimpl
    def gsar_redact(self, text: str, kind: str) -> str:
        return text.replace("db-prod-1", "<host>")


def test_what_a_redaction_plugin_masks_leaves_the_cassette_and_replays_exactly(
        tmp_path: Path) -> None:
    answer = "CPU on host db-prod-1 reached 97% at 14:02. The token=abcdefgh1234 was rotated."
    plugin = HostMasker()
    register(plugin, name="tests-host-masker")
    try:
        path = tmp_path / "c.json"
        recording = _judge(path, "all")
        recorded = _evaluate(recording, answer, [METRIC_ROW])
        recording.store.save()
        replayed = _evaluate(_judge(path, "none"), answer, [METRIC_ROW])
    finally:
        unregister(plugin)
    text = path.read_text(encoding="utf-8")
    assert "db-prod-1" not in text and "abcdefgh1234" not in text
    assert "<host>" in text  # the plugin's mask in the answer and evidence shown for review
    assert replayed.final_judge_output == recorded.final_judge_output
    assert (replayed.final_score, replayed.final_decision) == (recorded.final_score,
                                                               recorded.final_decision)
