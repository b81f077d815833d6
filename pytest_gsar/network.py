"""``--gsar-block-network``: a test's call may open no network connection but to allowed hosts.

A replay-only CI run should never reach a judge API: a test whose marker still records, an agent
that calls its model, a judge the plugin does not wrap. The guard replaces ``socket.connect`` and
``socket.connect_ex`` while a test's call runs; a connection to an address not allowed raises
:class:`NetworkBlocked` where it is made and is noted, so the plugin fails the test by name even
when the caller (an SDK that retries, a judge that abstains on errors) swallows the error.

Loopback is blocked too unless listed: the fake servers of a test suite are the usual way a
"local" judge is still a judge API. Unix-domain sockets are never blocked. Host names are matched
through the addresses they resolve to (looked up once per guard) and through the lookups made
while the guard is on, so the message names ``api.anthropic.com`` rather than its address.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gsar_otel.errors import GSARError

__all__ = ["BlockedConnection", "NetworkBlocked", "NetworkGuard", "blocked_message"]


class NetworkBlocked(RuntimeError, GSARError):
    """A connection refused by the guard (not an OSError: callers that retry on network errors
    give up at once instead of trying every address again)."""


@dataclass(frozen=True, slots=True)
class BlockedConnection:
    """One refused connection: the host as the caller named it (when known), the address and
    port connected to."""

    host: str
    address: str
    port: int | None

    def shown(self) -> str:
        """``api.example (192.0.2.1:443)``, or ``192.0.2.1:443`` when no name is known."""
        where = f"{self.address}:{self.port}" if self.port is not None else self.address
        return where if self.host == self.address else f"{self.host} ({where})"


def _normal(address: str) -> str:
    text = address.strip().lower().strip("[]")
    try:
        return str(ipaddress.ip_address(text.split("%", 1)[0]))
    except ValueError:
        return text


class NetworkGuard:
    """Context manager: while active, connections go only to ``allowed`` hosts.

    ``allowed`` entries are host names or IP addresses; a name allows every address it resolves
    to. Not re-entrant: one guard at a time (pytest runs one test call at a time per process).
    """

    def __init__(self, allowed: tuple[str, ...] = ()) -> None:
        self.allowed = tuple(_normal(host) for host in allowed)
        self.blocked: list[BlockedConnection] = []
        self._names: dict[str, str] = {}
        self._allowed_addresses: set[str] | None = None
        self._lock = threading.Lock()
        self._saved: tuple[Any, Any, Any] | None = None

    # --- checks ---------------------------------------------------------------------------------

    def _allowed_set(self, getaddrinfo: Callable[..., Any]) -> set[str]:
        if self._allowed_addresses is None:
            addresses = set(self.allowed)
            for host in self.allowed:
                try:
                    addresses.update(_normal(str(info[4][0])) for info in getaddrinfo(host, None))
                except (OSError, UnicodeError):
                    continue  # an allowed name that does not resolve allows nothing more
            self._allowed_addresses = addresses
        return self._allowed_addresses

    def check(self, sock: socket.socket, address: Any) -> None:
        """Refuse ``address`` unless it is allowed (or not an internet address at all).

        Raises:
            NetworkBlocked: naming the host and how to allow it.
        """
        if sock.family not in (socket.AF_INET, socket.AF_INET6) or not isinstance(
                address, tuple) or not address:
            return
        ip = _normal(str(address[0]))
        port = address[1] if len(address) > 1 and isinstance(address[1], int) else None
        host = self._names.get(ip, ip)
        assert self._saved is not None
        if ip in self._allowed_set(self._saved[2]) or host in self.allowed:
            return
        attempt = BlockedConnection(host=host, address=ip, port=port)
        with self._lock:
            self.blocked.append(attempt)
        raise NetworkBlocked(f"--gsar-block-network: connection to {attempt.shown()} refused "
                             f"(allowed: {', '.join(self.allowed) or 'none'})")

    # --- patching -------------------------------------------------------------------------------

    def __enter__(self) -> NetworkGuard:
        connect, connect_ex, getaddrinfo = (socket.socket.connect, socket.socket.connect_ex,
                                            socket.getaddrinfo)
        self._saved = (connect, connect_ex, getaddrinfo)
        guard = self

        def guarded_connect(sock: socket.socket, address: Any) -> None:
            guard.check(sock, address)
            connect(sock, address)

        def guarded_connect_ex(sock: socket.socket, address: Any) -> int:
            guard.check(sock, address)
            result: int = connect_ex(sock, address)
            return result

        def naming_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
            infos = getaddrinfo(host, *args, **kwargs)
            if isinstance(host, str | bytes):
                name = host.decode("ascii", "replace") if isinstance(host, bytes) else host
                for info in infos:
                    address = _normal(str(info[4][0]))
                    if address != _normal(name):
                        guard._names.setdefault(address, name.lower())
            return infos

        socket.socket.connect = guarded_connect  # type: ignore[method-assign, assignment]
        socket.socket.connect_ex = guarded_connect_ex  # type: ignore[method-assign, assignment]
        socket.getaddrinfo = naming_getaddrinfo
        return self

    def __exit__(self, *exc: object) -> None:
        if self._saved is not None:
            connect, connect_ex, getaddrinfo = self._saved
            socket.socket.connect = connect  # type: ignore[method-assign]
            socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
            socket.getaddrinfo = getaddrinfo


def blocked_message(nodeid: str, blocked: list[BlockedConnection], record_mode: str) -> str:
    """Why the test failed: it, the hosts it tried to reach, and the two ways out."""
    hosts = list(dict.fromkeys(attempt.shown() for attempt in blocked))
    first = blocked[0].host
    return (f"{nodeid} tried to reach the network with --gsar-block-network on: "
            f"{', '.join(hosts)} ({len(blocked)} connection(s) refused; record mode "
            f"{record_mode}). A replay-only run must not call a judge API: record the missing "
            f"verdicts in a run without the guard (--gsar-record-mode=once, -o "
            f"gsar_block_network=false), or allow the host with --gsar-allowed-hosts={first}")
