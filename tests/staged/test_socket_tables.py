"""``ss -tlnp`` output is a table: each listening socket a row of its process (``users:((
"redis-server",pid=1502,fd=6))`` is the process ``redis-server``), so a port, an address or a
queue length of another process's row is never grounded for the one a claim names."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

PROCESSES = ("nginx", "postgres", "java", "redis-server", "haproxy", "sshd", "node")
UNRELATED = ["2024-05-01T10:00:00Z ERROR payments-api: timeout calling ledger",
             "ALERT ALRT-7 HighLatency on checkout-api fired at 10:02"]


def _ss(rows: list[tuple[str, int, int, str]]) -> str:
    lines = ["State    Recv-Q   Send-Q     Local Address:Port     Peer Address:Port   Process"]
    for at, (name, port, queue, address) in enumerate(rows):
        local = f"{address}:{port}"
        lines.append(f"LISTEN   0        {queue:<8} {local:>22} {'0.0.0.0:*':>20}       "
                     f'users:(("{name}",pid={1000 + at},fd=6))')
    return "\n".join(lines)


def _bucket(claim: str, items: list[str]) -> str:
    verdicts = StagedJudge().explain(synthesis=claim, evidence=EvidenceSet.coerce(items))
    assert len(verdicts) == 1, claim
    return verdicts[0].bucket


@settings(max_examples=40, deadline=None)
@given(names=st.lists(st.sampled_from(PROCESSES), min_size=2, max_size=4, unique=True),
       ports=st.lists(st.integers(1024, 9999), min_size=4, max_size=4, unique=True),
       queues=st.lists(st.sampled_from([128, 244, 511, 4096]), min_size=4, max_size=4,
                       unique=True),
       addresses=st.lists(st.sampled_from(["0.0.0.0", "127.0.0.1", "10.0.3.17"]),
                          min_size=4, max_size=4),
       pick=st.integers(0, 3), other=st.integers(1, 3))
@example(names=["nginx", "redis-server", "postgres"], ports=[8080, 6379, 5432, 9000],
         queues=[511, 4096, 244, 128], addresses=["0.0.0.0", "127.0.0.1", "0.0.0.0", "0.0.0.0"],
         pick=1, other=1)
def test_a_socket_is_its_own_processs(names: list[str], ports: list[int], queues: list[int],
                                      addresses: list[str], pick: int, other: int) -> None:
    rows = [(name, ports[at], queues[at], addresses[at]) for at, name in enumerate(names)]
    table = _ss(rows)
    mine = pick % len(rows)
    theirs = (mine + other) % len(rows)
    name, port, queue, address = rows[mine]
    said = f"The {name} process listens on port {port}."
    assert _bucket(said, [table]) == "grounded", (said, table)
    assert _bucket(said, [*UNRELATED, table]) == "grounded", (said, table)
    assert _bucket(f"{name} is listening on {address}:{port}.", [table]) == "grounded", table
    assert _bucket(f"The {name} process has a send queue of {queue}.", [table]) == "grounded"
    if theirs != mine:
        _, port2, queue2, address2 = rows[theirs]
        for wrong in (f"The {name} process listens on port {port2}.",
                      f"{name} is listening on {address2}:{port2}.",
                      f"The {name} process has a send queue of {queue2}."):
            assert _bucket(wrong, [table]) != "grounded", (wrong, table)
            assert _bucket(wrong, [table, *UNRELATED]) != "grounded", (wrong, table)
