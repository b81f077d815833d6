"""Names: a name a claim gives must be a name of the evidence, and a name a token carries names
its record.

Its sections cover plain words written as names (a service before "service"), made-up names of
tool subjects that no evidence holds, names a token carries (a pod named for its workload), and
nouns for the kind of record ("the INFO line") that are no words the record must hold.

Its table ``COMPOUNDS`` holds English compounds, none of them a name.
"""

from __future__ import annotations

import string

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from benchmarks.worlds.incident_world import PEOPLE as WORLD_PEOPLE
from benchmarks.worlds.incident_world import SERVICES as WORLD_SERVICES
from benchmarks.worlds.incident_world import TEAMS
from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import TOOL_BACKED_TYPES, Decision
from gsar_otel.core.scoring import decide
from gsar_otel.judges.staged import StagedJudge
from gsar_otel.judges.staged.claims import slots_of

# ================================================================================================
# A plain word written as a name (a service before "service", a table before "table", who acted
# before a verb of acting or after "by") must be a name of the evidence: another one, found
# nowhere, is never grounded; the evidence's own is, and a describing word is no name.
# ================================================================================================

judge = StagedJudge()
SERVICES = ["checkout", "search", "payments", "billing", "catalog"]
PEOPLE = ["alice", "bob", "carol", "dave", "erin"]
OTHER = ["host=db-9 cpu_pct=12.5 status=ok", "2024-05-01T09:00:00Z INFO cache-1 flushed 42 keys"]


def buckets(answer: str, items: list[str]) -> list[str]:
    return [v.bucket for v in judge.explain(synthesis=answer,
                                            evidence=EvidenceSet.coerce(items))]


@settings(max_examples=80)
@given(held=st.lists(st.sampled_from(SERVICES), min_size=1, max_size=3, unique=True),
       said=st.sampled_from(SERVICES), noun=st.sampled_from(["service", "table", "queue"]),
       others=st.lists(st.sampled_from(OTHER), unique=True, max_size=2))
@example(held=["search"], said="checkout", noun="service", others=[])
def test_a_plain_name_before_its_noun_is_a_name_of_the_evidence(
        held: list[str], said: str, noun: str, others: list[str]) -> None:
    key = {"service": "service", "table": "table", "queue": "queue"}[noun]
    items = [f"{key}={name} p99_ms={850 + i} errors=3" for i, name in enumerate(held)]
    value = 850 + held.index(said) if said in held else 850
    claim = f"The {said} {noun} p99 was {value}ms."
    expected = ["grounded"] if said in held else ["ungrounded"]
    assert buckets(claim, [*items, *others]) == expected, (claim, items)


@settings(max_examples=30)
@given(word=st.sampled_from(["upstream", "affected", "primary", "backend"]))
def test_a_describing_word_is_no_name(word: str) -> None:
    items = ["service=search p99_ms=850 errors=3"]
    assert buckets(f"The {word} service p99 was 850ms.", items) == ["grounded"]


ACTOR_RECORDS = {
    "user": ("user={a} action=restart pod=api-7f9", "{b} restarted the pod."),
    "merged_by": ("pr=1234 merged_by={a} repo=shop", "PR 1234 was merged by {b}."),
    "acknowledged_by": ('incident=42 acknowledged_by="{A} Smith"', "{B} Smith acknowledged the "
                        "incident."),
}


@settings(max_examples=60)
@given(shape=st.sampled_from(sorted(ACTOR_RECORDS)), actor=st.sampled_from(PEOPLE),
       said=st.sampled_from(PEOPLE), others=st.lists(st.sampled_from(OTHER), unique=True,
                                                     max_size=2))
@example(shape="user", actor="alice", said="bob", others=[])
def test_who_acted_is_who_the_record_says(shape: str, actor: str, said: str,
                                          others: list[str]) -> None:
    record, phrase = ACTOR_RECORDS[shape]
    item = record.format(a=actor, A=actor.capitalize())
    claim = phrase.format(b=said, B=said.capitalize())
    verdict = buckets(claim, [*others, item])
    if said == actor:
        assert verdict == ["grounded"], (claim, item)
    else:
        assert verdict != ["grounded"], (claim, item)


@settings(max_examples=80)
@given(requests=st.lists(st.integers(100, 9999), min_size=2, max_size=5, unique=True),
       pick=st.integers(0, 4), other=st.integers(0, 4), csv=st.booleans())
@example(requests=[2712, 3387], pick=1, other=0, csv=True)
def test_a_plain_name_a_record_is_about_binds_the_claim_to_its_row(
        requests: list[int], pick: int, other: int, csv: bool) -> None:
    rows = list(zip(SERVICES, requests, strict=False))
    items = (["\n".join(["service,requests,errors", *(f"{s},{r},3" for s, r in rows)])] if csv
             else [f"service={s} requests={r} errors=3" for s, r in rows])
    chosen, held = rows[pick % len(rows)], rows[other % len(rows)]
    claim = f"{chosen[0]} served {held[1]} requests."
    expected = ["grounded"] if chosen == held else ["contradicted"]
    assert buckets(claim, items) == expected, (claim, items)


HIT = ('{{"hits": {{"hits": [{{"_source": {{"kubernetes": {{"namespace": "{ns}", "pod": '
       '{{"name": "{svc}-7f9c6d-x0"}}, "container": {{"name": "{svc}"}}}}, "log": {{"level": '
       '"error"}}, "message": "upstream connect error or disconnect/reset before headers"}}}}]}}}}')


@settings(max_examples=80)
@given(held=st.sampled_from(SERVICES), said=st.sampled_from(SERVICES),
       noun=st.sampled_from(["pod", "container"]), ns=st.sampled_from(["prod", "shop-prod"]),
       other_ns=st.sampled_from(["staging", "qa", "sandbox"]),
       others=st.lists(st.sampled_from(OTHER), unique=True, max_size=2))
@example(held="search", said="cart", noun="pod", ns="prod", other_ns="staging", others=[])
def test_a_kind_a_nested_key_names_is_a_name_of_the_evidence(
        held: str, said: str, noun: str, ns: str, other_ns: str, others: list[str]) -> None:
    items = [HIT.format(ns=ns, svc=held), *others]
    claim = f"The {said} {noun} logged an upstream connect error."
    expected = ["grounded"] if said == held else ["ungrounded"]
    assert buckets(claim, items) == expected, claim
    # a namespace the records are keyed by, named nowhere, with no subject in the claim
    claim = f"The {held} errors were in the {other_ns} namespace."
    assert buckets(claim, items) == ["ungrounded"], claim


# ================================================================================================
# A name of a tool subject (a host, a service, a pod, a node, an alert or deploy id, a person, a
# team) that no evidence item holds is a made-up tool observation: beside any number of true
# claims the answer never proceeds by default, and the paper's pure decision (``score``) is what
# S alone gives.
# ================================================================================================

HOSTS = ("db-prod-1", "api-prod-3", "cache-2", "edge-lb-7", "queue-4", "worker-38")
ROW_CLAIMS = (
    ("cpu_pct", "{:.1f}", "CPU on {host} reached {value}%."),
    ("conn_count", "{:.0f}", "The connection count on {host} was {value}."),
    ("p99_latency_ms", "{:.0f}", "On {host}, p99 latency was {value} ms."),
    ("errors", "{:.0f}", "Host {host} logged {value} errors."),
)
"""A row's key and how a true claim restates it."""
TEMPLATES = (
    "Errors also spread to {name}.",
    "Service {name} was restarted at 10:02 UTC.",
    "The {name} service reported elevated latency.",
    "Deploy dep-4410 was followed by a restart of {name}.",
    "Traffic was shifted to {name}.",
    "{name} was restarted after the alert.",
    "The errors were first seen on {name}, then on the others.",
)
"""Sentences stating a tool observation about a name (the subject, object or agent)."""

WORD = st.text(alphabet=string.ascii_lowercase, min_size=4, max_size=9).filter(
    lambda w: w not in {"over", "back", "away", "with", "self", "anti", "semi", "well", "half",
                        "down", "under", "around", "through", "multi"})
"""One part of a made-up name; parts that make an English compound (``self-``, ``well-``)
are not names."""
NAMES = st.one_of(
    st.sampled_from([s for s in WORLD_SERVICES if s not in ("checkout-api",)]),
    st.sampled_from([t for t in TEAMS if "-" in t]),
    st.lists(WORD, min_size=2, max_size=3).map("-".join),
    st.builds("{}-prod-{}".format, WORD, st.integers(1, 99)),
    st.builds("pod/{}-{}".format, WORD, st.integers(1000, 9999)),
    st.builds("ip-10-0-{}-{}.ec2.internal".format, st.integers(0, 9), st.integers(1, 250)),
    st.builds("ALRT-{}".format, st.integers(10000, 99999)),
    st.builds("dep-{}".format, st.integers(1000, 9999)),
    st.sampled_from(WORLD_PEOPLE),
)
"""Names of every tool subject kind, none of which the evidence below holds."""


def _case(hosts: list[str], values: list[float], name: str, template: int) -> tuple[str, list[str]]:
    items, said = [], []
    for number, (host, value) in enumerate(zip(hosts, values, strict=True)):
        key, shape, claim = ROW_CLAIMS[number % len(ROW_CLAIMS)]
        items.append(f"host={host} {key}={shape.format(value)} status=ok")
        said.append(claim.format(host=host, value=shape.format(value)))
    items.append('{"deploy_id": "dep-4411", "service": "checkout-api", "status": "succeeded"}')
    return " ".join([*said, TEMPLATES[template].format(name=name)]), items


@settings(max_examples=80, deadline=None)
@given(hosts=st.lists(st.sampled_from(HOSTS), min_size=1, max_size=6, unique=True),
       values=st.lists(st.integers(10, 900), min_size=6, max_size=6),
       name=NAMES, template=st.integers(0, len(TEMPLATES) - 1))
@example(hosts=list(HOSTS[:4]), values=[97, 239, 850, 12, 5, 5], name="media-resizer",
         template=0)
@example(hosts=list(HOSTS[:4]), values=[97, 239, 850, 12, 5, 5], name="geo-lookup", template=3)
@example(hosts=list(HOSTS[:4]), values=[97, 239, 850, 12, 5, 5], name="sre-oncall", template=1)
def test_a_name_found_nowhere_beside_true_claims_never_proceeds(
        hosts: list[str], values: list[int], name: str, template: int) -> None:
    answer, items = _case(hosts, [float(v) for v in values[:len(hosts)]], name, template)
    verdicts = judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))
    *true, last = verdicts
    assert [v.bucket for v in true] == ["grounded"] * len(hosts), answer
    assert last.bucket == "ungrounded", (answer, last.reason)
    assert last.type in TOOL_BACKED_TYPES, (answer, last.type)  # it claims a tool observation
    result = GSAREvaluator(judge).evaluate_sync(report_synthesis=answer, evidence_corpus=items)
    assert result.final_decision is not Decision.PROCEED, (answer, result.final_score)
    pure = GSAREvaluator(judge, contradiction_policy="score").evaluate_sync(
        report_synthesis=answer, evidence_corpus=items)
    assert pure.final_score == result.final_score
    assert pure.final_decision is decide(pure.final_score)


COMPOUNDS = (
    "The team agreed on a long-term plan.", "The cache has a read-only replica.",
    "A follow-up was scheduled.", "The co-founder approved it.",
    "The fix is well-known.", "The plan is long-term.",
)
"""Hyphenated English words: modifiers before a noun, after a linking verb, or built with a
particle or prefix. None of them names a thing."""


@pytest.mark.parametrize("sentence", COMPOUNDS)
def test_an_english_compound_is_no_name(sentence: str) -> None:
    assert slots_of(sentence).subjects == (), sentence


# ================================================================================================
# A name a token carries names its record:
#
# - a pod Kubernetes named for its workload (``payments-worker-5c6d7f8b9-lq4wn``, a Deployment's
#   pod; ``node-exporter-x7k2p``, a DaemonSet's) is a pod of that workload, so "the
#   payments-worker pod has restarted 7 times" reads that pod's row;
# - a path's file (``java -jar /opt/orders/orders-service.jar``) names its program, so "the
#   orders-service process" reads that process's row;
# - a process's command words ("the nginx worker" of ``nginx: worker process``) name its row,
#   and a value another row holds is not its own.
#
# The workload's or program's own value is grounded; another row's value is not; a name no
# token carries (a changed workload or program) is never grounded.
# ================================================================================================

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


# ================================================================================================
# The noun for the kind of record a claim speaks of ("the INFO line", "the ERROR entry", "that
# row") is no word the record must hold: a log line is a line whether or not it says so.
#
# The record's own value is grounded by it; another record's value is not; and the noun counts
# as a content word where the claim's support is prose ("a row boat" must be stated).
# ================================================================================================

@settings(max_examples=40, deadline=None)
@given(seconds=st.lists(st.integers(0, 59), min_size=2, max_size=2, unique=True),
       noun=st.sampled_from(["line", "entry", "message", "log line", "record"]),
       levels=st.sampled_from([("ERROR", "INFO"), ("WARN", "INFO"), ("INFO", "ERROR")]))
def test_a_log_line_is_a_line_whether_or_not_it_says_so(seconds: list[int], noun: str,
                                                        levels: tuple[str, str]) -> None:
    lines = [f"2024-06-10T14:02:{seconds[0]:02d}Z {levels[0]} api-1: upstream timeout",
             f"2024-06-10T14:02:{seconds[1]:02d}Z {levels[1]} api-1: retry succeeded"]
    own, other = (f"14:02:{s:02d}" for s in seconds)
    assert bucket(f"The {levels[1]} {noun} was at {other}.", lines) == "grounded", lines
    assert bucket(f"The {levels[1]} {noun} was at {own}.", lines) != "grounded", lines


def test_the_noun_is_a_word_of_prose() -> None:
    story = ["The boat was built in Leeds in 1990 by two brothers."]
    verdicts = judge.explain(synthesis="The row boat was built in Leeds in 1990.",
                             evidence=EvidenceSet.coerce(story))
    assert [v.missing for v in verdicts] == [("row",)]


@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.integers(100, 99999), min_size=2, max_size=2, unique=True),
       ids=st.lists(st.integers(1, 9999), min_size=2, max_size=2, unique=True))
@example(sizes=[100, 200], ids=[1, 2])  # the other line's size is this line's status: 200
def test_an_access_log_line_is_a_request_and_its_response(sizes: list[int],
                                                         ids: list[int]) -> None:
    """"GET /api/v1/orders/8812 returned a 1432-byte response": the line is the request and
    its response; another request's size is not its own, even when it is this line's status
    (a size is read against the ``bytes`` its unit names)."""
    lines = [f'10.0.4.{17 + at} - - [10/Jun/2024:14:02:1{at} +0000] "GET /api/v1/orders/'
             f'{ids[at]} HTTP/1.1" 200 {sizes[at]} "-" "okhttp/4.12.0"' for at in range(2)]
    said = "response"
    assert bucket(f"GET /api/v1/orders/{ids[0]} returned a {sizes[0]}-byte {said}.", lines) \
        == "grounded", lines
    assert bucket(f"GET /api/v1/orders/{ids[0]} returned a {sizes[1]}-byte {said}.", lines) \
        != "grounded", lines
