"""The plugin manager: judges, redaction, result handlers, and entry-point discovery."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gsar_otel import GSARResult, grounded, plugins, record_evidence
from gsar_otel.judges.factory import make_judge
from tests.telemetry.helpers import ANSWER, CPU_ROW, Otel, ScriptedJudge


class JudgeProvider:
    @plugins.hookimpl
    def gsar_make_judge(self, name: str, model: str | None) -> Any:
        return ScriptedJudge(model=model) if name == "scripted" else None

    @plugins.hookimpl
    def gsar_judge_names(self) -> list[str]:
        return ["scripted", "Scripted"]


class MaskHosts:
    @plugins.hookimpl
    def gsar_redact(self, text: str, kind: str) -> str:
        return text.replace("db-prod-1", "<host>")


class MaskNumbers:
    @plugins.hookimpl
    def gsar_redact(self, text: str, kind: str) -> str | None:
        if kind != "claim":
            return None
        return "".join("#" if ch.isdigit() else ch for ch in text)


class Recorder:
    def __init__(self) -> None:
        self.results: list[tuple[GSARResult, str]] = []

    @plugins.hookimpl
    def gsar_on_result(self, result: GSARResult, function: str) -> None:
        self.results.append((result, function))


class Broken:
    @plugins.hookimpl
    def gsar_on_result(self, result: GSARResult) -> None:
        raise RuntimeError("handler bug")


def test_a_registered_plugin_provides_a_judge_by_name() -> None:
    plugins.register(JudgeProvider())
    judge = make_judge("scripted", model="m-1")
    assert isinstance(judge, ScriptedJudge)
    assert judge.model == "m-1"
    assert plugins.plugin_judge_names() == ["scripted"]
    assert plugins.plugin_judge("nothing") is None


def test_an_unknown_judge_name_lists_the_plugin_judges_too() -> None:
    plugins.register(JudgeProvider())
    with pytest.raises(ValueError, match="unknown judge 'oracle'; available: staged, "
                                         "anthropic, records, tiered, lexical, scripted"):
        make_judge("oracle")


def test_redactors_run_in_turn_each_on_the_previous_output(
        otel: Otel, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GSAR_CAPTURE_CONTENT", "true")
    plugins.register(MaskNumbers())
    plugins.register(MaskHosts())

    @grounded(judge=ScriptedJudge())
    def agent() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    agent()
    span = otel.one_evaluate_span()
    texts = [dict(e.attributes or {})["gsar.claim.text"] for e in span.events
             if e.name == "gsar.claim"]
    assert texts == ["CPU on <host> reached ##% at ##:##",
                     "The spike was caused by a runaway query"]
    assert dict(span.attributes or {})["gsar.synthesis"] == ANSWER.replace("db-prod-1", "<host>")


def test_a_failing_redactor_keeps_the_text_off_the_span(
        otel: Otel, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GSAR_CAPTURE_CONTENT", "true")

    class Failing:
        @plugins.hookimpl
        def gsar_redact(self, text: str, kind: str) -> str:
            raise RuntimeError("regex compile error")

    plugins.register(Failing())
    assert plugins.redact("secret", "claim") is None


def test_result_handlers_get_each_result_and_a_broken_one_breaks_nothing(otel: Otel) -> None:
    recorder = Recorder()
    plugins.register(recorder)
    plugins.register(Broken())

    @grounded(judge=ScriptedJudge(), name="support_bot")
    def agent() -> str:
        record_evidence(CPU_ROW)
        return ANSWER

    assert agent() == ANSWER
    [(result, function)] = recorder.results
    assert function == "support_bot"
    assert result.final_score == 0.625


def test_unregister_removes_a_plugin_by_object_or_name() -> None:
    provider = JudgeProvider()
    name = plugins.register(provider, name="judges")
    assert name == "judges"
    plugins.unregister(name="judges")
    assert plugins.plugin_judge_names() == []
    plugins.unregister(provider)  # already gone: a no-op


def test_a_misspelt_hook_is_refused_at_registration() -> None:
    class Typo:
        @plugins.hookimpl
        def gsar_redcat(self, text: str) -> str:
            return text

    with pytest.raises(Exception, match="gsar_redcat"):
        plugins.register(Typo())


@pytest.fixture
def installed_plugin(tmp_path: Path) -> Iterator[Path]:
    """A distribution on sys.path that declares two gsar_otel entry points, one broken."""
    (tmp_path / "acme_gsar.py").write_text(textwrap.dedent("""
        from gsar_otel.plugins import hookimpl

        @hookimpl
        def gsar_judge_names():
            return ["acme"]
    """))
    dist = tmp_path / "acme_gsar-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-gsar\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[gsar_otel]\nacme = acme_gsar\nbroken = acme_missing_module\n")
    sys.path.insert(0, str(tmp_path))
    # Plugins other tests registered live in the current manager: put it back afterwards, so
    # this test leaves the process as it found it whatever runs before or after it.
    saved = plugins._manager
    plugins.reset_plugin_manager()
    yield tmp_path
    sys.path.remove(str(tmp_path))
    sys.modules.pop("acme_gsar", None)
    plugins._manager = saved


def test_plugins_are_discovered_through_the_gsar_otel_entry_point_group(
        installed_plugin: Path, caplog: pytest.LogCaptureFixture) -> None:
    assert plugins.plugin_judge_names() == ["acme"]
    assert "skipping gsar_otel plugin 'broken': ModuleNotFoundError" in caplog.text
