"""Process, container and event listings, read as tables whatever their column layout:

- ``ps aux``: right-aligned numbers and a free-text ``COMMAND`` last; ``%CPU`` is ``CPU_pct``;
  "PID 2210" names that process's row, so another row's value is never its own;
- ``docker ps``: a header of two words (``CONTAINER ID``), cells holding spaces (``Up 2
  hours``) and an empty ``PORTS``; "all containers are running" against every row;
- ``kubectl get events``: ``LAST SEEN`` is one column, ``MESSAGE`` free text, and a CamelCase
  reason in a cell states its category (``NodeNotReady``).

Swapping any one value is never grounded; restating it is."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()
COMMANDS = ["postgres: checkout checkout 10.0.1.5(52310) SELECT", "nginx: worker process",
            "java -Xmx4g -jar orders.jar", "/usr/bin/redis-server 127.0.0.1:6379"]
NAMES = ["cache", "db", "orders", "gateway"]


def bucket(claim: str, items: list[str]) -> str:
    got = [v.bucket for v in judge.explain(synthesis=claim, evidence=EvidenceSet.coerce(items))]
    assert len(got) == 1, (claim, got)
    return got[0]


def ps(rows: list[tuple[int, float, float]]) -> str:
    lines = ["USER       PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND"]
    for at, (pid, cpu, mem) in enumerate(rows):
        lines.append(f"svc{at:<6} {pid:>5} {cpu:4.1f} {mem:4.1f} 612340 198220 ?        S    "
                     f"09:12   1:02 {COMMANDS[at % len(COMMANDS)]}")
    return "\n".join(lines)


@settings(max_examples=40)
@given(pids=st.lists(st.integers(100, 99999), min_size=2, max_size=4, unique=True),
       cpus=st.lists(st.integers(1, 999), min_size=4, max_size=4, unique=True),
       mems=st.lists(st.integers(1, 999), min_size=4, max_size=4, unique=True),
       pick=st.integers(0, 3), other=st.integers(1, 3))
def test_a_process_is_its_pid_row(pids: list[int], cpus: list[int], mems: list[int], pick: int,
                                  other: int) -> None:
    rows = [(pid, cpus[at] / 10, mems[at] / 10) for at, pid in enumerate(pids)]
    text = ps(rows)
    pid, cpu, mem = rows[pick % len(rows)]
    _, other_cpu, other_mem = rows[(pick + other) % len(rows)]
    if other_cpu == cpu:
        return
    assert bucket(f"PID {pid} uses {cpu:.1f}% CPU.", [text]) == "grounded", text
    assert bucket(f"PID {pid} uses {other_cpu:.1f}% CPU.", [text]) == "contradicted", text
    assert bucket(f"PID {pid} uses {mem:.1f}% of memory.", [text]) == "grounded", text
    assert bucket(f"PID {pid} uses {other_mem:.1f}% of memory.", [text]) == "contradicted"


@settings(max_examples=40)
@given(up=st.lists(st.booleans(), min_size=2, max_size=4), codes=st.lists(
    st.sampled_from([0, 1, 137, 143]), min_size=4, max_size=4), pick=st.integers(0, 3))
def test_a_container_listing_is_read_row_by_row(up: list[bool], codes: list[int],
                                                pick: int) -> None:
    lines = ["CONTAINER ID   IMAGE          COMMAND                  CREATED        "
             "STATUS                      PORTS                    NAMES"]
    for at, running in enumerate(up):
        status = "Up 2 hours" if running else f"Exited ({codes[at]}) 5 minutes ago"
        ports = "0.0.0.0:6379->6379/tcp" if running else ""
        lines.append(f"{at:012x}   redis:7.2      \"docker-entrypoint.s…\"   2 hours ago    "
                     f"{status:<28}{ports:<25}{NAMES[at]}")
    text = "\n".join(lines)
    expected = "grounded" if all(up) else "contradicted"
    assert bucket("All containers are running.", [text]) == expected, text
    name, running = NAMES[pick % len(up)], up[pick % len(up)]
    got = bucket(f"The {name} container is up.", [text])
    assert got == ("grounded" if running else "contradicted"), (text, got)
    if not running:
        code = codes[pick % len(up)]
        said = f"The {name} container exited with code {{}}."
        assert bucket(said.format(code), [text]) == "grounded", text
        assert bucket(said.format(code + 2), [text]) != "grounded", text


@settings(max_examples=30)
@given(ready=st.booleans(), node=st.integers(1, 254), minutes=st.integers(1, 59))
def test_an_event_listing_keeps_its_columns_and_its_reasons(ready: bool, node: int,
                                                           minutes: int) -> None:
    reason = "NodeReady" if ready else "NodeNotReady"
    host = f"ip-10-1-3-{node}.ec2.internal"
    text = ("LAST SEEN  TYPE     REASON        OBJECT                           MESSAGE\n"
            f"{minutes}m{' ' * (10 - len(str(minutes)))}Normal   {reason:<14}"
            f"node/{host:<27}  Node status changed")
    assert bucket(f"Node {host} was ready.", [text]) == (
        "grounded" if ready else "contradicted"), text
    assert bucket(f"Node {host} went NotReady.", [text]) == (
        "contradicted" if ready else "grounded"), text
