"""What the OTLP/HTTP receiver refuses before doing the work, on real sockets: a wrong token
before the body is read, slow heads and bodies cut off, connections past the limit still served
for ``/healthz`` and token holders, ``/v1/judge`` behind its own gate, gzip bodies against the
byte budget and a cap derived from ``--max-body-bytes``. Every refusal is counted."""

from __future__ import annotations

import gzip
import json
import logging
import socket
import threading
import time

import pytest

from gsar_otel.sidecar.intake.admission import NetworkLimits
from tests.sidecar.support import CPU_ROW, GROUNDED, GatedJudge, RunningSidecar, start_sidecar
from tests.sidecar.test_http_framing import exchange, status_of
from tests.sidecar.test_receiver_http import agent_spans, otlp_json, post

TOKEN = "s3cret"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def test_a_wrong_token_is_401_before_the_body_is_read() -> None:
    running = start_sidecar(token=TOKEN)
    try:
        head = (b"POST /v1/traces HTTP/1.1\r\nHost: s\r\nContent-Type: application/json\r\n"
                b"Authorization: Bearer wrong\r\nContent-Length: 19000000\r\n\r\n")
        # no body is sent: the answer must come on the head alone
        answer = exchange(running, head, done=False, timeout_s=15)
        assert status_of(answer) == 401
        assert running.sidecar.stats.get("spans", "rejected_auth") == 1
        assert running.sidecar._receivers[0].budget.peak == 0, "no body byte was held"
        assert post(running, otlp_json(*agent_spans()), headers=AUTH)[0] == 200
    finally:
        running.stop()


def test_a_slow_head_and_a_slow_body_are_cut_off_and_counted() -> None:
    running = start_sidecar(network=NetworkLimits(header_timeout_s=0.3, min_body_rate=1_000))
    try:
        # the client waits 20 s: an answer at all means the sidecar cut the connection off
        answer = exchange(running, b"POST /v1/traces HTTP/1.1\r\nHost: s\r\n", done=False)
        assert status_of(answer) == 408
        assert running.sidecar.stats.get("spans", "rejected_slow_head") == 1
        silent = exchange(running, b"", done=False)  # opens, never sends a byte
        assert status_of(silent) == 408
        assert running.sidecar.stats.get("spans", "rejected_slow_head") == 2
        body_head = (b"POST /v1/traces HTTP/1.1\r\nHost: s\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100000\r\n\r\n{")
        assert status_of(exchange(running, body_head, done=False)) == 408
        assert running.sidecar.stats.get("spans", "rejected_slow_body") == 1
        assert post(running, otlp_json(*agent_spans()))[0] == 200
    finally:
        running.stop()


def _busy_connections(running: RunningSidecar, n: int) -> list[socket.socket]:
    """``n`` connections each in the middle of a request body (not waiting for a head)."""
    socks = [socket.create_connection(("127.0.0.1", running.sidecar.http_port))
             for _ in range(n)]
    for sock in socks:
        sock.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: s\r\nContent-Type: application/json\r\n"
                     b"Authorization: Bearer " + TOKEN.encode() + b"\r\n"
                     b"Content-Length: 1000\r\n\r\n{")
    return socks


def test_slow_heads_at_the_connection_limit_make_room_for_new_clients() -> None:
    running = start_sidecar(token=TOKEN, max_connections=4,
                            network=NetworkLimits(health_reserve=0))
    port = running.sidecar.http_port
    slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(4)]
    try:
        for sock in slow:
            sock.sendall(b"POST /v1/traces HTTP/1.1\r\n")  # slowloris: a head never finished
        running.wait_for(lambda: running.call(
            lambda: len(running.sidecar._receivers[0]._connections)) == 4, "four slow clients")
        time.sleep(0.3)  # past EVICT_AFTER_S
        for _ in range(3):
            health = exchange(running, b"GET /healthz HTTP/1.1\r\nHost: s\r\n\r\n")
            assert status_of(health) == 200
        assert post(running, otlp_json(*agent_spans()), headers=AUTH)[0] == 200
        assert running.sidecar.stats.get("spans", "rejected_evicted") >= 1  # the first made room
        assert running.sidecar.stats.get("spans", "rejected_connections") == 0
    finally:
        for sock in slow:
            sock.close()
        running.stop()


def test_an_evicted_connection_ends_without_a_traceback_on_the_loop(
        caplog: pytest.LogCaptureFixture) -> None:
    """Each eviction cancelled the connection's task, and asyncio's stream callback logged an
    'Exception in callback ... CancelledError' traceback for it on the event loop: 277 in 15 s
    of the soak (benchmarks/sidecar_soak.py), each formatted while /healthz waited."""
    running = start_sidecar(token=TOKEN, max_connections=2,
                            network=NetworkLimits(health_reserve=0))
    port = running.sidecar.http_port
    slow: list[socket.socket] = []
    try:
        with caplog.at_level(logging.ERROR, logger="asyncio"):
            for _round in range(3):
                for _ in range(2):
                    sock = socket.create_connection(("127.0.0.1", port))
                    sock.sendall(b"POST /v1/traces HTTP/1.1\r\n")
                    slow.append(sock)
                running.wait_for(lambda: running.call(lambda: len(
                    running.sidecar._receivers[0]._connections)) == 2, "two slow clients")
                time.sleep(0.3)  # past EVICT_AFTER_S
            assert status_of(exchange(running, b"GET /healthz HTTP/1.1\r\nHost: s\r\n\r\n")) == 200
            evicted = running.sidecar.stats.get("spans", "rejected_evicted")
        assert evicted >= 3
        logged = [r for r in caplog.records if r.name == "asyncio"]
        assert logged == [], [r.getMessage()[:200] for r in logged]
    finally:
        for sock in slow:
            sock.close()
        running.stop()


def test_past_the_connection_limit_healthz_and_token_holders_are_still_served() -> None:
    running = start_sidecar(token=TOKEN, max_connections=2,
                            network=NetworkLimits(health_reserve=2))
    busy = _busy_connections(running, 2)
    try:
        running.wait_for(lambda: running.call(
            lambda: len(running.sidecar._receivers[0]._connections)) == 2, "two busy clients")
        health = exchange(running, b"GET /healthz HTTP/1.1\r\nHost: s\r\n\r\n")
        assert status_of(health) == 200 and b'"status": "ok"' in health
        assert post(running, otlp_json(*agent_spans()), headers=AUTH)[0] == 200
        assert post(running, otlp_json(*agent_spans()))[0] == 503
        assert running.sidecar.stats.get("spans", "rejected_connections") == 1
        assert running.sidecar.stats.get("spans", "rejected_evicted") == 0
        assert running.sidecar.stats.get("spans", "accepted") == 2
    finally:
        for sock in busy:
            sock.close()
        running.stop()


def test_judge_requests_past_their_concurrency_and_queue_get_429() -> None:
    judge = GatedJudge()
    running = start_sidecar(judge=judge, network=NetworkLimits(judge_concurrency=1,
                                                               judge_queue=1))
    body = json.dumps({"answer": GROUNDED, "evidence": [CPU_ROW]}).encode()
    answers: list[int] = []
    held = [threading.Thread(target=lambda: answers.append(post(running, body,
                                                                path="/v1/judge")[0]))
            for _ in range(2)]
    try:
        for thread in held:
            thread.start()
        running.wait_for(lambda: judge.calls == 1 and running.call(
            lambda: running.sidecar._receivers[0].judge_gate.held) == 2,
            "one judging, one waiting")
        status, _ = post(running, body, path="/v1/judge")
        assert status == 429
        assert running.sidecar.stats.get("spans", "rejected_judge_busy") == 1
        judge.release.set()
        for thread in held:
            thread.join(30)
        assert answers == [200, 200]
        assert judge.most_at_once == 1
        assert post(running, body, path="/v1/judge")[0] == 200
    finally:
        judge.release.set()
        running.stop()


def test_gzip_is_capped_from_max_body_bytes() -> None:
    running = start_sidecar(max_body_bytes=64 * 1024)
    try:
        # 300 KB inflated: over 4 x 64 KB, though far under max_decompressed_bytes (80 MB)
        padded = otlp_json(*agent_spans()) + b" " * (300 * 1024)
        status, _ = post(running, gzip.compress(padded), headers={"Content-Encoding": "gzip"})
        assert status == 413
        assert running.sidecar.stats.get("spans", "rejected_too_large") == 1
        assert running.sidecar._receivers[0].budget.peak <= 256 * 1024 + 4096
    finally:
        running.stop()


def test_gzip_bodies_are_admitted_against_the_byte_budget() -> None:
    running = start_sidecar(max_body_bytes=64 * 1024,
                            network=NetworkLimits(max_inflight_bytes=160 * 1024))
    try:
        # 200 KB inflated: under the 256 KB cap, over the 160 KB budget
        padded = otlp_json(*agent_spans()) + b" " * (200 * 1024)
        status, _ = post(running, gzip.compress(padded), headers={"Content-Encoding": "gzip"})
        assert status == 429
        assert running.sidecar.stats.get("spans", "rejected_over_budget") == 1
        receiver = running.sidecar._receivers[0]
        assert receiver.budget.held == 0 and receiver.budget.peak <= 160 * 1024
        # 60 KB inflated, and its decoded copy: within the budget
        padded = otlp_json(*agent_spans()) + b" " * (60 * 1024)
        status, _ = post(running, gzip.compress(padded), headers={"Content-Encoding": "gzip"})
        assert status == 200
        assert receiver.budget.held == 0 and receiver.budget.peak <= 160 * 1024
    finally:
        running.stop()


def test_a_declared_body_over_the_limit_is_413_before_it_is_read() -> None:
    running = start_sidecar(max_body_bytes=64 * 1024)
    try:
        head = (b"POST /v1/traces HTTP/1.1\r\nHost: s\r\nContent-Type: application/json\r\n"
                b"Content-Length: 65537\r\n\r\n")
        assert status_of(exchange(running, head, done=False, timeout_s=15)) == 413
        assert running.sidecar.stats.get("spans", "rejected_too_large") == 1
        assert running.sidecar._receivers[0].budget.peak == 0
    finally:
        running.stop()
