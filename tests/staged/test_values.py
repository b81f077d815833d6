"""Values and units of a record: a value is of the measure, the key and the record a claim names.

Its sections cover the measure a value is of (p95 against p99, read against write, average
against maximum) and the record the claim names (an address, an id, a state); plain words held
as values (``namespace=prod``); shares written in words ("more than half"); a part and a whole
as one pair (``READY 1/3``); stated ranges; short commit hashes and states under one key;
two-pole states (allowed or denied, enabled or disabled, in sync or not); what a series or a
statistic measures; and words written joined and protocol status lines.

Its tables: ``OWN_VALUES`` (claims of a JSON record's own values, a nested array's and a
range vector's samples), ``BESIDE`` (the word beside a key), the texts stating no range, and
the shares and periods written in words.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.anchor.derived import stated_ranges
from gsar_otel.core.anchors import AnchorKind, extract_anchors
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge
from gsar_otel.judges.staged.word_values import _beside, _holds
from tests.core.guarded import guarded

# ================================================================================================
# A value is of the measure the claim names: a "p95 latency" is never grounded by a
# ``p99_latency_ms`` holding the same number, nor a read latency by a write latency, nor an
# average by a maximum, whichever of a family the claim and the evidence name.
# ================================================================================================

judge = StagedJudge()
FAMILIES = {
    "percentile": (("p50", "p50"), ("p90", "p90"), ("p95", "p95"), ("p99", "p99"),
                   ("median", "p50")),
    "aggregate": (("average", "avg"), ("mean", "avg"), ("peak", "max"), ("maximum", "max"),
                  ("minimum", "min")),
    "direction": (("read", "read"), ("write", "write")),
    "traffic": (("received", "rx"), ("sent", "tx")),
}


def bucket(answer: str, items: list[str]) -> str:
    verdicts = judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))
    assert len(verdicts) == 1, verdicts
    return verdicts[0].bucket


@settings(max_examples=80)
@given(family=st.sampled_from(sorted(FAMILIES)), data=st.data(), value=st.integers(100, 9000),
       host=st.integers(1, 99))
def test_a_value_of_another_measure_is_never_grounded(family: str, data: st.DataObject,
                                                      value: int, host: int) -> None:
    said, held = data.draw(st.permutations(FAMILIES[family]).map(lambda p: p[:2]))
    claim = f"The {said[0]} latency on db-{host} was {value} ms."
    item = f"host=db-{host} {held[1]}_latency_ms={value}"
    expected = "grounded" if said[1] == held[1] else "ungrounded"
    assert bucket(claim, [item]) == expected, (claim, item)
    # beside the named measure at another value, the claim is contradicted by it
    both = f"host=db-{host} {held[1]}_latency_ms={value} {said[1]}_latency_ms={value + 7}"
    if said[1] != held[1]:
        assert bucket(claim, [both]) == "contradicted", (claim, both)


# ================================================================================================
# A measure belongs to the record the claim names and to the measure it names:
#
# - an address or id the claim gives ("instance 10.0.4.18:8080") names its record, so a value
#   another record holds (the other instance's error ratio, as a Prometheus vector lists them)
#   is never grounded, while the record's own value is, wherever its JSON array puts it;
# - a one-letter ``r``/``w`` part of a key is read/write (iostat's ``r_await``, ``w_await``):
#   "the write await" is never grounded by the read column's value.
#
# Swapping the value for another record's or another measure's is never grounded; restating it
# is.
# ================================================================================================

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


NESTED = json.dumps({"host": "10.0.0.5", "metrics": {"cpu_pct": 97},
                     "events": [{"t": "14:02:01", "msg": "restart"}]})
MATRIX = json.dumps({"status": "success", "data": {"resultType": "matrix", "result": [
    {"metric": {"instance": "10.0.4.17:8080", "job": "api"},
     "values": [[1718028000, "0.10"], [1718028060, "0.25"]]}]}})
# (claim, the JSON record, expected): a bucket, or "not <bucket>" for any other verdict
OWN_VALUES = [
    # a value of a record's nested array is still its own
    pytest.param("10.0.0.5 had CPU at 97%, restarting at 14:02:01.", NESTED, "grounded",
                 id="nested-array-its-time"),
    pytest.param("10.0.0.5 had CPU at 97%, restarting at 14:05:01.", NESTED, "not grounded",
                 id="nested-array-another-time"),
    # a range vector's value is its own sample's, at that sample's time
    pytest.param("Instance 10.0.4.17:8080 had a value of 0.25 at 14:01 UTC.", MATRIX,
                 "grounded", id="range-vector-its-sample"),
    pytest.param("Instance 10.0.4.17:8080 had a value of 0.25 at 14:00 UTC.", MATRIX,
                 "contradicted", id="range-vector-another-sample"),
]


@pytest.mark.parametrize(("claim", "record", "expected"), OWN_VALUES)
def test_a_value_of_a_json_record_is_its_own(claim: str, record: str, expected: str) -> None:
    got = bucket(claim, [record])
    if expected.startswith("not "):
        assert got != expected.removeprefix("not "), claim
    else:
        assert got == expected, claim


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


# ================================================================================================
# A plain word a record holds under a key (``namespace=prod``, ``strategy=bluegreen``) is a
# value like a number: another word given for that key of that subject is contradicted, in every
# record shape and phrasing; the value itself, written alike, shortened or as initials, is
# grounded.
# ================================================================================================

# key, the value a record holds, another value, the phrasings that give the key a value
FIELDS = [
    ("namespace", "prod", "staging",
     ("{s} runs in namespace {v}.", "{s} runs in the {v} namespace.")),
    ("environment", "production", "sandbox",
     ("{s} is deployed to the {v} environment.", "The environment of {s} is {v}.")),
    ("strategy", "bluegreen", "canary", ("The {s} rollout used a {v} strategy.",
                                         "{s} was rolled out with strategy {v}.")),
    ("engine", "postgres", "mysql", ("{s} uses a {v} database engine.", "{s} runs engine {v}.")),
    ("protocol", "grpc", "thrift", ("{s} speaks the {v} protocol.", "{s} uses protocol {v}.")),
    ("cloud", "aws", "azure", ("{s} runs on {v} cloud.", "{s} runs in the {v} cloud.")),
    ("tier", "gold", "bronze", ("{s} is in the {v} tier.", "{s} has tier {v}.")),
    ("runtime", "python", "golang",
     ("{s} is built on runtime {v}.", "{s} runs on the {v} runtime.")),
]
SHAPES = {
    "logfmt": "service={s} {k}={v} replicas=3",
    "colon": "service: {s}, {k}: {v}, replicas: 3",
    "json": '{{"service": "{s}", "{k}": "{v}", "replicas": 3}}',
    "wrapped": '[{{"text": "service={s} {k}={v} replicas=3"}}]',
}
OTHER = ["host=db-9 cpu_pct=12.5 status=ok", "2024-05-01T10:02:11Z INFO cache-1 flushed 42 keys",
         "service=search-api owner=team-search replicas=2"]


@settings(max_examples=120)
@given(field=st.sampled_from(FIELDS), shape=st.sampled_from(sorted(SHAPES)),
       phrasing=st.integers(0, 1), swapped=st.booleans(),
       service=st.sampled_from(["checkout-api", "payments-api", "orders-svc"]),
       others=st.lists(st.sampled_from(OTHER), unique=True, max_size=3))
@example(field=FIELDS[0], shape="logfmt", phrasing=0, swapped=True, service="checkout-api",
         others=[])
@example(field=FIELDS[7], shape="json", phrasing=1, swapped=False, service="orders-svc",
         others=OTHER)
def test_another_word_for_a_records_key_is_contradicted(
        field: tuple[str, str, str, tuple[str, str]], shape: str, phrasing: int, swapped: bool,
        service: str, others: list[str]) -> None:
    key, held, other, forms = field
    record = SHAPES[shape].format(s=service, k=key, v=held)
    claim = forms[phrasing].format(s=service, v=other if swapped else held)
    expected = "contradicted" if swapped else "grounded"
    # unrelated records, before or after it, change nothing
    assert bucket(claim, [record, *others]) == expected, (claim, record)
    assert bucket(claim, [*others, record]) == expected, (claim, record)


@settings(max_examples=40)
@given(field=st.sampled_from(FIELDS), phrasing=st.integers(0, 1))
def test_the_value_of_the_key_on_another_record_is_another_value(
        field: tuple[str, str, str, tuple[str, str]], phrasing: int) -> None:
    # the claim's word is in the evidence, but as the same key's value of another service
    key, held, other, forms = field
    items = [f"service=checkout-api {key}={held} replicas=3",
             f"service=search-api {key}={other} replicas=2"]
    claim = forms[phrasing].format(s="checkout-api", v=other)
    assert bucket(claim, items) == "contradicted", claim


@given(written=st.sampled_from([
    ("production", "the prod environment"), ("prod", "the production namespace"),
    ("bluegreen", "a blue-green strategy"), ("blue/green", "a bluegreen strategy"),
    ("postgresql", "the postgres engine"), ("gcp", "on google cloud platform"),
    ("EU-West-1", "in region eu-west-1"), ("canary", "canary")]))
def test_a_value_written_otherwise_is_the_value(written: tuple[str, str]) -> None:
    value, phrase = written
    assert _holds(value, _tokens(phrase))


def _tokens(text: str) -> list[str]:
    return text.split()


# (text, the words _beside finds for the key "namespace")
BESIDE = [
    # the word beside a key is before it, or after it or after a copula
    ("runs in the staging namespace", ["staging"]),
    ("runs in namespace staging", ["staging"]),
    ("the namespace was staging", ["staging"]),
    # a stopword or a copula ends the words before it; none after it is a value
    ("was namespace of the pod", []),
    ("a mysql database namespace", ["mysql", "database"]),
]


@pytest.mark.parametrize(("text", "words"), BESIDE)
def test_the_word_beside_a_key_is_before_it_or_after_a_copula(text: str,
                                                              words: list[str]) -> None:
    assert _beside(_tokens(text), frozenset({"namespac"})) == words


@settings(max_examples=30)
@given(word=st.sampled_from(["new", "busy", "shared"]), key=st.sampled_from(["namespace", "tier"]))
def test_a_word_the_evidence_states_elsewhere_is_left_to_the_other_checks(word: str,
                                                                         key: str) -> None:
    # "the busy namespace" beside a line saying the namespace is busy: a paraphrase, not a value
    items = [f"service=checkout-api {key}=prod replicas=3",
             f"2024-05-01T10:02:11Z INFO checkout-api {key} is {word} today"]
    assert bucket(f"checkout-api runs in the {word} {key}.", items) != "contradicted"


@settings(max_examples=40)
@given(scope=st.sampled_from(["namespace", "environment", "cluster"]),
       said=st.sampled_from(["staging", "sandbox", "prod", "production"]),
       held=st.sampled_from(["prod", "production", "eu-prod"]))
def test_a_scope_named_nowhere_is_no_scope_of_the_evidence(scope: str, said: str,
                                                           held: str) -> None:
    # "in the staging namespace" beside a tool run against another: a name found nowhere
    items = ["\n".join([f"$ kubectl top pods -n {held}",
                         "NAME                  CPU(cores)   MEMORY(bytes)",
                         "orders-1332a1-a6s     235m         512Mi"])]
    claim = f"Pod orders-1332a1-a6s in the {said} {scope} is using 512Mi of memory."
    written = said.startswith("prod") and "prod" in held
    assert (bucket(claim, items) == "grounded") == written, (claim, held)


INCIDENT = ('{{"incidents": [{{"incident_number": {n}, "status": "{status}", '
            '"urgency": "{urgency}", "service": {{"summary": "search-prod"}}}}]}}')


@settings(max_examples=60)
@given(n=st.integers(1000, 99999), urgency=st.sampled_from(["low", "high"]),
       said=st.sampled_from(["low", "high"]),
       status=st.sampled_from(["resolved", "acknowledged", "triggered"]),
       form=st.sampled_from(["Incident {n} is {u} urgency.", "Incident {n} has {u} urgency."]))
def test_a_numbered_record_is_the_claims_subject(n: int, urgency: str, said: str, status: str,
                                                 form: str) -> None:
    item = INCIDENT.format(n=n, status=status, urgency=urgency)
    claim = form.format(n=n, u=said)
    verdicts = judge.explain(synthesis=claim, evidence=EvidenceSet.coerce([item]))
    expected = "grounded" if said == urgency else "contradicted"
    assert [v.bucket for v in verdicts] == [expected], (claim, item)


@settings(max_examples=40)
@given(key=st.sampled_from(["active", "enabled", "resolved"]),
       value=st.sampled_from(["failed", "inactive", "degraded", "pending"]),
       unit=st.sampled_from(["haproxy", "nginx", "pgbouncer"]))
def test_a_value_stating_its_own_state_is_the_state_whatever_its_key_names(
        key: str, value: str, unit: str) -> None:
    item = f"unit={unit} {key}={value} host=db-03"
    verdicts = judge.explain(synthesis=f"The {unit} unit is {key}.",
                             evidence=EvidenceSet.coerce([item]))
    assert [v.bucket for v in verdicts] != ["grounded"], item
    # a truth or a time under the key still states what the key names
    for held in ("true", "14:02"):
        item = f"unit={unit} {key}={held} host=db-03"
        verdicts = judge.explain(synthesis=f"The {unit} unit is {key}.",
                                 evidence=EvidenceSet.coerce([item]))
        assert [v.bucket for v in verdicts] == ["grounded"], item


# ================================================================================================
# A share written in words is a value: "more than half" against 40% is contradicted, as "more
# than 50%" is; "less than half" is grounded. Periods ("the second half", "the first quarter of
# 2024", "a quarter of an hour") are no shares.
# ================================================================================================

SHARES = {"half": 50.0, "a third": 100 / 3, "two thirds": 200 / 3, "a quarter": 25.0,
          "three quarters": 75.0, "a fifth": 20.0}
ABOVE = ("more than", "over", "at least")
BELOW = ("less than", "under", "at most")
RECORDS = (
    ("title: Crystal Head Vodka\nType: Vodka\nAlcohol by volume: {v}%\nProof (US): 80",
     "Crystal Head Vodka is {q} {s} alcohol by volume."),
    ("host=db-prod-1 cpu_pct={v} mem_pct=12.0", "CPU on db-prod-1 was {q} {s}."),
    ("host=api-prod-3 error_pct={v} p99_latency_ms=880",
     "The error rate on api-prod-3 was {q} {s}."),
)


def buckets(answer: str, items: list[str]) -> list[str]:
    return [v.bucket for v in judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))]


@settings(max_examples=80)
@given(value=st.integers(1, 99), share=st.sampled_from(sorted(SHARES)),
       qualifier=st.sampled_from(ABOVE + BELOW), record=st.sampled_from(range(len(RECORDS))))
@example(value=40, share="half", qualifier="more than", record=0)
@example(value=40, share="half", qualifier="less than", record=0)
@example(value=72, share="half", qualifier="under", record=1)
def test_a_share_in_words_is_grounded_exactly_when_the_value_is_on_its_side(
        value: int, share: str, qualifier: str, record: int) -> None:
    bound = SHARES[share]
    assume(abs(value - bound) >= 2)  # within the whole-percent rounding of the bound: either way
    evidence, answer = RECORDS[record]
    claim = answer.format(q=qualifier, s=share)
    holds = value > bound if qualifier in ABOVE else value < bound
    got = buckets(claim, [evidence.format(v=value)])
    assert got == (["grounded"] if holds else ["contradicted"]), (claim, value, got)


@pytest.mark.parametrize("text", [
    "the second half of the game", "in the first quarter of 2024", "a quarter of an hour",
    "half an hour later", "half of 2023", "the other half of the team", "for a third time",
    "at half-time", "the last quarter", "on its third of five attempts",
    "the quarter of the year"])
def test_a_period_or_an_ordinal_is_no_share(text: str) -> None:
    assert not [a for a in extract_anchors(text) if a.kind is AnchorKind.PERCENT], text


@pytest.mark.parametrize(("text", "value", "qualifier"), [
    ("more than half of the pods", 50.0, "over"), ("nearly two thirds of requests", 66.7,
                                                     "nearly"),
    ("about a quarter of the nodes", 25.0, "about"), ("three quarters of users", 75.0, None),
    ("at most a fifth of the disks", 20.0, "at_most")])
def test_a_share_is_read_with_its_qualifier(text: str, value: float,
                                            qualifier: str | None) -> None:
    shares = [a for a in extract_anchors(text) if a.kind is AnchorKind.PERCENT]
    assert [(a.value, a.qualifier) for a in shares] == [(value, qualifier)], text


# ================================================================================================
# A part and a whole written as one value (``READY 1/3``) is compared as the pair: "3/3 ready"
# or "3 of 3 ready" beside ``1/3`` is contradicted, however the row's other numbers read, and the
# same pair is grounded.
# ================================================================================================

NAMES = ["search", "cart", "orders", "payments", "notifications"]
HEAD = "NAME            READY   UP-TO-DATE   AVAILABLE   AGE"
PAIR_OTHER = ["host=db-9 cpu_pct=12.5 status=ok",
              "2024-05-01T09:00:00Z INFO cache-1 flushed 42 keys"]


deployments = st.lists(st.tuples(st.integers(0, 8), st.integers(1, 8)), min_size=2,
                       max_size=len(NAMES))


@settings(max_examples=80)
@given(rows=deployments, pick=st.integers(0, 4), said=st.tuples(st.integers(0, 8),
                                                                st.integers(1, 8)),
       form=st.sampled_from(["The {n} deployment has {a}/{b} replicas ready.",
                             "{a} of {b} replicas of the {n} deployment are ready."]),
       others=st.lists(st.sampled_from(PAIR_OTHER), unique=True, max_size=2))
@example(rows=[(0, 2), (1, 3)], pick=1, said=(3, 3),
         form="The {n} deployment has {a}/{b} replicas ready.", others=[])
def test_a_part_of_a_whole_is_read_as_the_pair(rows: list[tuple[int, int]], pick: int,
                                              said: tuple[int, int], form: str,
                                              others: list[str]) -> None:
    rows = [(min(a, b), b) for a, b in rows]
    table = "\n".join([HEAD, *(f"{NAMES[i]:<16}{a}/{b:<6}{b:<13}{a:<12}{i + 3}d"
                               for i, (a, b) in enumerate(rows))])
    chosen = pick % len(rows)
    claim = form.format(n=NAMES[chosen], a=said[0], b=said[1])
    expected = ["grounded"] if said == rows[chosen] else ["contradicted"]
    assert buckets(claim, [table, *others]) == expected, (claim, table)
    assert buckets(claim, [*others, table]) == expected, (claim, table)


# ================================================================================================
# A range the claim states holds a value within it and is contradicted by one outside, in the
# judge and in the product (the guard accepts both ends when a cited value lies within).
# ================================================================================================

PERCENT = ("between {a} and {b}%", "between {a}% and {b}%", "{a}-{b}%", "in the {a}-{b}% range",
           "between {a} and {b} percent")
SECONDS = ("between {a} and {b} seconds", "between {a} s and {b} s")


@settings(max_examples=80)
@given(low=st.integers(1, 80), width=st.integers(2, 19), value=st.integers(0, 100),
       form=st.sampled_from(PERCENT), host=st.integers(1, 99))
def test_a_percentage_range_holds_a_value_within_and_no_other(low: int, width: int, value: int,
                                                              form: str, host: int) -> None:
    high = low + width
    claim = f"CPU on api-{host} was {form.format(a=low, b=high)}."
    item = f"host=api-{host} cpu_pct={value}"
    within = low <= value <= high
    assert bucket(claim, [item]) == ("grounded" if within else "contradicted"), (claim, item)
    if within:  # and the guard keeps what the judge grounds
        assert guarded(claim, [item]), (claim, item)


@settings(max_examples=40)
@given(low=st.integers(1, 5), width=st.integers(1, 4), millis=st.integers(100, 9900),
       form=st.sampled_from(SECONDS))
def test_a_range_of_seconds_is_read_against_milliseconds(low: int, width: int, millis: int,
                                                          form: str) -> None:
    high = low + width
    claim = f"The p99 latency on api-1 was {form.format(a=low, b=high)}."
    item = f"host=api-1 p99_latency_ms={millis}"
    within = low * 1000 <= millis <= high * 1000
    assert bucket(claim, [item]) == ("grounded" if within else "contradicted"), (claim, item)
    if within:
        assert guarded(claim, [item])


@pytest.mark.parametrize("text", [
    # a change from one value to another is no range: stated_ranges reads none in these texts
    "CPU rose from 80 to 90%.", "p99 was 1-2 seconds.", "CPU was 80, then 90%.",
])
def test_a_change_from_one_value_to_another_is_no_range(text: str) -> None:
    assert stated_ranges(text, extract_anchors(text)) == {}, text


@settings(max_examples=60)
@given(before=st.integers(1, 30), after=st.integers(1, 30), swap=st.booleans(),
       shape=st.sampled_from([
           ("2024-05-01T10:00:00Z INFO deploy-bot: checkout-api upgraded from v1.{a}.0 to "
            "v1.{b}.0", "checkout-api was upgraded from v1.{x}.0 to v1.{y}.0."),
           ("3m Normal ScalingReplicaSet deployment/web Scaled replica set web-7f9 from {a} to "
            "{b}", "The web deployment was scaled from {x} to {y} replicas.")]))
def test_a_change_from_one_value_to_another_is_read_in_its_order(
        before: int, after: int, swap: bool, shape: tuple[str, str]) -> None:
    if before == after:
        return
    item, said = shape
    x, y = (after, before) if swap else (before, after)
    claim = said.format(x=x, y=y)
    evidence = item.format(a=before, b=after)
    assert bucket(claim, [evidence]) == ("contradicted" if swap else "grounded"), (claim, evidence)


# ================================================================================================
# A commit written short (``90c192c``) is the long hash it begins; a state a claim gives a
# record is contradicted only by a word another record holds under the same key, never by a
# state of another key of the same record (``health.status`` beside ``sync.status``).
# ================================================================================================

@settings(max_examples=60)
@given(sha=st.text("0123456789abcdef", min_size=40, max_size=40).filter(
    lambda s: any(c.isdigit() for c in s[:7]) and any(c.isalpha() for c in s[:7])),
       length=st.integers(7, 12), changed=st.booleans())
def test_a_short_hash_is_the_hash_it_begins(sha: str, length: int, changed: bool) -> None:
    item = json.dumps({"metadata": {"name": "payments-prod"},
                       "status": {"sync": {"status": "Synced", "revision": sha}}})
    said = sha[:length]
    if changed:
        said = said[:-1] + ("0" if said[-1] != "0" else "1")
    claim = f"payments-prod is synced to revision {said}."
    assert (buckets(claim, [item]) == ["grounded"]) == (not changed), (claim, item)


HEALTH = ["Healthy", "Degraded", "Progressing"]
SYNC = ["Synced", "OutOfSync"]


@settings(max_examples=60)
@given(health=st.sampled_from(HEALTH), sync=st.sampled_from(SYNC),
       phase=st.sampled_from(["Failed", "Succeeded", "Running"]))
def test_a_state_is_read_under_its_own_key(health: str, sync: str, phase: str) -> None:
    item = json.dumps({"metadata": {"name": "search-prod"},
                       "status": {"health": {"status": health}, "sync": {"status": sync},
                                  "operationState": {"phase": phase}}})
    claim = f"search-prod health is {health}."
    assert buckets(claim, [item]) != ["contradicted"], (claim, item)


# ================================================================================================
# States tool records hold as one of two poles, permission (allowed or denied), enablement
# (enabled or disabled) and sync (in sync or out of sync): the other pole is contradicted, in every
# record shape; a story's "was denied parole" is read as no record's permission.
# ================================================================================================

AXES = {
    "permission": (("allowed", "denied"), "result", "The request by frank to scale {s} was {p}."),
    "enablement": (("enabled", "disabled"), "state", "flag-7 is {p} for {s}."),
    "sync": (("Synced", "OutOfSync"), "sync_status", "{s} is {p}."),
}
SAID = {"Synced": "in sync", "OutOfSync": "out of sync"}
AXIS_SHAPES = ["ts=2024-06-10T14:01:09Z service={s} flag=flag-7 {k}={v} user=frank",
          '{{"service": "{s}", "flag": "flag-7", "{k}": "{v}", "user": "frank"}}']


@settings(max_examples=80)
@given(axis=st.sampled_from(sorted(AXES)), held=st.integers(0, 1), said=st.integers(0, 1),
       shape=st.sampled_from(AXIS_SHAPES), service=st.sampled_from(["cart-api", "orders-api"]))
def test_the_other_pole_is_contradicted(axis: str, held: int, said: int, shape: str,
                                        service: str) -> None:
    poles, key, phrase = AXES[axis]
    item = shape.format(s=service, k=key, v=poles[held])
    claim = phrase.format(s=service, p=SAID.get(poles[said], poles[said]))
    expected = "grounded" if held == said else "contradicted"
    assert bucket(claim, [item]) == expected, (claim, item)


@given(verb=st.sampled_from(["denied", "refused"]), other=st.sampled_from(["granted", "allowed"]))
def test_a_storys_permission_is_no_records(verb: str, other: str) -> None:
    story = [f"The court {other} John Smith parole on Tuesday after a short hearing."]
    assert bucket(f"John Smith was {verb} parole on Tuesday.", story) != "contradicted"


# ================================================================================================
# A value is read as what its record says it measures:
#
# - a Prometheus series' sample is of the metric its ``__name__`` label names, so a ratio
#   (``http_requests_error_ratio`` 0.2314) is a share a claim may state as 23.14%, and a
#   ``..._seconds`` series a duration a claim may state in milliseconds; another series' value
#   is never the named instance's;
# - statistics written as slash-joined keys (ping's ``rtt min/avg/max/mdev = ...``) are named
#   in words ("the average round-trip time", "the maximum", "the mean"), and one statistic's
#   value is never another's.
#
# Restating the value in another unit is grounded; swapping it for another record's or another
# statistic's is not.
# ================================================================================================

RATIOS = [("http_requests_error_ratio", "error ratio"), ("cache_hit_ratio", "cache hit ratio"),
          ("disk_used_fraction", "disk used fraction")]


def series(metric: str, samples: list[tuple[str, str]], ranged: bool) -> str:
    """A Prometheus query response: one series per (instance, value), as an instant vector or
    as a range (a matrix whose one sample carries the value)."""
    at = 1718028180.123
    return json.dumps({"status": "success", "data": {
        "resultType": "matrix" if ranged else "vector", "result": [
            {"metric": {"__name__": metric, "instance": f"{ip}:9100"},
             **({"values": [[at, value]]} if ranged else {"value": [at, value]})}
            for ip, value in samples]}})


@settings(max_examples=40, deadline=None)
@given(hosts=st.lists(st.integers(2, 250), min_size=2, max_size=4, unique=True),
       shares=st.lists(st.integers(1, 9999), min_size=4, max_size=4, unique=True),
       metric=st.sampled_from(RATIOS), pick=st.integers(0, 3), other=st.integers(1, 3),
       ranged=st.booleans())
def test_a_ratio_series_is_a_share_of_its_own_instance(
        hosts: list[int], shares: list[int], metric: tuple[str, str], pick: int, other: int,
        ranged: bool) -> None:
    samples = [(f"10.0.4.{h}", f"0.{shares[at]:04d}") for at, h in enumerate(hosts)]
    text = series(metric[0], samples, ranged)
    at = pick % len(samples)
    ip, own = samples[at]
    _, theirs = samples[(at + 1 + other % (len(samples) - 1)) % len(samples)]

    def percent(value: str) -> str:
        return f"{float(value) * 100:.2f}%"

    words = metric[1]
    assert bucket(f"Instance {ip}:9100 has a {percent(own)} {words}.", [text]) == "grounded"
    assert bucket(f"Instance {ip}:9100 has a {words} of {own}.", [text]) == "grounded"
    assert bucket(f"Instance {ip}:9100 has a {percent(theirs)} {words}.", [text]) != "grounded"


@settings(max_examples=40, deadline=None)
@given(hosts=st.lists(st.integers(2, 250), min_size=2, max_size=3, unique=True),
       millis=st.lists(st.integers(1, 9999), min_size=3, max_size=3, unique=True),
       pick=st.integers(0, 2))
def test_a_seconds_series_is_a_duration(hosts: list[int], millis: list[int],
                                        pick: int) -> None:
    samples = [(f"10.0.4.{h}", f"{millis[at] / 1000:.3f}") for at, h in enumerate(hosts)]
    text = series("http_request_duration_seconds", samples, ranged=False)
    at = pick % len(samples)
    ip, _ = samples[at]
    theirs = millis[(at + 1) % len(samples)]
    assert bucket(f"The request duration of {ip}:9100 was {millis[at]} ms.", [text]) \
        == "grounded"
    assert bucket(f"The request duration of {ip}:9100 was {theirs} ms.", [text]) != "grounded"


STATISTICS = {"min": ("minimum", "lowest"), "avg": ("average", "mean"),
              "max": ("maximum", "highest")}
"""A statistic's key as tools print it, and words a claim names it by."""


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.integers(1, 99999), min_size=4, max_size=4, unique=True),
       stat=st.sampled_from(sorted(STATISTICS)), word=st.integers(0, 1),
       other=st.integers(1, 3), unit=st.sampled_from(["ms", "s"]))
def test_a_statistic_named_in_words_is_its_own_column(
        values: list[int], stat: str, word: int, other: int, unit: str) -> None:
    numbers = [f"{v / 1000:.3f}" for v in values]
    text = ("--- db-primary.internal ping statistics ---\n"
            "20 packets transmitted, 20 received, 0% packet loss, time 19027ms\n"
            f"rtt min/avg/max/mdev = {'/'.join(numbers)} {unit}")
    keys = ["min", "avg", "max", "mdev"]
    own = numbers[keys.index(stat)]
    theirs = numbers[(keys.index(stat) + other) % len(keys)]
    said = STATISTICS[stat][word]
    assert bucket(f"The {said} round-trip time was {own} {unit}.", [text]) == "grounded", text
    assert bucket(f"The {said} round-trip time was {theirs} {unit}.", [text]) != "grounded", \
        text


@settings(max_examples=40, deadline=None)
@given(hosts=st.lists(st.sampled_from(["db-primary.internal", "10.0.3.17", "cache-2",
                                       "api.example.com"]), min_size=2, max_size=2, unique=True),
       losses=st.lists(st.integers(0, 100), min_size=2, max_size=2, unique=True))
def test_pings_summary_is_of_the_host_its_head_names(hosts: list[str],
                                                       losses: list[int]) -> None:
    """``--- db-1 ping statistics ---`` heads the counts of db-1: "packet loss to db-1 was 0%"
    reads them; another host's figure is not db-1's."""
    blocks = [f"--- {host} ping statistics ---\n"
              f"20 packets transmitted, {20 - loss // 5} received, {loss}% packet loss, "
              f"time 19027ms\nrtt min/avg/max/mdev = 0.412/0.538/1.907/0.322 ms"
              for host, loss in zip(hosts, losses, strict=True)]
    own, other = hosts
    assert bucket(f"Packet loss to {own} was {losses[0]}%.", blocks) == "grounded", blocks
    assert bucket(f"Packet loss to {own} was {losses[1]}%.", blocks) != "grounded", blocks
    assert bucket(f"Packet loss to {other} was {losses[1]}%.", blocks) == "grounded", blocks


# ================================================================================================
# Words written joined and lines of well-known protocols:
#
# - a hyphenated word of a claim is held by a record holding all its parts, written apart or
#   joined in a CamelCase value ("crash-looping" by ``CrashLoopBackOff``, "round-trip" by
#   "round trip"), never by a record holding only some of them;
# - an HTTP response's status line (``HTTP/2 503``, ``HTTP/1.1 404 Not Found``) is the
#   response's protocol, status and reason: "returned HTTP 503" is grounded, another status is
#   contradicted.
# ================================================================================================

SAFE = "bcdfghjklmnpqrstvwxz2456789"


JOINED = [("crash-looping", "CrashLoopBackOff", "ImagePullBackOff"),
          ("out-of-memory", "OutOfMemory", "OutOfDisk"),
          ("image-pull", "ImagePullBackOff", "CrashLoopBackOff")]


@settings(max_examples=40, deadline=None)
@given(case=st.sampled_from(JOINED), suffix=st.text(SAFE, min_size=5, max_size=5),
       restarts=st.integers(0, 40))
def test_a_hyphenated_word_is_held_by_all_its_parts(case: tuple[str, str, str], suffix: str,
                                                     restarts: int) -> None:
    said, held, other = case
    pod = f"payments-worker-{suffix}"
    listing = ("NAME                          READY   STATUS             RESTARTS   AGE\n"
               f"{pod}        0/1     {held:<18} {restarts:<10} 41m")
    assert bucket(f"{pod} is {said}.", [listing]) == "grounded", listing
    elsewhere = listing.replace(held, other)
    assert bucket(f"{pod} is {said}.", [elsewhere]) != "grounded", elsewhere


STATUSES = [(200, "OK"), (301, "Moved Permanently"), (404, "Not Found"), (429, ""),
            (502, "Bad Gateway"), (503, "")]


@settings(max_examples=40, deadline=None)
@given(status=st.sampled_from(STATUSES), other=st.integers(1, 5),
       protocol=st.sampled_from(["HTTP/2", "HTTP/1.1", "HTTP/1.0"]))
def test_a_status_line_is_the_responses_status(status: tuple[int, str], other: int,
                                               protocol: str) -> None:
    code, reason = status
    wrong = STATUSES[(STATUSES.index(status) + other) % len(STATUSES)][0]
    response = (f"{protocol} {code}{' ' + reason if reason else ''}\n"
                "server: envoy\ncontent-type: text/plain\nretry-after: 30")
    assert bucket(f"The endpoint returned HTTP {code}.", [response]) == "grounded", response
    assert bucket(f"The endpoint returned HTTP {wrong}.", [response]) == "contradicted", response
