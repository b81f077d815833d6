"""One HTTP/1.1 POST to the ``--forward`` target, framed by ``h11``, within an overall deadline.

* No redirect is followed: a 3xx answer is a failed delivery (:class:`SendFailed` with reason
  ``redirect`` and the ``Location``), since following a 301/302/303 turns the POST into a
  body-less GET that a server answers 200 while the data is lost.
* The deadline bounds the whole send (connecting, writing, reading the answer's head): before
  each socket operation the socket's timeout is set to what is left of it, so a target that
  trickles its answer a byte at a time is cut off at the deadline like one that never answers.
  The answer's head is all that is read (its status says whether the data was taken).
* A :class:`Cutoff` shared by sends ends them at a time of its own (the sidecar's shutdown):
  past it no send starts, and the sends in progress are interrupted (their sockets shut down)
  when it comes, whatever their own deadline says.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from urllib.parse import urlsplit

import h11

from gsar_otel.errors import GSARError

REDIRECT = "redirect"
"""A 3xx answer: not followed, the data not delivered."""
DEADLINE = "deadline"
"""The send did not end within its deadline."""
SHUTDOWN = "shutdown"
"""The send was cut off (or not started) by its :class:`Cutoff`."""
FAILED = "send_failed"
"""Anything else: refused or reset connection, an answer other than 2xx or 3xx, bad framing."""
READ_BYTES = 64 * 1024


class SendFailed(GSARError):
    """A POST that did not deliver; ``reason`` is one of the reasons above, ``status`` the
    answer's status (0 when none came) and ``location`` a redirect's target."""

    def __init__(self, reason: str, message: str, *, status: int = 0,
                 location: str = "") -> None:
        super().__init__(message)
        self.reason, self.status, self.location = reason, status, location


class Cutoff:
    """A time after which sends end: set once by :meth:`cut_at` (an earlier time wins)."""

    def __init__(self) -> None:
        self._at: float | None = None
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._timer: threading.Timer | None = None

    @property
    def at(self) -> float | None:
        """The cut-off time (``time.monotonic()``), None while none is set."""
        return self._at

    def passed(self) -> bool:
        at = self._at
        return at is not None and time.monotonic() >= at

    def cut_at(self, when: float) -> None:
        """End every send at ``when`` (``time.monotonic()``): those in progress then are
        interrupted, later ones fail at once."""
        with self._lock:
            if self._at is not None and self._at <= when:
                return
            self._at = when
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(max(0.0, when - time.monotonic()), self._cut)
            self._timer.daemon = True
            self._timer.start()

    def _cut(self) -> None:
        with self._lock:
            sockets = list(self._sockets)
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    @contextlib.contextmanager
    def holding(self, sock: socket.socket) -> Iterator[None]:
        """Register ``sock`` as in use, so a cut interrupts it."""
        with self._lock:
            self._sockets.add(sock)
        try:
            if self.passed():
                self._cut()
            yield
        finally:
            with self._lock:
                self._sockets.discard(sock)


def post(url: str, body: bytes, content_type: str, *, timeout_s: float,
         cutoff: Cutoff | None = None, headers: Sequence[tuple[str, str]] = ()) -> int:
    """POST ``body`` to ``url`` (http or https); the 2xx status it was answered with.

    Raises:
        SendFailed: not delivered (a 3xx, another status, an error, the deadline or the
            cut-off passed).
    """
    cutoff = cutoff or Cutoff()
    deadline = time.monotonic() + timeout_s
    if cutoff.at is not None:
        deadline = min(deadline, cutoff.at)

    def left() -> float:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            reason = SHUTDOWN if cutoff.passed() else DEADLINE
            raise SendFailed(reason, f"no answer within {timeout_s:g} s" if reason == DEADLINE
                             else "cut off at shutdown")
        return remaining

    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        sock = socket.create_connection((host, port), timeout=left())
    except SendFailed:
        raise
    except OSError as error:
        raise _failure(error, cutoff, deadline) from None
    try:
        if parts.scheme == "https":
            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
        with cutoff.holding(sock):
            return _exchange(sock, parts.netloc, target, body, content_type, headers, left)
    except (SendFailed, ssl.CertificateError) as error:
        if isinstance(error, SendFailed):
            raise
        raise SendFailed(FAILED, str(error)) from None
    except (OSError, h11.ProtocolError) as error:
        raise _failure(error, cutoff, deadline) from None
    finally:
        sock.close()


def _exchange(sock: socket.socket, netloc: str, target: str, body: bytes, content_type: str,
              headers: Sequence[tuple[str, str]], left: Callable[[], float]) -> int:
    conn = h11.Connection(h11.CLIENT)
    request = h11.Request(method="POST", target=target, headers=[
        ("Host", netloc), ("Content-Type", content_type), ("Content-Length", str(len(body))),
        ("Connection", "close"), ("User-Agent", "gsar-sidecar"), *headers])
    data = conn.send(request) + conn.send(h11.Data(data=body)) + conn.send(h11.EndOfMessage())
    sock.settimeout(left())
    sock.sendall(data)  # the timeout bounds the whole sendall
    while True:
        event = conn.next_event()
        if event is h11.NEED_DATA:
            sock.settimeout(left())
            conn.receive_data(sock.recv(READ_BYTES))
            continue
        if isinstance(event, h11.InformationalResponse):
            continue
        if isinstance(event, h11.Response):
            return _status(event)
        raise SendFailed(FAILED, "the connection closed before an answer")


def _status(response: h11.Response) -> int:
    status = int(response.status_code)
    if 200 <= status < 300:
        return status
    fields = {name.lower(): value for name, value in response.headers}
    if 300 <= status < 400:
        location = fields.get(b"location", b"").decode("latin-1")[:512]
        raise SendFailed(REDIRECT, f"answered {status} (redirect to {location or '?'}, not "
                         "followed)", status=status, location=location)
    raise SendFailed(FAILED, f"answered {status}", status=status)


def _failure(error: BaseException, cutoff: Cutoff, deadline: float) -> SendFailed:
    if cutoff.passed():
        return SendFailed(SHUTDOWN, f"cut off at shutdown ({type(error).__name__})")
    if isinstance(error, TimeoutError) or time.monotonic() >= deadline:
        return SendFailed(DEADLINE, f"no answer within the deadline ({type(error).__name__})")
    return SendFailed(FAILED, f"{type(error).__name__}: {error}")
