"""Misbehaving ``--forward`` targets on loopback: one that answers every POST with a redirect to
a sink, and one that trickles its answer a byte at a time and never finishes it."""

from __future__ import annotations

import contextlib
import http.server
import itertools
import socket
import threading
from typing import Any, ClassVar


class _Redirecting(http.server.BaseHTTPRequestHandler):
    statuses: ClassVar[Any] = itertools.cycle((301, 302, 303))
    sink_bytes: ClassVar[list[int]] = []
    """Bytes each request that reached ``/sink`` carried (a followed redirect arrives here)."""
    redirected: ClassVar[list[int]] = []
    lock: ClassVar[threading.Lock] = threading.Lock()

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _answer(self, status: int, location: str = "") -> None:
        self.send_response(status)
        if location:
            self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        body = self._body()
        with self.lock:
            if self.path.startswith("/sink"):
                self.sink_bytes.append(len(body))
                status = 200
            else:
                status = next(self.statuses)
                self.redirected.append(status)
        host, port = self.server.server_address[:2]
        self._answer(status, "" if status == 200 else f"http://{host}:{port}/sink")

    def do_GET(self) -> None:
        with self.lock:
            self.sink_bytes.append(0)
        self._answer(200)

    def log_message(self, *args: object) -> None:
        pass


class RedirectingTarget:
    """Answers each POST 301, 302, 303 in turn with ``Location: /sink``; counts what reaches
    the sink."""

    def __init__(self) -> None:
        _Redirecting.sink_bytes = []
        _Redirecting.redirected = []
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Redirecting)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1/traces"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def sink_bytes(self) -> list[int]:
        return list(_Redirecting.sink_bytes)

    @property
    def redirected(self) -> list[int]:
        return list(_Redirecting.redirected)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class TricklingTarget:
    """Reads a request, then answers ``HTTP/1.1 200 OK`` and endless header bytes, one byte
    every ``interval_s``, until the client goes away: a head that never completes."""

    def __init__(self, interval_s: float = 0.1) -> None:
        self.interval_s = interval_s
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/v1/traces"
        self.accepted = 0
        self.closed = threading.Event()
        self._conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.accepted += 1
            self._conns.append(conn)
            threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()

    def _trickle(self, conn: socket.socket) -> None:
        with contextlib.suppress(OSError):
            conn.settimeout(10)
            conn.recv(65536)  # the request's start is enough
            for byte in itertools.chain(b"HTTP/1.1 200 OK\r\n", itertools.cycle(b"X-A: b\r\n")):
                if self.closed.wait(self.interval_s):
                    return
                conn.sendall(bytes([byte]))

    def close(self) -> None:
        self.closed.set()
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        for conn in self._conns:
            conn.close()
