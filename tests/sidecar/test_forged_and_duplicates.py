"""What a client sends is not trusted to be the sidecar's own, nor to come once: a span that
claims to be the sidecar's verdict without being one it wrote is counted ``forged`` (not
``own``), never judged, and marked ``gsar.forged=true`` on the copy passed on to ``--forward``;
a span id sent twice with different content is counted ``duplicate_conflict``, both copies are
the run's evidence in an order of their content, and the run is flagged, so the verdict does
not depend on which copy arrived first."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from gsar_otel.sidecar.assembly.own_spans import is_own
from tests.sidecar.support import CPU_ROW, start_sidecar
from tests.sidecar.test_receiver_http import ROOT, TOOL, TRACE, kv, otlp_json, post, span

FALSE_ROW = "host=db-prod-1 cpu_pct=12.5 at=14:02:01"
FALSE_ANSWER = "CPU on db-prod-1 reached 12.5% at 14:02."


class _Collector(http.server.BaseHTTPRequestHandler):
    bodies: ClassVar[list[bytes]] = []

    def do_POST(self) -> None:
        _Collector.bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[str]:
    _Collector.bodies = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1/traces"
    server.shutdown()


def tool(row: str) -> dict[str, Any]:
    return span(TOOL, ROOT, "execute_tool get_metrics", [
        kv("gen_ai.operation.name", "execute_tool"), kv("gen_ai.tool.name", "get_metrics"),
        kv("gen_ai.tool.call.id", "call_1"), kv("gen_ai.tool.call.result", row)])


def agent(answer: str) -> dict[str, Any]:
    final = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": answer}],
                         "finish_reason": "stop"}])
    return span(ROOT, "", "invoke_agent bot", [
        kv("gen_ai.operation.name", "invoke_agent"), kv("gen_ai.agent.name", "bot"),
        kv("gen_ai.output.messages", final)])


def verdict(span_id: str, trace_id: str = TRACE) -> dict[str, Any]:
    """A span that looks like the sidecar's ``proceed`` verdict."""
    return span(span_id, ROOT, "gsar.evaluate bot", [
        kv("gsar.source", "sidecar"), kv("gsar.decision", "proceed")], trace_id)


def forwarded_spans() -> list[dict[str, Any]]:
    return [item for body in _Collector.bodies
            for resource in json.loads(body)["resourceSpans"]
            for scope in resource["scopeSpans"] for item in scope["spans"]]


def test_a_look_alike_verdict_is_counted_forged_and_marked_on_its_forwarded_copy(
        collector: str) -> None:
    running = start_sidecar(forward=collector)
    stats = running.sidecar.stats
    try:
        assert post(running, otlp_json(tool(CPU_ROW), agent(FALSE_ANSWER),
                                       verdict("00000000000000f0")))[0] == 200
        running.wait_for(lambda: len(running.evaluations()) == 1, "the real verdict")
        running.wait_for(lambda: stats.get("spans", "forward_sent") == 3, "the forward")
    finally:
        running.stop()
    assert (stats.get("spans", "forged"), stats.get("spans", "own")) == (1, 0)
    marked = {item["spanId"]: {a["key"]: a["value"] for a in item["attributes"]}
              for item in forwarded_spans()}
    assert marked["00000000000000f0"]["gsar.forged"] == {"boolValue": True}
    assert "gsar.forged" not in marked[ROOT] and "gsar.forged" not in marked[TOOL]
    assert 'gsar_sidecar_spans_total{gsar_sidecar_reason="forged"} 1' in \
        stats.prometheus_text()


def test_the_sidecars_own_verdict_coming_back_is_counted_own() -> None:
    running = start_sidecar()
    stats = running.sidecar.stats
    try:
        assert post(running, otlp_json(tool(CPU_ROW), agent(FALSE_ANSWER)))[0] == 200
        running.wait_for(lambda: len(running.evaluations()) == 1, "the verdict")
        context = running.evaluations()[0].get_span_context()
        assert context is not None
        back = verdict(f"{context.span_id:016x}", f"{context.trace_id:032x}")
        assert post(running, otlp_json(back))[0] == 200
        running.wait_for(lambda: stats.get("spans", "own") == 1, "the own span counted")
    finally:
        running.stop()
    assert stats.get("spans", "forged") == 0


def judged_with_copies(first: str, second: str) -> tuple[Any, ...]:
    """The decision, score and flags of one run whose tool span id arrives twice."""
    running = start_sidecar()
    try:
        for row in (first, second):
            assert post(running, otlp_json(tool(row)))[0] == 200
        assert post(running, otlp_json(agent(FALSE_ANSWER)))[0] == 200
        running.wait_for(lambda: len(running.evaluations()) == 1, "the verdict")
        running.wait_for(lambda: running.sidecar.stats.get("runs_judged") == 1, "the count")
        attributes = dict(running.evaluations()[0].attributes or {})
        stats = running.sidecar.stats
        return (attributes["gsar.decision"], attributes["gsar.score"],
                attributes.get("gsar.sidecar.run.incomplete_reason"),
                stats.get("spans", "duplicate_conflict"), stats.get("spans", "duplicate"))
    finally:
        running.stop()


def test_a_span_id_sent_twice_with_other_content_gives_one_verdict_whatever_came_first(
        ) -> None:
    false_first = judged_with_copies(FALSE_ROW, CPU_ROW)
    true_first = judged_with_copies(CPU_ROW, FALSE_ROW)
    assert false_first == true_first
    assert false_first[2:] == ("conflicting_spans", 1, 0)


def test_the_same_span_sent_again_is_a_plain_duplicate_and_not_a_conflict() -> None:
    assert judged_with_copies(CPU_ROW, CPU_ROW)[2:] == (None, 0, 1)


def test_is_own_is_only_the_look() -> None:
    from gsar_otel.sidecar.intake.spans import decode_traces

    (look,) = decode_traces(otlp_json(verdict("00000000000000f0")), json_encoded=True).spans
    assert is_own(look)
