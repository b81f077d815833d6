"""The OTLP/HTTP listener queues up to ``LISTEN_BACKLOG`` connections for ``accept`` while the
event loop is busy (asyncio's default is 100): past a full queue the kernel drops a client's
connection attempt, and its TCP stack tries again only after 1 s (``/healthz`` probes of 1.03 to
1.06 s under the soak's 600 reconnecting slow clients)."""

from __future__ import annotations

import select
import socket
import threading
import time

from gsar_otel.sidecar.intake.receiver_http import LISTEN_BACKLOG
from tests.sidecar.support import start_sidecar

CONNECTIONS = 300


def _connected(sockets: list[socket.socket], within_s: float) -> int:
    """How many of the non-blocking connects complete within ``within_s`` (no retry: a dropped
    attempt is retried by the kernel only after 1 s)."""
    pending = list(sockets)
    done = 0
    end = time.monotonic() + within_s
    while pending and time.monotonic() < end:
        _, writable, _ = select.select([], pending, [], max(0.0, end - time.monotonic()))
        for sock in writable:
            pending.remove(sock)
            done += sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
    return done


def test_connections_arriving_while_the_loop_is_busy_wait_in_the_listen_queue() -> None:
    assert LISTEN_BACKLOG >= CONNECTIONS
    running = start_sidecar()
    port = running.sidecar.http_port
    release = threading.Event()
    blocked = threading.Event()

    def hold_the_loop() -> None:
        blocked.set()
        release.wait(10)

    holder = threading.Thread(target=lambda: running.call(hold_the_loop))
    holder.start()
    sockets: list[socket.socket] = []
    try:
        assert blocked.wait(10)  # nothing is accepted from here until release
        for _ in range(CONNECTIONS):
            sock = socket.socket()
            sock.setblocking(False)
            sock.connect_ex(("127.0.0.1", port))
            sockets.append(sock)
        # Every handshake completes in the kernel's queue (asyncio's 100 would drop the rest
        # until their retry a second later).
        assert _connected(sockets, 0.8) == CONNECTIONS
    finally:
        release.set()
        holder.join(10)
        for sock in sockets:
            sock.close()
        running.stop()
