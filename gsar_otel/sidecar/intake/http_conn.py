"""One HTTP/1.1 server connection on asyncio streams, framed by ``h11`` (the sans-IO parser
under httpcore): request heads, bodies (``Content-Length`` or chunked), keep-alive and answers.

Every malformed framing (a bad or conflicting ``Content-Length``, a ``Transfer-Encoding`` other
than ``chunked``, a bad chunk size, a head, chunk-size or trailer line over ``MAX_HEAD_BYTES``)
is an :class:`HttpFailure`: answered 400 (431 for a head too large), never a traceback. Time is
bounded too: a request's head must arrive within the header timeout, its body at the minimum
rate after the same grace, and a keep-alive connection idles at most ``IDLE_TIMEOUT_S``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field

import h11

from gsar_otel.errors import GSARError
from gsar_otel.sidecar.intake.admission import Reservation

MAX_HEAD_BYTES = 16 * 1024
"""A request head, chunk-size line or trailer section longer than this is refused (one up to
``MAX_HEAD_BYTES - FEED_BYTES`` is always read)."""
FEED_BYTES = 4 * 1024
"""Bytes given to h11 at a time: h11 bounds what it holds of an incomplete event, so feeding it
in small pieces makes that bound hold for any line, however the bytes arrive."""
IDLE_TIMEOUT_S = 60.0
READ_BYTES = 64 * 1024
LINGER_BYTES = 256 * 1024
LINGER_S = 1.0
"""After an answer that closes the connection early, what is still read and dropped, and for
how long at most."""

FRAMING = "framing"
SLOW_HEAD = "slow_head"
SLOW_BODY = "slow_body"
INCOMPLETE = "incomplete"
TOO_LARGE = "too_large"
OVER_BUDGET = "over_budget"
REASONS = {100: "Continue", 200: "OK", 400: "Bad Request", 401: "Unauthorized",
           404: "Not Found", 405: "Method Not Allowed", 408: "Request Timeout",
           411: "Length Required", 413: "Content Too Large", 415: "Unsupported Media Type",
           429: "Too Many Requests", 431: "Request Header Fields Too Large",
           500: "Internal Server Error", 503: "Service Unavailable"}


@dataclass(frozen=True, slots=True)
class Head:
    """A request's line and headers (names lower-cased; a repeated header: the last value)."""

    method: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)


class HttpFailure(GSARError):
    """Answer ``status`` with ``message`` and close; ``reason`` says what was wrong (the
    receiver counts it)."""

    def __init__(self, status: int, message: str, reason: str) -> None:
        super().__init__(message)
        self.status, self.message, self.reason = status, message, reason


class HttpConnection:
    """Reads requests and writes answers on one connection."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *,
                 header_timeout_s: float, min_body_rate: int) -> None:
        self.reader, self.writer = reader, writer
        self.header_timeout_s, self.min_body_rate = header_timeout_s, min_body_rate
        self.h11 = h11.Connection(h11.SERVER,
                                  max_incomplete_event_size=MAX_HEAD_BYTES - FEED_BYTES)
        self._loop = asyncio.get_running_loop()
        self._pending = b""
        self._offset = 0
        self._closed = False

    async def _event(self, deadline: Callable[[], float],
                     slow: str) -> h11.Event | type[h11.NEED_DATA] | type[h11.PAUSED]:
        """The next h11 event, reading until ``deadline()`` (loop time, asked before each read).

        Raises:
            HttpFailure: malformed framing (``framing``), the peer gone mid-request
                (``incomplete``), or nothing complete by the deadline (``slow``).
        """
        while True:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError as bad:
                if self._closed:  # every byte before the close was read without error
                    raise HttpFailure(400, "the connection closed mid-request",
                                      INCOMPLETE) from None
                head_done = self.h11.their_state is not h11.IDLE
                status = 431 if bad.error_status_hint == 431 and not head_done else 400
                raise HttpFailure(status, f"malformed HTTP/1.1 framing: {bad}", FRAMING) from None
            if event is not h11.NEED_DATA:
                return event
            if self._offset < len(self._pending):
                end = self._offset + FEED_BYTES
                self.h11.receive_data(self._pending[self._offset:end])
                self._offset = end
                continue
            left = deadline() - self._loop.time()
            if left <= 0:
                raise HttpFailure(408, "the request arrived too slowly", slow)
            try:
                data = await asyncio.wait_for(self.reader.read(READ_BYTES), left)
            except TimeoutError:
                raise HttpFailure(408, "the request arrived too slowly", slow) from None
            if not data:
                self._closed = True
                self.h11.receive_data(b"")  # the peer closed
            self._pending, self._offset = data, 0

    async def request(self, first: bool, header_timeout_s: float | None = None) -> Head | None:
        """The next request's head, or None when the client closed (or idled out) between
        requests. The head must be complete ``header_timeout_s`` after the connection opened
        (``first``) or after the request's first byte.

        Raises:
            HttpFailure: malformed (400/431) or too slow (408, ``slow_head``).
        """
        timeout = self.header_timeout_s if header_timeout_s is None else header_timeout_s
        started = first or self._buffered()
        deadline = self._loop.time() + (timeout if started else IDLE_TIMEOUT_S)

        def head_deadline() -> float:
            nonlocal started, deadline
            if not started and self._buffered():
                started = True  # the request's first bytes: its head is due in ``timeout``
                deadline = self._loop.time() + timeout
            return deadline

        try:
            event = await self._event(head_deadline, SLOW_HEAD)
        except HttpFailure as failure:
            if failure.reason in (SLOW_HEAD, INCOMPLETE) and not started:
                return None  # an idle keep-alive connection, closed quietly
            raise
        if isinstance(event, h11.Request):
            headers = {name.decode("latin-1").lower(): value.decode("latin-1").strip()
                       for name, value in event.headers}
            return Head(event.method.decode("latin-1").upper(),
                        event.target.decode("latin-1"), headers)
        return None  # closed (or, never here, anything but a request)

    def _buffered(self) -> bool:
        """Bytes of a next request are here (in h11 or still to feed it)."""
        return bool(self.h11.trailing_data[0]) or self._offset < len(self._pending)

    def declared_length(self, head: Head) -> int | None:
        """The body's ``Content-Length`` (h11 has checked it), None when chunked."""
        if "chunked" in head.headers.get("transfer-encoding", "").lower():
            return None
        text = head.headers.get("content-length")
        return int(text) if text is not None else 0

    async def body(self, limit: int, reservation: Reservation) -> bytes:
        """Read the body: at most ``limit`` bytes, each taken from ``reservation`` as it
        arrives, at ``min_body_rate`` bytes a second on average after the header-timeout grace.

        Raises:
            HttpFailure: over ``limit`` (413, ``too_large``), over the byte budget (429,
                ``over_budget``), too slow (408, ``slow_body``), malformed or cut short (400).
        """
        if self.h11.they_are_waiting_for_100_continue:
            await self._send(h11.InformationalResponse(status_code=100, headers=[]))
        start = self._loop.time()
        parts: list[bytes] = []
        received = 0

        def body_deadline() -> float:
            return start + self.header_timeout_s + received / self.min_body_rate

        while True:
            event = await self._event(body_deadline, SLOW_BODY)
            if isinstance(event, h11.Data):
                received += len(event.data)
                if received > limit:
                    raise HttpFailure(413, f"body over {limit} bytes", TOO_LARGE)
                if not reservation.take(len(event.data)):
                    raise HttpFailure(429, "too many request bytes in flight; retry later",
                                      OVER_BUDGET)
                parts.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                return b"".join(parts)
            elif isinstance(event, h11.ConnectionClosed):
                raise HttpFailure(400, "the connection closed mid-request", INCOMPLETE)

    async def answer(self, status: int, body: bytes, headers: list[tuple[str, str]],
                     close: bool) -> bool:
        """Send one answer; True when the connection can serve another request."""
        if close:
            headers = [*headers, ("Connection", "close")]
        headers = [*headers, ("Content-Length", str(len(body)))]
        try:
            await self._send(h11.Response(status_code=status, headers=headers,
                                          reason=REASONS.get(status, "Status").encode()))
            await self._send(h11.Data(data=body))
            await self._send(h11.EndOfMessage())
        except h11.LocalProtocolError:
            return False  # h11 refuses this answer on this connection: just close
        if (self.h11.our_state is h11.DONE and self.h11.their_state is h11.DONE
                and not close):
            self.h11.start_next_cycle()
            return True
        return False

    async def _send(self, event: h11.Event) -> None:
        data = self.h11.send(event)
        if data:
            self.writer.write(data)
            await self.writer.drain()

    async def linger(self) -> None:
        """Read and drop what the client still sends (a little, briefly) before closing, so
        that closing with unread data does not reset the connection before it reads our
        answer."""
        async def drain() -> None:
            left = LINGER_BYTES
            while left > 0 and (chunk := await self.reader.read(min(left, 16_384))):
                left -= len(chunk)

        with contextlib.suppress(TimeoutError, ConnectionError):
            await asyncio.wait_for(drain(), LINGER_S)
