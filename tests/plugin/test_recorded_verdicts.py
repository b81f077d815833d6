"""gsar_otel.judges.recorded: keys, the cassette store, the record modes, secret scanning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import JudgeOutput
from gsar_otel.core.protocol import JudgeVerdict
from gsar_otel.judges.recorded.judge import RecordingJudge, is_deterministic, judge_identity
from gsar_otel.judges.recorded.store import (
    RECORD_MODES,
    CassetteError,
    CassetteStore,
    MissingVerdictError,
    parse_record_mode,
    redact_secrets,
    verdict_key,
)
from gsar_otel.judges.staged.judge import StagedJudge
from gsar_otel.runtime.loop import run_sync
from pytest_gsar import options
from tests.plugin.helpers import GOOD, HALF, METRIC_ROW

EVIDENCE = EvidenceSet.coerce([METRIC_ROW])
IDENTITY = {"backend": "counting", "model": "m-1", "prompt_version": "p-1"}


class CountingJudge:
    """A paid-API stand-in: deterministic answers, but it counts its calls."""

    name = "counting"
    model = "m-1"
    prompt_version = "p-1"

    def __init__(self) -> None:
        self.calls = 0
        self._offline = StagedJudge()

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        self.calls += 1
        return await self._offline.judge(synthesis=synthesis, evidence=evidence)


def judge_once(judge: RecordingJudge, synthesis: str = GOOD) -> JudgeVerdict:
    return run_sync(judge.judge_verdict(synthesis=synthesis, evidence=EVIDENCE))


def test_the_plugin_offers_exactly_the_record_modes_of_the_library() -> None:
    assert options.RECORD_MODES == RECORD_MODES == ("none", "once", "new_episodes", "all")
    assert parse_record_mode(" New_Episodes ") == "new_episodes"
    with pytest.raises(ValueError, match="record mode must be one of none, once, new_episodes, "
                                         "all; got 'later'"):
        parse_record_mode("later")


def test_keys_are_stable_and_change_with_judge_answer_and_evidence() -> None:
    key = verdict_key(IDENTITY, GOOD, EVIDENCE)
    assert key == verdict_key(dict(reversed(IDENTITY.items())), GOOD, EVIDENCE)
    assert len(key) == 32 and all(c in "0123456789abcdef" for c in key)
    assert key != verdict_key({**IDENTITY, "prompt_version": "p-2"}, GOOD, EVIDENCE)
    assert key != verdict_key({**IDENTITY, "model": "m-2"}, GOOD, EVIDENCE)
    assert key != verdict_key(IDENTITY, HALF, EVIDENCE)
    renumbered = EvidenceSet.coerce([{"id": "M1", "content": METRIC_ROW}])
    assert key != verdict_key(IDENTITY, GOOD, renumbered)


def test_identity_comes_from_the_judge() -> None:
    assert judge_identity(CountingJudge()) == IDENTITY
    assert judge_identity(StagedJudge())["backend"] == "staged"

    class WithIdentity:
        @property
        def identity(self) -> dict[str, str | None]:
            return {"backend": "b", "model": "x", "prompt_version": None}

    assert judge_identity(WithIdentity()) == {"backend": "b", "model": "x", "prompt_version": ""}


def test_only_the_offline_judge_and_self_declared_ones_are_deterministic() -> None:
    assert is_deterministic(StagedJudge())
    assert not is_deterministic(CountingJudge())

    class Declared(CountingJudge):
        deterministic = True

    assert is_deterministic(Declared())


def test_none_replays_and_never_calls_the_judge(tmp_path: Path) -> None:
    inner = CountingJudge()
    store = CassetteStore(tmp_path / "c.json")
    recorded = judge_once(RecordingJudge(inner, store, "once"))
    store.save()
    assert inner.calls == 1
    replaying = RecordingJudge(inner, CassetteStore(tmp_path / "c.json"), "none")
    assert judge_once(replaying).output == recorded.output
    assert inner.calls == 1 and replaying.replayed == 1
    with pytest.raises(MissingVerdictError, match="new_episodes to add it"):
        judge_once(replaying, HALF)
    assert inner.calls == 1 and len(replaying.misses) == 1


def test_modes_decide_when_the_wrapped_judge_is_called(tmp_path: Path) -> None:
    inner = CountingJudge()
    path = tmp_path / "c.json"
    with pytest.raises(MissingVerdictError, match="once to record it"):
        judge_once(RecordingJudge(inner, CassetteStore(path), "none"))
    once = RecordingJudge(inner, CassetteStore(path), "once")
    judge_once(once)
    judge_once(once, HALF)  # the cassette was new when the session began: keep recording
    once.store.save()
    assert inner.calls == 2
    with pytest.raises(MissingVerdictError):
        judge_once(RecordingJudge(inner, CassetteStore(path), "once"), "Another answer.")
    episodes = RecordingJudge(inner, CassetteStore(path), "new_episodes")
    judge_once(episodes)
    judge_once(episodes, "Another answer.")
    assert inner.calls == 3
    everything = RecordingJudge(inner, CassetteStore(path), "all")
    judge_once(everything)
    assert inner.calls == 4


def test_a_factory_is_only_called_when_a_verdict_must_be_recorded(tmp_path: Path) -> None:
    built: list[CountingJudge] = []

    def build() -> CountingJudge:
        built.append(CountingJudge())
        return built[-1]

    path = tmp_path / "c.json"
    replaying = RecordingJudge(build, CassetteStore(path), "none", identity=IDENTITY)
    with pytest.raises(MissingVerdictError):
        judge_once(replaying)
    assert not built
    judge_once(RecordingJudge(build, CassetteStore(path), "once", identity=IDENTITY))
    assert len(built) == 1
    with pytest.raises(ValueError, match="identity is required"):
        RecordingJudge(build, CassetteStore(path))


def test_cassettes_are_sorted_indented_json_that_a_rewrite_leaves_unchanged(
        tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    store = CassetteStore(path)
    recording = RecordingJudge(CountingJudge(), store, "all")
    judge_once(recording)
    judge_once(recording, HALF)
    store.save()
    first = path.read_text()
    data = json.loads(first)
    assert first == json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert data["format"] == "gsar-cassette/1"
    again = CassetteStore(path)
    judge_once(RecordingJudge(CountingJudge(), again, "all"))
    again.save()
    assert path.read_text() == first


def test_saving_merges_with_what_another_process_wrote(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    first, second = CassetteStore(path), CassetteStore(path)
    assert len(first) == 0 and len(second) == 0
    judge_once(RecordingJudge(CountingJudge(), first, "once"))
    judge_once(RecordingJudge(CountingJudge(), second, "once"), HALF)
    first.save()
    second.save()
    assert len(json.loads(path.read_text())["verdicts"]) == 2


def test_an_unreadable_cassette_says_how_to_recover(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text("{not json")
    with pytest.raises(CassetteError, match="delete it and record again"):
        judge_once(RecordingJudge(CountingJudge(), CassetteStore(path), "none"))
    path.write_text('{"verdicts": {}}')
    with pytest.raises(CassetteError, match="is not a gsar cassette"):
        len(CassetteStore(path))


def test_secret_shapes_are_masked() -> None:
    text = ("key sk-ant-api03-abcdefghijklmnop, Authorization: Bearer abc.def.ghijkl, "
            "x-api-key=supersecret1, AKIAABCDEFGHIJKLMNOP and ghp_abcdefghijklmnopqrstuvwx")
    masked = redact_secrets(text)
    for secret in ("sk-ant-api03", "abc.def.ghijkl", "supersecret1", "AKIAABCDEFGHIJKLMNOP",
                   "ghp_abcdefghijklmnopqrstuvwx"):
        assert secret not in masked
    assert redact_secrets("cpu_pct=97.2 on db-prod-1") == "cpu_pct=97.2 on db-prod-1"


def test_values_of_secret_environment_variables_never_reach_a_cassette(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-1234567890")
    path = tmp_path / "c.json"
    store = CassetteStore(path)
    answer = "CPU on host db-prod-1 reached 97% at 14:02 (token tok-1234567890)."
    evidence = EvidenceSet.coerce([METRIC_ROW, "api key sk-ant-api03-leakedleakedleaked"])
    run_sync(RecordingJudge(CountingJudge(), store, "all").judge_verdict(synthesis=answer,
                                                                         evidence=evidence))
    store.save()
    text = path.read_text()
    assert "tok-1234567890" not in text and "leakedleaked" not in text
    assert "[REDACTED]" in text


@pytest.mark.parametrize("model", [None, "claude-test-model"])
def test_replay_without_a_key_keys_verdicts_as_the_real_anthropic_judge_does(
        monkeypatch: pytest.MonkeyPatch, model: str | None) -> None:
    from gsar_otel.judges.anthropic.judge import AnthropicJudge
    from pytest_gsar.deferred import anthropic_identity

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.delenv("GSAR_JUDGE_MODEL", raising=False)
    assert anthropic_identity(model) == AnthropicJudge(model=model).identity
    monkeypatch.setenv("GSAR_JUDGE_MODEL", "claude-from-env")
    assert anthropic_identity(model) == AnthropicJudge(model=model).identity
