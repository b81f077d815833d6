"""The OTLP/HTTP receiver's HTTP/1.1 framing, on raw sockets: every malformed framing is 400
(counted ``rejected_framing``, one log line, no traceback), and the sidecar keeps serving."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator

import pytest

from tests.sidecar.support import RunningSidecar, start_sidecar
from tests.sidecar.test_receiver_http import agent_spans, otlp_json, post

HEAD = b"POST /v1/traces HTTP/1.1\r\nHost: sidecar\r\nContent-Type: application/json\r\n"
LONG = b"a" * (17 * 1024)


def exchange(running: RunningSidecar, data: bytes, *, timeout_s: float = 20.0,
             done: bool = True) -> bytes:
    """Send raw bytes (then end the sending side when ``done``), read the answer until the
    server closes (or ``timeout_s`` passes)."""
    with socket.create_connection(("127.0.0.1", running.sidecar.http_port),
                                  timeout=timeout_s) as sock:
        sock.sendall(data)
        if done:
            sock.shutdown(socket.SHUT_WR)
        answer = b""
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except (TimeoutError, ConnectionResetError):
            pass
    return answer


def status_of(answer: bytes) -> int:
    assert answer.startswith(b"HTTP/1.1 "), f"no HTTP answer: {answer[:80]!r}"
    return int(answer[9:12])


@pytest.fixture
def sidecar() -> Iterator[RunningSidecar]:
    running = start_sidecar(max_body_bytes=64 * 1024)
    yield running
    running.stop()


MALFORMED = {
    "negative chunk size": HEAD + b"Transfer-Encoding: chunked\r\n\r\n-5\r\nabcde\r\n0\r\n\r\n",
    "chunk-size line over 16 KB": HEAD + b"Transfer-Encoding: chunked\r\n\r\n0" + LONG + b"\r\n",
    "trailer line over 16 KB": (HEAD + b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\nX-T: "
                                + LONG + b"\r\n\r\n"),
    "Content-Length: superscript two": HEAD + "Content-Length: ²\r\n\r\n{}".encode(),
    "Transfer-Encoding: xchunked": (HEAD + b"Transfer-Encoding: xchunked\r\n\r\n"
                                    b"2\r\n{}\r\n0\r\n\r\n"),
    "two differing Content-Length headers": (HEAD + b"Content-Length: 2\r\nContent-Length: 3\r\n"
                                             b"\r\n{} "),
    "a request line that is not HTTP": b"HELLO\r\n\r\n",
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_framing_is_400_counted_and_logged_in_one_line(
        sidecar: RunningSidecar, name: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="gsar_otel.sidecar")
    answer = exchange(sidecar, MALFORMED[name])
    assert status_of(answer) == 400, answer[:200]
    assert sidecar.sidecar.stats.get("spans", "rejected_framing") == 1
    assert sidecar.sidecar.stats.get("spans", "accepted") == 0
    ours = [r for r in caplog.records if r.name.startswith("gsar_otel.sidecar")]
    assert len(ours) == 1 and ours[0].exc_info is None
    assert "\n" not in ours[0].getMessage()
    assert post(sidecar, otlp_json(*agent_spans()))[0] == 200  # still serving


def test_a_chunked_body_and_pipelined_keep_alive_requests_are_read(
        sidecar: RunningSidecar) -> None:
    body = otlp_json(*agent_spans())
    chunked = HEAD + b"Transfer-Encoding: chunked\r\n\r\n" + b"".join(
        b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:50], body[50:])) + b"0\r\n\r\n"
    health = b"GET /healthz HTTP/1.1\r\nHost: sidecar\r\nConnection: close\r\n\r\n"
    answer = exchange(sidecar, chunked + health)
    assert answer.count(b"HTTP/1.1 200 OK") == 2
    assert sidecar.sidecar.stats.get("spans", "accepted") == 2
    assert sidecar.sidecar.stats.get("spans", "rejected_framing") == 0


def test_many_malformed_requests_each_get_their_answer_and_count(
        sidecar: RunningSidecar) -> None:
    for n in range(40):
        answer = exchange(sidecar, list(MALFORMED.values())[n % len(MALFORMED)])
        assert status_of(answer) == 400
    assert sidecar.sidecar.stats.get("spans", "rejected_framing") == 40


def test_expect_100_continue_gets_continue_then_the_answer(sidecar: RunningSidecar) -> None:
    body = otlp_json(*agent_spans())
    with socket.create_connection(("127.0.0.1", sidecar.sidecar.http_port), timeout=20) as sock:
        sock.sendall(HEAD + b"Expect: 100-continue\r\nContent-Length: %d\r\n\r\n" % len(body))
        assert sock.recv(4096).startswith(b"HTTP/1.1 100 ")
        sock.sendall(body)
        assert sock.recv(4096).startswith(b"HTTP/1.1 200 OK")
    assert sidecar.sidecar.stats.get("spans", "accepted") == 2
