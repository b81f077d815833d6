"""A name a token carries names its record:

- a pod Kubernetes named for its workload (``payments-worker-5c6d7f8b9-lq4wn``, a Deployment's
  pod; ``node-exporter-x7k2p``, a DaemonSet's) is a pod of that workload, so "the
  payments-worker pod has restarted 7 times" reads that pod's row;
- a path's file (``java -jar /opt/orders/orders-service.jar``) names its program, so "the
  orders-service process" reads that process's row;
- a process's command words ("the nginx worker" of ``nginx: worker process``) name its row,
  and a value another row holds is not its own.

The workload's or program's own value is grounded; another row's value is not; a name no
token carries (a changed workload or program) is never grounded."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()
SAFE = "bcdfghjklmnpqrstvwxz2456789"
"""Kubernetes' alphabet for the hashes in the names it makes."""
WORKLOADS = ["payments-worker", "checkout-api", "cart-service", "node-exporter", "orders-db-proxy"]
OTHERS = ["payments-api", "checkout-web", "billing-service"]
"""Names no generated listing holds."""


def bucket(claim: str, items: list[str]) -> str:
    got = [v.bucket for v in judge.explain(synthesis=claim, evidence=EvidenceSet.coerce(items))]
    assert len(got) == 1, (claim, got)
    return got[0]


hashes = st.text(SAFE, min_size=5, max_size=5)


@settings(max_examples=40, deadline=None)
@given(workloads=st.lists(st.sampled_from(WORKLOADS), min_size=2, max_size=4, unique=True),
       restarts=st.lists(st.integers(0, 40), min_size=4, max_size=4, unique=True),
       template=st.text(SAFE, min_size=9, max_size=10), suffixes=st.lists(hashes, min_size=4,
                                                                            max_size=4),
       daemon=st.booleans(), pick=st.integers(0, 3), other=st.sampled_from(OTHERS))
def test_a_pod_is_its_workloads(workloads: list[str], restarts: list[int], template: str,
                                suffixes: list[str], daemon: bool, pick: int,
                                other: str) -> None:
    rows = ["NAME                                 READY   STATUS    RESTARTS   AGE"]
    for at, name in enumerate(workloads):
        pod = f"{name}-{suffixes[at]}" if daemon else f"{name}-{template}-{suffixes[at]}"
        rows.append(f"{pod:<36} 1/1     Running   {restarts[at]:<10} 3d4h")
    listing = "\n".join(rows)
    at = pick % len(workloads)
    name, own = workloads[at], restarts[at]
    theirs = restarts[(at + 1) % len(workloads)]
    assert bucket(f"The {name} pod has restarted {own} times.", [listing]) == "grounded", listing
    assert bucket(f"The {name} pod has restarted {theirs} times.", [listing]) != "grounded", \
        listing
    assert bucket(f"The {other} pod has restarted {own} times.", [listing]) != "grounded", \
        listing


PROGRAMS = ["orders-service", "ledger_sync", "cart-api", "report-worker"]


@settings(max_examples=40, deadline=None)
@given(programs=st.lists(st.sampled_from(PROGRAMS), min_size=2, max_size=4, unique=True),
       cpus=st.lists(st.integers(1, 999), min_size=4, max_size=4, unique=True),
       extension=st.sampled_from(["jar", "py", "js", "bin"]), pick=st.integers(0, 3),
       other=st.sampled_from(OTHERS))
def test_a_paths_file_names_its_process(programs: list[str], cpus: list[int], extension: str,
                                        pick: int, other: str) -> None:
    rows = ["USER       PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND"]
    for at, program in enumerate(programs):
        rows.append(f"app     {8800 + at:>5} {cpus[at] / 10:4.1f}  2.0 612340 198220 ?        Sl   "
                    f"14:02   1:02 runner /opt/{program}/{program}.{extension}")
    listing = "\n".join(rows)
    at = pick % len(programs)
    program, own = programs[at], f"{cpus[at] / 10:.1f}%"
    theirs = f"{cpus[(at + 1) % len(programs)] / 10:.1f}%"
    assert bucket(f"The {program} process is using {own} CPU.", [listing]) == "grounded", listing
    assert bucket(f"The {program} process is using {theirs} CPU.", [listing]) != "grounded", \
        listing
    assert bucket(f"The {other} process is using {own} CPU.", [listing]) != "grounded", listing


COMMANDS = [("nginx: worker process", "nginx worker"), ("postgres: checkpointer",
                                                         "postgres checkpointer"),
            ("sshd: session", "sshd session"), ("haproxy: master process", "haproxy master")]


@settings(max_examples=40, deadline=None)
@given(rows=st.permutations(range(len(COMMANDS))), count=st.integers(2, 4),
       cpus=st.lists(st.integers(1, 999), min_size=4, max_size=4, unique=True),
       pick=st.integers(0, 3))
def test_a_process_named_by_its_command_words_is_its_row(rows: list[int], count: int,
                                                         cpus: list[int], pick: int) -> None:
    """"The nginx worker is using 85.3% CPU": the row whose command the words name, not the row
    that happens to hold 85.3%."""
    listed = rows[:count]
    lines = ["USER       PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND"]
    for at, which in enumerate(listed):
        lines.append(f"svc{at:<6} {2200 + at:>5} {cpus[at] / 10:4.1f}  1.2 612340 198220 ?     "
                     f"S    09:12   1:02 {COMMANDS[which][0]}")
    listing = "\n".join(lines)
    at = pick % count
    words = COMMANDS[listed[at]][1]
    own, theirs = cpus[at] / 10, cpus[(at + 1) % count] / 10
    assert bucket(f"The {words} is using {own:.1f}% CPU.", [listing]) == "grounded", listing
    assert bucket(f"The {words} is using {theirs:.1f}% CPU.", [listing]) != "grounded", listing
