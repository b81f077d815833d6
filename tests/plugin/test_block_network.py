"""``--gsar-block-network``: a test's call may open no connection except to allowed hosts.

Checked with the real anthropic SDK over real HTTP against the fake Messages API on 127.0.0.1,
and with plain sockets for the guard itself.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from pytest_gsar.network import NetworkBlocked, NetworkGuard
from tests.plugin.helpers import GOOD, METRIC_ROW, write_ini
from tests.plugin.test_record_mode import no_server, use_server
from tests.support.fake_anthropic import FakeMessagesServer

RECORDING_TEST = f"""
import pytest

@pytest.mark.gsar(record_mode="once")
def test_answer(assert_grounded):
    assert_grounded({GOOD!r}, [{METRIC_ROW!r}])
"""
CASSETTE = ("cassettes", "gsar", "test_agent", "test_answer.json")


def test_a_test_that_would_record_fails_naming_itself_and_the_host(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    gsar_pytester.makepyfile(test_agent=RECORDING_TEST)
    with FakeMessagesServer() as server:
        use_server(monkeypatch, server)
        result = gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic",
                                                   "--gsar-block-network")
        result.assert_outcomes(failed=1)
        result.stdout.fnmatch_lines([
            f"*test_agent.py::test_answer tried to reach the network with --gsar-block-network "
            f"on: 127.0.0.1:{server.port} (*record mode once)*--gsar-allowed-hosts=127.0.0.1",
            "*the test then failed with GroundingFailure: grounding check failed: decision is "
            "abstain*"])
        assert not server.message_requests
    assert not gsar_pytester.path.joinpath(*CASSETTE).exists()


def test_a_replay_from_the_cassette_passes_with_the_guard_on(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    gsar_pytester.makepyfile(test_agent=RECORDING_TEST)
    with FakeMessagesServer() as server:
        use_server(monkeypatch, server)
        # Recording needs the network: the guard allows the fake server here.
        gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic", "--gsar-block-network",
                                          "--gsar-allowed-hosts=127.0.0.1"
                                          ).assert_outcomes(passed=1)
        assert len(server.message_requests) == 1
        gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic", "--gsar-block-network"
                                          ).assert_outcomes(passed=1)
        assert len(server.message_requests) == 1
    no_server(monkeypatch)
    gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic", "--gsar-block-network"
                                      ).assert_outcomes(passed=1)


def test_the_ini_option_turns_the_guard_on_and_dash_o_turns_it_off(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    write_ini(gsar_pytester, gsar_block_network="true", gsar_judge="anthropic")
    gsar_pytester.makepyfile(test_agent=RECORDING_TEST)
    with FakeMessagesServer() as server:
        use_server(monkeypatch, server)
        gsar_pytester.runpytest_inprocess().assert_outcomes(failed=1)
        assert not server.message_requests
        gsar_pytester.runpytest_inprocess("-o", "gsar_block_network=false"
                                          ).assert_outcomes(passed=1)
        assert len(server.message_requests) == 1


def test_a_connection_the_test_swallows_still_fails_it(gsar_pytester: pytest.Pytester) -> None:
    with _listener() as port:
        gsar_pytester.makepyfile(test_agent=f"""
import socket

def test_calls_out():
    try:
        socket.create_connection(("127.0.0.1", {port}), timeout=5).close()
    except Exception:
        pass  # an SDK that retries, or a judge that abstains, hides the error like this
""")
        result = gsar_pytester.runpytest_inprocess("--gsar-block-network")
        result.assert_outcomes(failed=1)
        result.stdout.fnmatch_lines(["*test_calls_out tried to reach the network*"
                                     f"127.0.0.1:{port}*"])
        gsar_pytester.runpytest_inprocess().assert_outcomes(passed=1)


@pytest.fixture
def listener() -> Iterator[int]:
    with _listener() as port:
        yield port


class _listener:
    """A loopback TCP socket that accepts connections: something real to connect to."""

    def __enter__(self) -> int:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()
        port: int = self.sock.getsockname()[1]
        return port

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
                conn.close()
            except OSError:
                continue

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()
        self.sock.close()


def test_the_guard_blocks_loopback_unless_listed_and_names_the_host(listener: int) -> None:
    with NetworkGuard(()) as guard, pytest.raises(NetworkBlocked, match="refused"):
        socket.create_connection(("localhost", listener), timeout=5)
    assert guard.blocked and guard.blocked[0].port == listener
    assert guard.blocked[0].host == "localhost"
    for allowed in (("localhost",), ("127.0.0.1",), ("::1", "127.0.0.1")):
        with NetworkGuard(allowed) as guard:
            socket.create_connection(("127.0.0.1", listener), timeout=5).close()
        assert not guard.blocked


def test_the_guard_leaves_unix_sockets_alone_and_restores_socket(tmp_path: object) -> None:
    connect, getaddrinfo = socket.socket.connect, socket.getaddrinfo
    with NetworkGuard(()) as guard:
        assert socket.socket.connect is not connect
        if hasattr(socket, "AF_UNIX"):
            unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            with pytest.raises(OSError):  # nothing listens there; the guard let it through
                unix.connect(str(tmp_path) + "/none.sock")
            unix.close()
    assert not guard.blocked
    assert socket.socket.connect is connect and socket.getaddrinfo is getaddrinfo


def test_connect_ex_is_guarded_too(listener: int) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        with NetworkGuard(()) as guard, pytest.raises(NetworkBlocked):
            sock.connect_ex(("127.0.0.1", listener))
    finally:
        sock.close()
    assert [b.address for b in guard.blocked] == ["127.0.0.1"]


def test_the_message_names_the_host_the_sdk_was_given(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    gsar_pytester.makepyfile(test_agent=RECORDING_TEST)
    with FakeMessagesServer() as server:
        use_server(monkeypatch, server)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://localhost:{server.port}")
        result = gsar_pytester.runpytest_inprocess("--gsar-judge=anthropic",
                                                   "--gsar-block-network")
        result.assert_outcomes(failed=1)
        result.stdout.fnmatch_lines([f"*tried to reach the network with --gsar-block-network on: "
                                     f"localhost (*:{server.port})*--gsar-allowed-hosts=localhost"])
        assert not server.message_requests


def test_under_xdist_the_marker_and_the_guard_hold_in_every_worker(
        gsar_pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    gsar_pytester.makepyfile(test_agent=f"""
import pytest

@pytest.mark.gsar(record_mode="once")
@pytest.mark.parametrize("n", range(2))
def test_answer(assert_grounded, n):
    assert_grounded({GOOD!r} + " " * n, [{METRIC_ROW!r}])
""")
    xdist = ("-n", "2", "-p", "no:cacheprovider", "--gsar-judge=anthropic")
    with FakeMessagesServer() as server:
        use_server(monkeypatch, server)
        result = gsar_pytester.runpytest_subprocess(*xdist, "--gsar-block-network")
        result.assert_outcomes(failed=2)
        assert result.stdout.str().count("tried to reach the network") >= 2
        assert not server.message_requests
        gsar_pytester.runpytest_subprocess(*xdist, "--gsar-block-network",
                                           "--gsar-allowed-hosts=127.0.0.1"
                                           ).assert_outcomes(passed=2)
        assert len(server.message_requests) == 2
    no_server(monkeypatch)
    gsar_pytester.runpytest_subprocess(*xdist, "--gsar-block-network").assert_outcomes(passed=2)
