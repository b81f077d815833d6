"""The OTLP/HTTP receiver against bad input: every refusal follows the OTLP specification and
is counted; the sidecar keeps serving afterwards."""

from __future__ import annotations

import gzip
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from gsar_otel.sidecar.assembly.assembler import AssemblyLimits
from tests.sidecar.support import CPU_ROW, GROUNDED, RunningSidecar, start_sidecar

TRACE = "5b8efff798038103d269b633813fc60c"
ROOT = "eee19b7ec3c1b174"
TOOL = "eee19b7ec3c1b175"


def kv(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value}}


def otlp_json(*spans: dict[str, Any]) -> bytes:
    return json.dumps({"resourceSpans": [{
        "resource": {"attributes": [kv("service.name", "agent")]},
        "scopeSpans": [{"scope": {"name": "agent"}, "spans": list(spans)}]}]}).encode()


def span(span_id: str, parent: str, name: str, attributes: list[dict[str, Any]],
         trace_id: str = TRACE) -> dict[str, Any]:
    return {"traceId": trace_id, "spanId": span_id, "parentSpanId": parent, "name": name,
            "kind": 1, "startTimeUnixNano": "1000", "endTimeUnixNano": "2000",
            "attributes": attributes}


def agent_spans(trace_id: str = TRACE) -> tuple[dict[str, Any], dict[str, Any]]:
    final = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": GROUNDED}],
                         "finish_reason": "stop"}])
    return (span(TOOL, ROOT, "execute_tool get_metrics", [
                kv("gen_ai.operation.name", "execute_tool"), kv("gen_ai.tool.name", "get_metrics"),
                kv("gen_ai.tool.call.result", CPU_ROW)], trace_id),
            span(ROOT, "", "invoke_agent bot", [
                kv("gen_ai.operation.name", "invoke_agent"), kv("gen_ai.agent.name", "bot"),
                kv("gen_ai.output.messages", final)], trace_id))


def post(running: RunningSidecar, body: bytes, content_type: str = "application/json",
         path: str = "/v1/traces", headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(f"{running.http}{path}", data=body, method="POST",
                                     headers={"Content-Type": content_type, **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


@pytest.fixture
def sidecar() -> Iterator[RunningSidecar]:
    running = start_sidecar(max_body_bytes=64 * 1024, max_decompressed_bytes=256 * 1024)
    yield running
    running.stop()


def test_an_otlp_json_trace_with_hex_ids_is_judged(sidecar: RunningSidecar) -> None:
    status, body = post(sidecar, otlp_json(*agent_spans()))
    assert (status, json.loads(body)) == (200, {})
    sidecar.wait_for(lambda: len(sidecar.evaluations()) == 1, "the evaluation")
    (evaluation,) = sidecar.evaluations()
    assert evaluation.context.trace_id == int(TRACE, 16)
    assert evaluation.parent is not None and evaluation.parent.span_id == int(ROOT, 16)
    assert evaluation.attributes is not None
    assert evaluation.attributes["gsar.decision"] == "proceed"


def test_spans_with_bad_ids_are_rejected_alone_with_partial_success(
        sidecar: RunningSidecar) -> None:
    bad = span("00000000000000ff", "", "x", [], trace_id="00" * 15)  # 15 bytes
    status, body = post(sidecar, otlp_json(bad, *agent_spans()))
    answer = json.loads(body)
    assert status == 200
    assert answer["partialSuccess"]["rejectedSpans"] == "1"
    assert sidecar.sidecar.stats.get("spans", "rejected") == 1
    assert sidecar.sidecar.stats.get("spans", "accepted") == 2


@pytest.mark.parametrize(("body", "content_type"), [
    (b"\x0a\xff\xff\xff\xff\x0f", "application/x-protobuf"),
    (b"{not json", "application/json"),
    (b"[1, 2]", "application/json"),
    (otlp_json(span("zz" * 8, "", "x", [])), "application/json"),
    (json.dumps({"resourceSpans": "nope"}).encode(), "application/json"),
])
def test_a_malformed_body_is_400_and_counted(sidecar: RunningSidecar, body: bytes,
                                             content_type: str) -> None:
    status, _ = post(sidecar, body, content_type)
    assert status == 400
    assert sidecar.sidecar.stats.get("spans", "rejected_malformed") == 1
    assert post(sidecar, otlp_json(*agent_spans()))[0] == 200  # still serving


def test_another_content_type_or_encoding_is_415(sidecar: RunningSidecar) -> None:
    assert post(sidecar, b"hello", "text/plain")[0] == 415
    status, _ = post(sidecar, otlp_json(*agent_spans()), headers={"Content-Encoding": "br"})
    assert status == 415


def test_a_gzip_body_is_read_and_a_gzip_bomb_is_413(sidecar: RunningSidecar) -> None:
    status, _ = post(sidecar, gzip.compress(otlp_json(*agent_spans())),
                     headers={"Content-Encoding": "gzip"})
    assert status == 200
    bomb = gzip.compress(b"\0" * (50 * 1024 * 1024))  # ~50 KB on the wire, 50 MB inflated
    assert len(bomb) < 64 * 1024
    status, _ = post(sidecar, bomb, headers={"Content-Encoding": "gzip"})
    assert status == 413
    assert post(sidecar, b"\x1f\x8b garbage", headers={"Content-Encoding": "gzip"})[0] == 400


def test_an_oversized_body_is_413_before_it_is_read(sidecar: RunningSidecar) -> None:
    status, _ = post(sidecar, b" " * (65 * 1024))
    assert status == 413
    assert sidecar.sidecar.stats.get("spans", "rejected_too_large") == 1


def test_health_metrics_and_unknown_paths(sidecar: RunningSidecar) -> None:
    with urllib.request.urlopen(f"{sidecar.http}/healthz", timeout=10) as response:
        assert json.loads(response.read())["status"] == "ok"
    post(sidecar, b"x", "text/plain")
    with urllib.request.urlopen(f"{sidecar.http}/metrics", timeout=10) as response:
        assert 'gsar_sidecar_spans_total{gsar_sidecar_reason="rejected_content_type"} 1' in (
            response.read().decode())
    assert post(sidecar, b"{}", path="/nowhere")[0] == 404


def test_post_judge_returns_the_result() -> None:
    running = start_sidecar()
    try:
        status, body = post(running, json.dumps({"answer": GROUNDED, "evidence": [CPU_ROW]})
                            .encode(), path="/v1/judge")
        assert status == 200
        assert json.loads(body)["final_decision"] == "proceed"
        assert post(running, b'{"evidence": []}', path="/v1/judge")[0] == 400
        assert post(running, b"[" * 100_000, path="/v1/judge")[0] == 400
        bad_evidence = json.dumps({"answer": GROUNDED, "evidence": 5}).encode()
        assert post(running, bad_evidence, path="/v1/judge")[0] == 400
    finally:
        running.stop()


def test_a_bearer_token_is_required_when_set() -> None:
    running = start_sidecar(token="s3cret")
    try:
        assert post(running, otlp_json(*agent_spans()))[0] == 401
        ok = post(running, otlp_json(*agent_spans()),
                  headers={"Authorization": "Bearer s3cret"})
        assert ok[0] == 200
    finally:
        running.stop()


def test_a_trace_that_never_ends_is_judged_at_the_hard_cap_and_flagged() -> None:
    running = start_sidecar(limits=AssemblyLimits(decision_wait_s=0.05, max_age_s=0.3))
    try:
        tool, root = agent_spans()
        orphan = {**root, "spanId": "aaaaaaaaaaaaaaaa", "parentSpanId": "bbbbbbbbbbbbbbbb",
                  "attributes": [kv("gen_ai.output.messages", json.dumps([{
                      "role": "assistant", "parts": [{"type": "text", "content": GROUNDED}]}])),
                      kv("gen_ai.operation.name", "chat")]}
        assert post(running, otlp_json(tool, orphan))[0] == 200
        running.wait_for(lambda: running.sidecar.stats.get("runs_judged") == 1, "hard cap")
        assert running.sidecar.stats.get("runs_judged", "no_run_span") == 1
        (evaluation,) = running.evaluations()
        assert evaluation.attributes is not None
        assert evaluation.attributes["gsar.sidecar.run.incomplete"] is True
        assert evaluation.attributes["gsar.sidecar.run.incomplete_reason"] == "no_run_span"
        assert evaluation.attributes["gsar.function"] == "agent"  # not a span name
    finally:
        running.stop()


def test_connections_past_the_limit_get_503_and_the_rest_are_served() -> None:
    import socket

    from gsar_otel.sidecar.intake.admission import NetworkLimits

    running = start_sidecar(max_connections=2, network=NetworkLimits(health_reserve=0))
    idle = [socket.create_connection(("127.0.0.1", running.sidecar.http_port)) for _ in range(2)]
    for sock in idle:  # each in the middle of a body: busy, not waiting for a head
        sock.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: s\r\nContent-Type: application/json"
                     b"\r\nContent-Length: 1000\r\n\r\n{")
    try:
        running.wait_for(lambda: running.call(
            lambda: len(running.sidecar._receivers[0]._connections)) == 2, "two idle clients")
        assert post(running, otlp_json(*agent_spans()))[0] == 503
        assert running.sidecar.stats.get("spans", "rejected_connections") == 1
        idle.pop().close()
        running.wait_for(lambda: running.call(
            lambda: len(running.sidecar._receivers[0]._connections)) == 1, "a free place")
        assert post(running, otlp_json(*agent_spans()))[0] == 200
    finally:
        for sock in idle:
            sock.close()
        running.stop()
