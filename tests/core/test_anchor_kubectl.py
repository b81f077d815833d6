"""Typed anchors of Kubernetes event lines (``kubectl get events`` / ``describe``) and of the
claims that restate them.

An object reference ``kind/name`` gives its name, read as the name would be alone (a claim
writes "pod web-7f9c6d-q8zt4", not "pod/web-7f9c6d-q8zt4"); a dotted internal host name is one
host; an age (``3m12s``, ``2d4h``) is a duration; ``(x4 over 10m)`` is a count of 4 in a window
of 10 minutes. Each restatement's anchors match the line's, and a changed pod name, node name
or count does not.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from gsar_otel.core.anchors import (
    Agreement,
    Anchor,
    AnchorIndex,
    AnchorKind,
    compare_anchors,
    extract_anchors,
)

K = AnchorKind
NAMES = frozenset({K.HOST, K.IDENTIFIER})

BACKOFF = ("3m12s       Warning   BackOff             pod/checkout-api-7f9c6d-q8zt4    "
           "Back-off restarting failed container checkout in pod checkout-api-7f9c6d-q8zt4")
SCHEDULED = ("2026-03-14T09:13:42Z  Normal  Scheduled  pod/checkout-api-7f9c6d-q8zt4  "
             "Successfully assigned prod/checkout-api-7f9c6d-q8zt4 to ip-10-0-3-17.ec2.internal")
NOT_READY = ("node/ip-10-0-3-17.ec2.internal  NodeNotReady  Node ip-10-0-3-17.ec2.internal "
             "status is now: NodeNotReady (x4 over 10m)")
EVENTS = [BACKOFF, SCHEDULED, NOT_READY]


def read(text: str) -> list[tuple[AnchorKind, object]]:
    return [(a.kind, a.value) for a in extract_anchors(text)]


def standing(claim: Anchor, evidence: list[str]) -> Agreement:
    """How the best evidence anchor stands to ``claim``: MATCH over CONFLICT over UNRELATED."""
    found = {compare_anchors(claim, e) for text in evidence for e in extract_anchors(text)}
    for agreement in (Agreement.MATCH, Agreement.CONFLICT):
        if agreement in found:
            return agreement
    return Agreement.UNRELATED


def standings(claim: str, evidence: list[str]) -> list[tuple[str, Agreement]]:
    """Each anchor of ``claim`` (as written) and how the evidence stands to it; the index
    must say the same about a match."""
    index = AnchorIndex(a for text in evidence for a in extract_anchors(text))
    found = []
    for anchor in extract_anchors(claim):
        agreement = standing(anchor, evidence)
        assert (index.find(anchor) is not None) == (agreement is Agreement.MATCH), anchor
        found.append((anchor.text, agreement))
    return found


def all_match(claim: str, evidence: list[str]) -> bool:
    found = standings(claim, evidence)
    return bool(found) and all(agreement is Agreement.MATCH for _, agreement in found)


# -- the event lines, read ---------------------------------------------------------------------

def test_a_backoff_line_reads_its_age_and_the_pod_name_whole() -> None:
    assert read(BACKOFF) == [(K.DURATION, 192.0), (K.HOST, "checkout-api-7f9c6d-q8zt4"),
                             (K.HOST, "checkout-api-7f9c6d-q8zt4")]


def test_a_scheduled_line_reads_time_pod_and_node() -> None:
    assert read(SCHEDULED) == [(K.TIMESTAMP, "2026-03-14T09:13:42Z"),
                               (K.HOST, "checkout-api-7f9c6d-q8zt4"),
                               (K.HOST, "checkout-api-7f9c6d-q8zt4"),
                               (K.HOST, "ip-10-0-3-17.ec2.internal")]


def test_a_node_line_reads_one_host_a_count_and_a_window() -> None:
    anchors = extract_anchors(NOT_READY)
    assert [(a.kind, a.value) for a in anchors] == [
        (K.HOST, "ip-10-0-3-17.ec2.internal"), (K.HOST, "ip-10-0-3-17.ec2.internal"),
        (K.NUMBER, 4.0), (K.DURATION, 600.0)]
    count, window = anchors[2], anchors[3]
    assert (count.text, window.text, window.qualifier) == ("4", "10m", None)


@pytest.mark.parametrize("reference", [
    "pod/web-7f9c6d-q8zt4", "pods/web-7f9c6d-q8zt4", "po/web-7f9c6d-q8zt4",
    "node/ip-10-0-3-17.ec2.internal", "nodes/gke-prod-pool-1a2b3c4d-x9kq",
    "deployment/checkout-api", "deployment.apps/checkout-api", "deploy/checkout-api",
    "replicaset/checkout-api-7f9c6d", "replicaset.apps/checkout-api-7f9c6d", "rs/api-7f9c6d",
    "statefulset.apps/redis", "sts/redis", "daemonset.apps/fluent-bit", "ds/node-exporter",
    "job.batch/migrate-29541", "cronjob.batch/backup", "svc/checkout", "service/checkout-api",
    "svc/checkout.prod.svc.cluster.local", "ingress.networking.k8s.io/shop", "ns/prod",
    "configmap/app-config", "secret/db-credentials", "pvc/data-redis-0", "hpa/checkout-api",
    "endpoints/checkout"])
def test_an_object_reference_gives_its_name_as_a_name(reference: str) -> None:
    kind_part, name = reference.split("/")
    (anchor,) = extract_anchors(reference)
    assert anchor.kind in NAMES
    assert (anchor.value, anchor.text) == (name.lower(), name)
    alone = extract_anchors(f"the {kind_part.split('.')[0]} {name} failed")
    assert [(a.kind, a.value) for a in alone] in ([], [(anchor.kind, anchor.value)])


@pytest.mark.parametrize(("host", "forms"), [
    ("ip-10-0-3-17.ec2.internal", ["ip-10-0-3-17.ec2.internal", "node/ip-10-0-3-17.ec2.internal",
                                   "(ip-10-0-3-17.ec2.internal)", "ip-10-0-3-17.ec2.internal."]),
    ("ip-10-0-3-17.us-west-2.compute.internal",
     ["ip-10-0-3-17.us-west-2.compute.internal", "node/ip-10-0-3-17.us-west-2.compute.internal"]),
    ("checkout.prod.svc.cluster.local",
     ["checkout.prod.svc.cluster.local", "svc/checkout.prod.svc.cluster.local"]),
    ("redis-0.redis-headless.prod.svc.cluster.local",
     ["redis-0.redis-headless.prod.svc.cluster.local",
      "prod/redis-0.redis-headless.prod.svc.cluster.local"]),
])
def test_a_dotted_internal_host_is_one_host(host: str, forms: list[str]) -> None:
    for form in forms:
        assert read(form) == [(K.HOST, host)], form


def test_a_host_name_without_its_domain_matches_the_full_name() -> None:
    (short,) = extract_anchors("node ip-10-0-3-17 went NotReady")
    (full,) = extract_anchors("ip-10-0-3-17.ec2.internal")
    (other,) = extract_anchors("node ip-10-0-3-18 went NotReady")
    assert compare_anchors(short, full) is Agreement.MATCH
    assert compare_anchors(other, full) is Agreement.CONFLICT
    assert compare_anchors(full, short) is Agreement.CONFLICT  # the claim adds a domain


def test_a_namespaced_name_is_read_whole() -> None:
    assert read("assigned prod/checkout-api-7f9c6d-q8zt4 to") == [
        (K.HOST, "checkout-api-7f9c6d-q8zt4")]


def test_over_after_a_count_is_a_window_not_more_than() -> None:
    assert extract_anchors("4 times over 10 minutes")[1].qualifier is None
    assert extract_anchors("latency over 10 ms")[0].qualifier == "over"
    assert read("an x86 node over 10 ms") == [(K.IDENTIFIER, "x86"), (K.DURATION, 0.01)]


# -- restatements ------------------------------------------------------------------------------

@pytest.mark.parametrize("claim", [
    "pod checkout-api-7f9c6d-q8zt4 was assigned to node ip-10-0-3-17.ec2.internal at 09:13:42 UTC",
    "the node ip-10-0-3-17.ec2.internal went NotReady 4 times over 10 minutes",
    "checkout-api-7f9c6d-q8zt4 was in BackOff",
    "checkout-api-7f9c6d-q8zt4 has been backing off for 3m12s",
    "At 2026-03-14T09:13:42Z pod/checkout-api-7f9c6d-q8zt4 was scheduled on "
    "ip-10-0-3-17.ec2.internal.",
    "node/ip-10-0-3-17.ec2.internal reported NodeNotReady (x4 over 10m).",
    "the pod landed on ip-10-0-3-17 at 09:13 UTC on 2026-03-14",
    *EVENTS,
])
def test_a_restatement_of_an_event_line_matches_it(claim: str) -> None:
    assert all_match(claim, EVENTS), standings(claim, EVENTS)


@pytest.mark.parametrize(("claim", "changed"), [
    ("pod checkout-api-7f9c6d-q8zt5 was assigned to node ip-10-0-3-17.ec2.internal",
     "checkout-api-7f9c6d-q8zt5"),
    ("pod checkout-api-7f9c6d-q8zt4 was assigned to node ip-10-0-3-18.ec2.internal",
     "ip-10-0-3-18.ec2.internal"),
    ("the node ip-10-0-3-17.ec2.internal went NotReady 5 times over 10 minutes", "5"),
    ("the node ip-10-0-3-17.ec2.internal went NotReady 4 times over 30 minutes", "30 minutes"),
    ("pod/checkout-api-8a9c6d-q8zt4 was scheduled", "checkout-api-8a9c6d-q8zt4"),
    ("the pod was scheduled at 09:14:42 UTC", "09:14:42 UTC"),
])
def test_a_changed_name_count_or_time_is_not_matched(claim: str, changed: str) -> None:
    found = dict(standings(claim, EVENTS))
    assert found[changed] is Agreement.CONFLICT
    assert all(agreement is Agreement.MATCH for text, agreement in found.items()
               if text != changed)


# -- properties over generated names, ages and counts ------------------------------------------

_ALNUM = "bcdfghjklmnpqrstvwxz2456789"
"""The characters Kubernetes draws generated name suffixes from."""
_apps = st.sampled_from(["checkout-api", "payments", "web", "cart-svc", "auth-worker", "api"])


def _suffix(min_size: int, max_size: int) -> st.SearchStrategy[str]:
    # a digit keeps the bare name a name: "web-bcdfg-hjklm" alone reads as hyphenated words
    return st.builds(lambda head, digit: head + digit,
                     st.text(alphabet=_ALNUM, min_size=min_size - 1, max_size=max_size - 1),
                     st.sampled_from("2456789"))


POD_NAMES = st.one_of(
    st.builds(lambda app, rs, pod: f"{app}-{rs}-{pod}", _apps, _suffix(6, 10), _suffix(5, 5)),
    st.builds(lambda app, n: f"{app}-{n}", st.sampled_from(["redis", "kafka", "db", "etcd"]),
              st.integers(0, 20)))
_octet = st.integers(0, 255)
NODE_NAMES = st.one_of(
    st.builds(lambda a, b, c, d: f"ip-{a}-{b}-{c}-{d}.ec2.internal", _octet, _octet, _octet,
              _octet),
    st.builds(lambda a, b, c, d, region: f"ip-{a}-{b}-{c}-{d}.{region}.compute.internal",
              _octet, _octet, _octet, _octet,
              st.sampled_from(["us-west-2", "eu-central-1", "ap-south-1"])),
    st.builds(lambda pool, h, tail: f"gke-prod-{pool}-{h}-{tail}",
              st.sampled_from(["default-pool", "pool-1", "highmem"]),
              st.text(alphabet="0123456789abcdef", min_size=8, max_size=8),
              _suffix(4, 4)),
    st.builds(lambda n, m: f"aks-nodepool{n}-{m:08d}-vmss{n:06d}", st.integers(1, 9),
              st.integers(0, 10**8 - 1)),
    st.builds(lambda n: f"worker-{n}.k8s.example.com", st.integers(0, 99)))

_UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
_WORDS = {"d": "days", "h": "hours", "m": "minutes", "s": "seconds"}
AGES = st.one_of(
    st.tuples(st.integers(1, 59)).map(lambda t: (("s", t[0]),)),
    st.tuples(st.integers(1, 59), st.integers(0, 59)).map(lambda t: (("m", t[0]), ("s", t[1]))),
    st.tuples(st.integers(1, 59)).map(lambda t: (("m", t[0]),)),
    st.tuples(st.integers(1, 23), st.integers(1, 59)).map(lambda t: (("h", t[0]), ("m", t[1]))),
    st.tuples(st.integers(1, 99)).map(lambda t: (("h", t[0]),)),
    st.tuples(st.integers(1, 99), st.integers(1, 23)).map(lambda t: (("d", t[0]), ("h", t[1]))),
    st.tuples(st.integers(1, 999)).map(lambda t: (("d", t[0]),)))
"""kubectl ages as (unit, amount) parts, largest unit first: 45s, 3m12s, 10m, 5h12m, 2d4h."""


def age_text(parts: tuple[tuple[str, int], ...]) -> str:
    return "".join(f"{amount}{unit}" for unit, amount in parts)


def age_words(parts: tuple[tuple[str, int], ...]) -> str:
    return " ".join(f"{amount} {_WORDS[unit]}" for unit, amount in parts)


def age_seconds(parts: tuple[tuple[str, int], ...]) -> float:
    return float(sum(_UNITS[unit] * amount for unit, amount in parts))


@given(POD_NAMES, st.sampled_from(["pod", "pods", "po"]))
@example("checkout-api-7f9c6d-q8zt4", "pod")
@example("redis-0", "pod")
@example("web-bcdfghjk2-xq7vz", "po")
def test_a_pod_reference_reads_as_the_pod_name_alone(name: str, kind: str) -> None:
    (reference,) = extract_anchors(f"{kind}/{name}")
    (alone,) = extract_anchors(f"the pod {name} restarted")
    assert reference.kind in NAMES and reference.value == name
    assert compare_anchors(alone, reference) is Agreement.MATCH


@given(NODE_NAMES)
@example("ip-10-0-3-17.ec2.internal")
@example("ip-10-0-3-17.us-west-2.compute.internal")
@example("gke-prod-default-pool-1a2b3c4d-x9k2")
@example("aks-nodepool1-12345678-vmss000001")
@example("worker-3.k8s.example.com")
def test_a_node_name_is_one_host_wherever_it_stands(name: str) -> None:
    for text in (name, f"node/{name}", f"Node {name} status is now: NodeNotReady",
                 f"on {name}.", f"({name})"):
        assert read(text) == [(K.HOST, name)], text


@given(AGES)
@example((("m", 3), ("s", 12)))
@example((("m", 10),))
@example((("d", 2), ("h", 4)))
@example((("s", 45),))
@example((("h", 5),))
def test_a_kubectl_age_is_a_duration_that_its_words_match(
        parts: tuple[tuple[str, int], ...]) -> None:
    (age,) = extract_anchors(f"{age_text(parts)}   Warning   BackOff")
    assert (age.kind, age.value) == (K.DURATION, age_seconds(parts))
    (spoken,) = extract_anchors(f"it has been backing off for {age_words(parts)}")
    assert compare_anchors(spoken, age) is Agreement.MATCH


@given(POD_NAMES, NODE_NAMES, st.integers(2, 500), st.integers(1, 59), AGES)
@example("checkout-api-7f9c6d-q8zt4", "ip-10-0-3-17.ec2.internal", 4, 10,
         (("m", 3), ("s", 12)))
@example("redis-0", "worker-3.k8s.example.com", 12, 59, (("d", 2), ("h", 4)))
@example("web-bcdfghjk2-xq7vz", "gke-prod-default-pool-1a2b3c4d-x9k2", 2, 1, (("s", 45),))
def test_restated_events_match_and_changed_ones_do_not(
        pod: str, node: str, count: int, window: int,
        age: tuple[tuple[str, int], ...]) -> None:
    events = [
        f"{age_text(age)}   Warning   BackOff   pod/{pod}   Back-off restarting failed container",
        f"2026-03-14T09:13:42Z  Normal  Scheduled  pod/{pod}  Successfully assigned prod/{pod} "
        f"to {node}",
        f"node/{node}  NodeNotReady  Node {node} status is now: NodeNotReady "
        f"(x{count} over {window}m)"]
    restatements = [
        f"pod {pod} was assigned to node {node} at 09:13:42 UTC",
        f"the node {node} went NotReady {count} times over {window} minutes",
        f"{pod} has been in BackOff for {age_words(age)}",
        *events]
    for claim in restatements:
        assert all_match(claim, events), standings(claim, events)
    other_pod = pod[:-1] + ("2" if pod[-1] != "2" else "4")
    other_node = node.replace("-", "-1", 1)
    assert dict(standings(f"pod {other_pod} was assigned to node {node}", events))[
        other_pod] is Agreement.CONFLICT
    assert dict(standings(f"the node {other_node} went NotReady", events))[
        other_node] is Agreement.CONFLICT
    # against the node's own line: a date elsewhere offers its day as a number ("14 times"),
    # and the window's number is another value of the line
    changed = count + 1 if count + 1 != window else count + 2
    assert dict(standings(f"the node {node} went NotReady {changed} times", events[2:]))[
        str(changed)] is Agreement.CONFLICT
