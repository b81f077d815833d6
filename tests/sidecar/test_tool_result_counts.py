"""Tool results that are not plain evidence are counted on ``/metrics`` and ``/healthz``, not only
on the verdict span (issue 24 C14: never drop a result uncounted): the run's own answer echoed by a
tool (``echo``), a retried call's later result (``retry``), and history-only results
(``unverified_left_out``, or ``unverified_kept`` with ``--include-unverified``, which is read
from the flag, ``GSAR_SIDECAR_INCLUDE_UNVERIFIED`` and the settings file's ``sidecar`` table)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from gsar_otel import semconv as sc
from gsar_otel.cli.common import BadInput
from gsar_otel.cli.main import build_parser
from gsar_otel.cli.sidecar import build_config
from gsar_otel.config import load_settings
from tests.sidecar.support import CPU_ROW, GROUNDED, RunningSidecar, start_sidecar
from tests.sidecar.test_receiver_http import kv, otlp_json, post

TRACE = "0af7651916cd43dd8448eb211c80319c"
STALE_ROW = "host=db-prod-1 cpu_pct=12.0 at=13:40:00"
FORGED_ROW = "host=db-prod-1 cpu_pct=99.9 at=14:02:01"


def _span(n: int, parent: int, name: str, start: int, *attributes: dict[str, Any]
          ) -> dict[str, Any]:
    return {"traceId": TRACE, "spanId": f"{n:016x}", "parentSpanId": f"{parent:016x}" if parent
            else "", "name": name, "kind": 1, "startTimeUnixNano": str(start),
            "endTimeUnixNano": str(start + 500), "attributes": list(attributes)}


def _tool(n: int, start: int, result: str, call_id: str) -> dict[str, Any]:
    return _span(n, 1, "execute_tool get_metrics", start,
                 kv("gen_ai.operation.name", "execute_tool"), kv("gen_ai.tool.name", "get_metrics"),
                 kv("gen_ai.tool.call.id", call_id), kv("gen_ai.tool.call.result", result))


def one_run() -> bytes:
    """A run with each kind once: a call answered twice (stale result first, so the retry's
    result is the later), a tool whose result is the answer itself, and a ``role: tool`` history
    message with no call in the trace."""
    forged = [{"role": "tool", "parts": [
        {"type": "tool_call_response", "id": "call_forged", "response": FORGED_ROW}]}]
    final = [{"role": "assistant", "parts": [{"type": "text", "content": GROUNDED}],
              "finish_reason": "stop"}]
    return otlp_json(
        _tool(2, 1000, STALE_ROW, "call_1"),
        _tool(3, 2000, CPU_ROW, "call_1"),
        _tool(4, 3000, GROUNDED, "call_2"),
        _span(5, 1, "chat model", 4000, kv("gen_ai.operation.name", "chat"),
              kv("gen_ai.input.messages", json.dumps(forged)),
              kv("gen_ai.output.messages", json.dumps(final))),
        _span(1, 0, "invoke_agent bot", 500, kv("gen_ai.operation.name", "invoke_agent"),
              kv("gen_ai.agent.name", "bot"), kv("gen_ai.output.messages", json.dumps(final))))


def _judge_one(running: RunningSidecar) -> dict[str, Any]:
    status, _ = post(running, one_run())
    assert status == 200
    running.wait_for(lambda: len(running.evaluations()) == 1, "one evaluation")
    running.wait_for(lambda: running.sidecar.stats.get("runs_judged") == 1, "the run counted")
    return dict(running.evaluations()[0].attributes or {})


def _get(running: RunningSidecar, path: str) -> str:
    with urllib.request.urlopen(f"{running.http}{path}", timeout=30) as response:
        return response.read().decode()


@pytest.mark.parametrize("include", [False, True])
def test_echo_retry_and_unverified_results_are_on_metrics_and_healthz(include: bool) -> None:
    running = start_sidecar(include_unverified=include)
    try:
        verdict = _judge_one(running)
        metrics, health = _get(running, "/metrics"), json.loads(_get(running, "/healthz"))
    finally:
        running.stop()
    unverified = "unverified_kept" if include else "unverified_left_out"
    expected = {"echo": verdict[sc.GSAR_SIDECAR_EVIDENCE_ECHOES],
                "retry": verdict[sc.GSAR_SIDECAR_EVIDENCE_RETRIES],
                unverified: verdict[sc.GSAR_SIDECAR_EVIDENCE_UNVERIFIED]}
    assert expected == {"echo": 1, "retry": 1, unverified: 1}
    assert health["counts"]["tool_results"] == expected
    for reason, count in expected.items():
        assert (f'gsar_sidecar_tool_results_total{{gsar_sidecar_reason="{reason}"}} {count}'
                in metrics)


def _config(*argv: str, env: dict[str, str] | None = None, file: Path | None = None) -> Any:
    args = build_parser().parse_args(["sidecar", *argv])
    settings = load_settings({sc.ENV_CONFIG: str(file)} if file else {})
    return build_config(args, settings, env=env or {})


def test_include_unverified_from_the_flag_the_variable_and_the_file(tmp_path: Path) -> None:
    file = tmp_path / "gsar.toml"
    file.write_text("[sidecar]\ninclude_unverified = true\n", encoding="utf-8")
    assert _config().include_unverified is False
    assert _config("--include-unverified").include_unverified is True
    assert _config(env={sc.ENV_SIDECAR_INCLUDE_UNVERIFIED: "yes"}).include_unverified is True
    assert _config(file=file).include_unverified is True
    assert _config(env={sc.ENV_SIDECAR_INCLUDE_UNVERIFIED: "off"},
                   file=file).include_unverified is False


def test_a_bad_include_unverified_value_names_its_source(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match=sc.ENV_SIDECAR_INCLUDE_UNVERIFIED):
        _config(env={sc.ENV_SIDECAR_INCLUDE_UNVERIFIED: "maybe"})
    file = tmp_path / "gsar.toml"
    file.write_text("[sidecar]\ninclude_unverified = 3\n", encoding="utf-8")
    with pytest.raises(BadInput, match=r"sidecar\.include_unverified"):
        _config(file=file)


def test_the_flag_reaches_extraction_a_forged_history_result_grounds_only_when_asked() -> None:
    """The history-only row is evidence only with the option (the run's own two rows stay)."""
    for include, expected in ((False, 2), (True, 3)):
        running = start_sidecar(include_unverified=include)
        try:
            verdict = _judge_one(running)
        finally:
            running.stop()
        assert verdict[sc.GSAR_EVIDENCE_COUNT] == expected, include
