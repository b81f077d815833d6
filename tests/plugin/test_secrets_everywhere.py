"""No secret reaches any artefact of a full test run, recorded or replayed, content on or off.

An API key and secret-shaped strings sit in the environment, the evidence and the answer. A
suite judged by the real AnthropicJudge (the real SDK over HTTP, against the fake Messages API)
runs in a subprocess with every artefact switched on: exported spans and events (in-memory, the
SDK's own client spans included), every log record at DEBUG, cassettes, the baseline, the JUnit
XML (with captured logs) and the HTML report. Then every artefact is searched for every secret.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.plugin.helpers import METRIC_ROW
from tests.support.fake_anthropic import FakeMessagesServer

API_KEY = "sk-ant-api03-Zq8vK2mXw9LpR4tYb7NcJ1hG"
ENV_PASSWORD = "Tr0ub4dor-horse-battery-22"
"""The value of a secret-named variable, written in the evidence without any secret shape."""

SECRETS = {
    "api key": API_KEY,
    "environment password": ENV_PASSWORD,
    "db url password": "pgS3cretPassw0rd",
    "aws access key": "AKIAZ7QX3MPL4NV2KD8R",
    "aws secret key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYz9Ex4mPLEK",
    "password value": "hunter2hunter2",
    "bearer token": "eyQ.bearer-Token-8f2k4m6p",
    "github token": "ghp_R2d2C3p0Bb8Yoda4Luke5Leia6Han7Chewie",
    "jwt signature": "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "private key body": "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7",
    "slack token": "xoxb-1029384756-Slack5ecretT0ken",
}

ANSWER = (
    "CPU on host db-prod-1 reached 97% at 14:02. "
    "The app connects with postgres://app:pgS3cretPassw0rd@db-prod-1:5432/orders. "
    "The deploy job used AKIAZ7QX3MPL4NV2KD8R and password=hunter2hunter2. "
    f"The agent called the API with key {API_KEY}."
)
EVIDENCE = [
    METRIC_ROW,
    "[tool=read_config] DATABASE_URL=postgres://app:pgS3cretPassw0rd@db-prod-1:5432/orders",
    "[tool=read_env] aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYz9Ex4mPLEK "
    "AWS_ACCESS_KEY_ID=AKIAZ7QX3MPL4NV2KD8R",
    "[tool=http_log] Authorization: Bearer eyQ.bearer-Token-8f2k4m6p "
    "session=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    f"[tool=shell] connected with {ENV_PASSWORD}; GITHUB_TOKEN "
    "ghp_R2d2C3p0Bb8Yoda4Luke5Leia6Han7Chewie; slack xoxb-1029384756-Slack5ecretT0ken",
    "[tool=read_file] -----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END RSA PRIVATE KEY-----",
]

CONFTEST = """
import json
import logging

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from gsar_otel.otel.instruments import set_providers

exporter = InMemorySpanExporter()
handler = logging.FileHandler("artefacts/debug.log", encoding="utf-8")
handler.setLevel(logging.DEBUG)
handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))

def pytest_configure(config):
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)  # the SDK's own client spans, too
    set_providers(tracer_provider=provider)
    logging.getLogger().addHandler(handler)
    logging.getLogger().setLevel(logging.DEBUG)
    logging.getLogger("anthropic").setLevel(logging.DEBUG)

def pytest_unconfigure(config):
    set_providers()
    spans = [{"name": s.name, "attributes": dict(s.attributes or {}),
              "events": [{"name": e.name, "attributes": dict(e.attributes or {})}
                         for e in s.events],
              "status": str(s.status.description)} for s in exporter.get_finished_spans()]
    with open("artefacts/spans.json", "w", encoding="utf-8") as out:
        json.dump(spans, out, default=list, ensure_ascii=False)
    handler.close()
"""

TESTS = f"""
import logging

ANSWER = {ANSWER!r}
EVIDENCE = {EVIDENCE!r}

def test_answer_with_secrets(assert_grounded):
    logging.getLogger("agent").debug("judging an answer")
    assert_grounded(ANSWER, EVIDENCE, min_score=0, decision="any")

def test_failing_answer_with_secrets(assert_grounded):
    # Fails (an impossible decision), so the failure message reaches the JUnit XML.
    assert_grounded(ANSWER, EVIDENCE, decision="abstain")
"""


def _artefacts(root: Path) -> dict[str, str]:
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in (".json", ".log", ".xml", ".html"):
            found[str(path.relative_to(root))] = path.read_text(encoding="utf-8")
    return found


@pytest.mark.parametrize("capture", ["true", "false"])
def test_no_secret_reaches_any_artefact_of_a_recorded_and_a_replayed_run(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capture: str) -> None:
    gsar_pytester.makeconftest(CONFTEST)
    gsar_pytester.makepyfile(test_agent=TESTS)
    (gsar_pytester.path / "artefacts").mkdir()
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setenv("DB_PASSWORD", ENV_PASSWORD)
    monkeypatch.setenv("GSAR_CAPTURE_CONTENT", capture)
    outputs: dict[str, str] = {}
    with FakeMessagesServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        for mode in ("once", "none"):
            artefacts = gsar_pytester.path / "artefacts"
            result = gsar_pytester.runpytest_subprocess(
                "--gsar-judge=anthropic", f"--gsar-record-mode={mode}",
                f"--gsar-report={artefacts / 'report.html'}",
                f"--gsar-baseline={artefacts / 'baseline.json'}", "--gsar-update-baseline",
                f"--junitxml={artefacts / 'junit.xml'}", "-o", "junit_logging=all",
                "-o", "log_level=DEBUG", "-p", "no:cacheprovider")
            result.assert_outcomes(passed=1, failed=1)
            outputs[f"{mode} stdout"] = result.stdout.str() + result.stderr.str()
            for name, text in _artefacts(gsar_pytester.path).items():
                outputs[f"{mode} {name}"] = text
        # Only the recording run called the judge, and it really sent the secrets and the key.
        assert len(server.message_requests) == 2
        sent = server.message_requests[0]
        assert SECRETS["password value"] in sent.user_text()
        assert API_KEY in sent.headers.get("authorization", "") + sent.headers.get(
            "x-api-key", "")

    leaks = [(name, secret) for name, text in outputs.items()
             for secret, value in SECRETS.items() if value in text]
    assert sorted(leaks) == []
    names = {name.split(" ", 1)[1] for name in outputs if " " in name}
    for expected in ("artefacts/spans.json", "artefacts/debug.log", "artefacts/junit.xml",
                     "artefacts/report.html", "artefacts/baseline.json"):
        assert expected in names, sorted(names)
    assert any(name.startswith("cassettes/") for name in names), sorted(names)
    # The artefacts are not empty: the content that should be there is there.
    spans = json.loads(outputs["none artefacts/spans.json"])
    assert any(s["name"].startswith("gsar.evaluate") for s in spans)
    assert "Request options" in outputs["once artefacts/debug.log"]
    assert "db-prod-1" in outputs["none artefacts/report.html"]
    assert "[REDACTED" in outputs["none artefacts/report.html"]
    assert "[REDACTED" in outputs["once artefacts/debug.log"]
    if capture == "true":
        assert "db-prod-1" in outputs["none artefacts/spans.json"]

