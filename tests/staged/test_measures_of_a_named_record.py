"""A measure belongs to the record the claim names and to the measure it names:

- an address or id the claim gives ("instance 10.0.4.18:8080") names its record, so a value
  another record holds (the other instance's error ratio, as a Prometheus vector lists them)
  is never grounded, while the record's own value is, wherever its JSON array puts it;
- a one-letter ``r``/``w`` part of a key is read/write (iostat's ``r_await``, ``w_await``):
  "the write await" is never grounded by the read column's value.

Swapping the value for another record's or another measure's is never grounded; restating it
is."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()


def bucket(claim: str, items: list[str]) -> str:
    got = [v.bucket for v in judge.explain(synthesis=claim, evidence=EvidenceSet.coerce(items))]
    assert len(got) == 1, (claim, got)
    return got[0]


def vector(samples: list[tuple[str, str]], at: float = 1718028180.123) -> str:
    """A Prometheus instant-vector response, one sample per (instance, value), taken at Unix
    time ``at``."""
    return json.dumps({"status": "success", "data": {"resultType": "vector", "result": [
        {"metric": {"__name__": "http_requests_error_ratio", "instance": f"{ip}:8080",
                    "job": "checkout-api"}, "value": [at, value]}
        for ip, value in samples]}})


@settings(max_examples=40, deadline=None)
@given(hosts=st.lists(st.integers(2, 250), min_size=2, max_size=4, unique=True),
       ratios=st.lists(st.integers(1, 9999), min_size=4, max_size=4, unique=True),
       pick=st.integers(0, 3), other=st.integers(1, 3))
def test_a_value_is_the_named_instances_own(hosts: list[int], ratios: list[int], pick: int,
                                            other: int) -> None:
    samples = [(f"10.0.4.{h}", f"0.{ratios[at]:04d}") for at, h in enumerate(hosts)]
    text = vector(samples)
    at = pick % len(samples)
    ip, own = samples[at]
    _, theirs = samples[(at + 1 + other % (len(samples) - 1)) % len(samples)]
    assert bucket(f"Instance {ip}:8080 has an error ratio of {own}.", [text]) == "grounded"
    assert bucket(f"Instance {ip}:8080 has an error ratio of {theirs}.", [text]) != "grounded"


def test_a_value_of_a_records_nested_array_is_still_its_own() -> None:
    record = json.dumps({"host": "10.0.0.5", "metrics": {"cpu_pct": 97},
                         "events": [{"t": "14:02:01", "msg": "restart"}]})
    assert bucket("10.0.0.5 had CPU at 97%, restarting at 14:02:01.", [record]) == "grounded"
    assert bucket("10.0.0.5 had CPU at 97%, restarting at 14:05:01.", [record]) != "grounded"


IOSTAT = ("Device   r/s   rkB/s  r_await   w/s   wkB/s  w_await  %util\n"
          "nvme1n1  {rs}  {rkb}  {r}  {ws}  {wkb}  {w}  {util}")


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.integers(1, 9999), min_size=6, max_size=6, unique=True),
       util=st.integers(1, 999))
def test_the_read_and_write_columns_are_two_measures(values: list[int], util: int) -> None:
    rs, rkb, r, ws, wkb, w = (f"{v / 100:.2f}" for v in values)
    text = IOSTAT.format(rs=rs, rkb=rkb, r=r, ws=ws, wkb=wkb, w=w, util=f"{util / 10:.1f}")
    assert bucket(f"The read await on nvme1n1 is {r} ms.", [text]) == "grounded", text
    assert bucket(f"The write await on nvme1n1 is {w} ms.", [text]) == "grounded", text
    assert bucket(f"The write await on nvme1n1 is {r} ms.", [text]) != "grounded", text
    assert bucket(f"The read await on nvme1n1 is {w} ms.", [text]) != "grounded", text


STATES = ["active", "idle", "idle in transaction", "idle in transaction (aborted)",
          "fastpath function call"]


def activity(rows: list[tuple[int, str]]) -> str:
    """``pg_stat_activity`` as psql prints it: a state of one or several words per backend."""
    lines = ["  pid  | usename | state                         | query",
             "-------+---------+-------------------------------+------"]
    lines += [f" {pid} | app     | {state:<29} | SELECT 1" for pid, state in rows]
    return "\n".join(lines) + f"\n({len(rows)} rows)"


@settings(max_examples=40, deadline=None)
@given(pids=st.lists(st.integers(1000, 99999), min_size=2, max_size=4, unique=True),
       order=st.permutations(range(len(STATES))), pick=st.integers(0, 3),
       other=st.integers(0, 2))
def test_a_backends_state_is_its_own_rows(pids: list[int], order: list[int], pick: int,
                                          other: int) -> None:
    rows = [(pid, STATES[order[at]]) for at, pid in enumerate(pids)]
    text = activity(rows)
    at = pick % len(rows)
    pid, own = rows[at]
    _, theirs = rows[(at + 1 + other % (len(rows) - 1)) % len(rows)]
    assert bucket(f"PID {pid} is {own}.", [text]) == "grounded", text
    if not own.startswith(theirs):  # "idle in transaction" is also idle
        assert bucket(f"PID {pid} is {theirs}.", [text]) != "grounded", text


RECORD_TYPES = ["A", "AAAA", "CNAME", "MX", "TXT"]
VALUES = {"A": "52.20.14.201", "AAAA": "2600:1f18::1", "CNAME": "lb.example.net.",
          "MX": "10 mail.example.com.", "TXT": '"v=spf1 -all"'}


@settings(max_examples=40, deadline=None)
@given(types=st.lists(st.sampled_from(RECORD_TYPES), min_size=2, max_size=4, unique=True),
       ttls=st.lists(st.integers(30, 86400), min_size=4, max_size=4, unique=True),
       pick=st.integers(0, 3), other=st.integers(0, 2))
def test_records_named_by_their_type_are_those_records(types: list[str], ttls: list[int],
                                                       pick: int, other: int) -> None:
    """"The A records have a TTL of 300 seconds": the records of that type (dig's answer
    section), not a CNAME's TTL."""
    answer = ";; ANSWER SECTION:\n" + "\n".join(
        f"api.example.com.\t{ttls[at]}\tIN\t{kind}\t{VALUES[kind]}" for at, kind in enumerate(types))
    at = pick % len(types)
    kind, own = types[at], ttls[at]
    theirs = ttls[(at + 1 + other % (len(types) - 1)) % len(types)]
    assert bucket(f"The {kind} record has a TTL of {own} seconds.", [answer]) == "grounded"
    assert bucket(f"The {kind} record has a TTL of {theirs} seconds.", [answer]) != "grounded"


@settings(max_examples=40, deadline=None)
@given(hour=st.integers(0, 23), minute=st.integers(0, 59), shift=st.integers(1, 22),
       ratio=st.integers(1, 9999))
def test_a_samples_time_is_read_as_a_time_and_its_value_as_the_value(
        hour: int, minute: int, shift: int, ratio: int) -> None:
    """Prometheus writes a sample as ``[unix time, "value"]``: the time is when the value was
    taken (a time the claim gives is checked against it), never a number the value is
    compared with."""
    at = 1718064000 + hour * 3600 + minute * 60  # 2024-06-11 00:00 UTC on
    text = vector([("10.0.4.17", f"0.{ratio:04d}"), ("10.0.4.18", "0.00001")], at)
    value = f"0.{ratio:04d}"
    said = f"Instance 10.0.4.17:8080 had an error ratio of {value} at {hour:02d}:{minute:02d} UTC."
    assert bucket(said, [text]) == "grounded", text
    wrong = f"{(hour + shift) % 24:02d}:{minute:02d}"
    assert bucket(f"Instance 10.0.4.17:8080 had an error ratio of {value} at {wrong} UTC.",
                  [text]) == "contradicted", text


@settings(max_examples=40, deadline=None)
@given(cpus=st.lists(st.integers(1, 99), min_size=2, max_size=5, unique=True),
       pick=st.integers(0, 4), other=st.integers(0, 3), host=st.integers(1, 9),
       alert=st.booleans())
def test_a_measure_and_its_time_are_of_one_sample(cpus: list[int], pick: int, other: int,
                                                  host: int, alert: bool) -> None:
    """"CPU on db-1 was 97% at 14:01": 97% is the 14:02 sample's, so the claim is contradicted
    by the 14:01 sample; an alert at that time without the measure decides nothing."""
    rows = [f"ts=2024-06-10T14:{10 + at:02d}:00Z host=db-{host} cpu_pct={cpu}"
            for at, cpu in enumerate(cpus)]
    items = [*rows, f"2024-06-10T14:{10 + len(cpus):02d}:00Z ALERT HighCPU fired for db-{host}"
             ][:len(rows) + alert]
    at = pick % len(cpus)
    later = (at + 1 + other % (len(cpus) - 1)) % len(cpus)
    said = f"CPU on db-{host} was {cpus[at]}% at 14:{10 + at:02d} UTC."
    assert bucket(said, items) == "grounded", items
    wrong = f"CPU on db-{host} was {cpus[later]}% at 14:{10 + at:02d} UTC."
    assert bucket(wrong, items) == "contradicted", items
    # reordered, with an unrelated host's sample added: the same verdicts
    shuffled = [f"ts=2024-06-10T14:{10 + at:02d}:00Z host=cache-{host} cpu_pct={cpus[later]}",
                *reversed(items)]
    assert bucket(said, shuffled) == "grounded", shuffled
    assert bucket(wrong, shuffled) == "contradicted", shuffled
    if alert:  # the alert's time holds no CPU: the measure is the sample's, the time the alert's
        after = f"CPU on db-{host} was {cpus[at]}% at 14:{10 + len(cpus):02d} UTC."
        assert bucket(after, items) != "contradicted", items


def test_a_range_vectors_value_is_its_own_samples() -> None:
    matrix = json.dumps({"status": "success", "data": {"resultType": "matrix", "result": [
        {"metric": {"instance": "10.0.4.17:8080", "job": "api"},
         "values": [[1718028000, "0.10"], [1718028060, "0.25"]]}]}})
    assert bucket("Instance 10.0.4.17:8080 had a value of 0.25 at 14:01 UTC.", [matrix]) \
        == "grounded"
    assert bucket("Instance 10.0.4.17:8080 had a value of 0.25 at 14:00 UTC.", [matrix]) \
        == "contradicted"


@settings(max_examples=40, deadline=None)
@given(levels=st.lists(st.sampled_from(["ERROR", "WARN", "INFO"]), min_size=3, max_size=6),
       seconds=st.lists(st.integers(0, 59), min_size=6, max_size=6, unique=True),
       level=st.sampled_from(["ERROR", "WARN", "INFO"]))
def test_lines_named_by_their_level_are_those_lines(levels: list[str], seconds: list[int],
                                                    level: str) -> None:
    """"The ERROR lines were at 14:02:01 and 14:02:05": a time of a line at another level is
    none of theirs."""
    lines = [f"2024-06-10T14:02:{seconds[at]:02d}Z {lv} api-2 upstream timeout"
             for at, lv in enumerate(levels)]
    own = [seconds[at] for at, lv in enumerate(levels) if lv == level]
    other = [seconds[at] for at, lv in enumerate(levels) if lv != level]
    if not own or not other:
        return
    said = f"The {level} lines show an upstream timeout at 14:02:"
    for items in (lines, [*reversed(lines), "2024-06-10T14:03:00Z INFO batch-7 job done"]):
        assert bucket(f"{said}{own[0]:02d}.", items) == "grounded", items
        assert bucket(f"{said}{other[0]:02d}.", items) != "grounded", items


@settings(max_examples=40, deadline=None)
@given(waits=st.lists(st.integers(1, 99999), min_size=2, max_size=2, unique=True),
       key=st.sampled_from(["await", "r_await", "w_await", "svctm"]))
def test_an_iostat_wait_is_in_milliseconds(waits: list[int], key: str) -> None:
    """iostat's ``await`` columns are milliseconds: "the await on nvme0n1 is 18.4 ms" is its
    row's; the other device's figure is contradicted, and the figure in seconds is not it."""
    own, other = (f"{w / 100:.2f}" for w in waits)
    text = (f"Device            r/s     w/s   {key:>8}  %util\n"
            f"nvme0n1         120.00  850.00  {own:>8}  97.20\n"
            f"nvme1n1           2.00    5.00  {other:>8}   1.10")
    said = {"await": "await", "r_await": "read await", "w_await": "write await",
            "svctm": "svctm"}[key]
    assert bucket(f"The {said} on nvme0n1 is {own} ms.", [text]) == "grounded", text
    assert bucket(f"The {said} on nvme0n1 is {other} ms.", [text]) == "contradicted", text
    assert bucket(f"The {said} on nvme0n1 is {own} seconds.", [text]) != "grounded", text
