"""Causes, triggers and changes: why something happened and what changed are read off the fields
that state them, never off an event just before.

Its sections cover causes stated by an incident record or a failure line, what triggered a run
(``event: push``), and changes read in order off a record's fields before and after.

Its table ``STILL_CAUSES`` holds claims of what a trigger names, each still a cause.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge
from gsar_otel.judges.staged.categories import categories_of

# ================================================================================================
# A cause is grounded only by a fact that states it: an incident record's ``root_cause`` holding
# the cause's own words, or the one fact the claim is about stating the event with its reason. A
# record of another cause, or an event just before the alert, is no record of this cause.
#
# "Failed" is stated by a line at level error about what failed (a WARN line, or a record saying
# it succeeded, is not); "failed over" is a failover, no failed outcome. A certificate's
# ``not_after`` is its expiry date. A claim tied to an address ("requests to 10.1.2.3:8080") is
# read against the line about that address: another status there contradicts it.
# ================================================================================================

judge = StagedJudge()

HOSTS = ["kafka-broker-6", "pg-main-8", "edge-lb-3", "gpu-node-2", "api-gw-5"]
ALERTS = ["DiskAlmostFull", "PostgresPrimaryDown", "HighErrorRate", "GPUNodeDown"]
CAUSES = [("logrotate skipped on {h}", "The skipped logrotate run on {h} led to the {a} alert."),
          ("I/O errors on {h}", "I/O errors on {h} caused the {a} alert."),
          ("memory leak in {h}", "A memory leak in {h} was the root cause of the {a} alert."),
          ("expired certificate on {h}", "The {a} alert was caused by an expired certificate "
                                         "on {h}.")]
OTHER = ["deploy-bot: pushed cfg-2292 (log_level=debug) to {h}",
         "autoscaler: scaled edge-pool from 9 to 5 instances"]
UNRELATED = ["host=cache-9 hit_ratio=0.93 evictions=12", "2024-06-10 14:00:00 UTC INFO cron: "
             "backup of billing-db finished"]


def buckets(answer: str, items: list[str]) -> list[str]:
    return [v.bucket for v in judge.explain(synthesis=answer,
                                            evidence=EvidenceSet.coerce(items))]


def incident(host: str, alert: str, cause: str, other: str) -> list[str]:
    return [f"ALERT {alert} firing for {host} since 16:14:44 UTC (threshold 90%)",
            f'{{"incident": "INC-3370", "root_cause": "{cause.format(h=host)}", '
            '"confidence": "medium"}',
            f"2024-10-02 16:10:02 UTC INFO {other.format(h=host)}"]


@settings(max_examples=40)
@given(host=st.sampled_from(HOSTS), alert=st.sampled_from(ALERTS), said=st.integers(0, 3),
       recorded=st.integers(0, 3), other=st.sampled_from(OTHER),
       extra=st.lists(st.sampled_from(UNRELATED), unique=True, max_size=2),
       flip=st.booleans())
def test_a_cause_is_grounded_only_by_a_record_of_that_cause(
        host: str, alert: str, said: int, recorded: int, other: str, extra: list[str],
        flip: bool) -> None:
    items = incident(host, alert, CAUSES[recorded][0], other) + extra
    items = list(reversed(items)) if flip else items
    claim = CAUSES[said][1].format(h=host, a=alert)
    got = buckets(claim, items)
    if said == recorded:
        assert got == ["grounded"], (claim, items)
    else:
        assert got != ["grounded"], (claim, items)


@settings(max_examples=30)
@given(host=st.sampled_from(HOSTS), alert=st.sampled_from(ALERTS), other=st.sampled_from(OTHER))
def test_an_event_before_the_alert_is_no_cause_on_record(host: str, alert: str,
                                                         other: str) -> None:
    items = [f"ALERT {alert} firing for {host} since 16:14:44 UTC (threshold 90%)",
             f"2024-10-02 16:10:02 UTC INFO deploy-bot: pushed cfg-2292 to {host}",
             '{"incident": "INC-3370", "root_cause": "unknown", "confidence": "low"}']
    claim = f"The config push cfg-2292 to {host} caused the {alert} alert."
    assert buckets(claim, items) != ["grounded"], (claim, items)


ADDRESSES = ["10.1.18.71:8080", "10.3.0.34:8443", "[2001:db8:8::2b]:443"]
CODES = [500, 502, 503, 504]


@settings(max_examples=40)
@given(address=st.sampled_from(ADDRESSES), code=st.sampled_from(CODES),
       said=st.sampled_from(CODES), level=st.sampled_from(["ERROR", "WARN", "INFO"]),
       extra=st.lists(st.sampled_from(UNRELATED), unique=True, max_size=2))
def test_failed_requests_are_read_against_the_line_about_their_address(
        address: str, code: int, said: int, level: str, extra: list[str]) -> None:
    items = [f"2024-07-18 13:44:06 UTC {level} edge-lb-8: upstream {address} returned {code} "
             'error="upstream connect error"',
             "incident=INC-9870 host=edge-lb-8 status_class=5xx opened_at=2024-07-18T13:44:43Z",
             *extra]
    claim = f"Requests to {address} failed with status {said}."
    got = buckets(claim, items)
    if said == code and level == "ERROR":
        assert got == ["grounded"], (claim, items)
    else:
        assert got != ["grounded"], (claim, items)
    if said != code:
        assert got == ["contradicted"], (claim, items)


@settings(max_examples=30)
@given(host=st.sampled_from(HOSTS), outcome=st.sampled_from(["succeeded", "completed"]))
def test_an_error_line_never_outweighs_a_record_of_success(host: str, outcome: str) -> None:
    items = [f"deploy=dep-5521 service={host} status={outcome}",
             f"2024-07-18 13:44:06 UTC ERROR {host}: request failed status=500"]
    assert buckets("Deploy dep-5521 failed.", items) == ["contradicted"], items


@given(verb=st.sampled_from(["failed over", "fails over", "fail over", "failing over"]),
       source=st.sampled_from(HOSTS), target=st.sampled_from(HOSTS))
def test_failing_over_is_no_failed_outcome(verb: str, source: str, target: str) -> None:
    tokens = f"billing-db {verb} from {source} to {target}".lower().split()
    assert ("outcome", "failed") not in categories_of(tokens)
    assert ("outcome", "failed") in categories_of(f"billing-db {verb.split()[0]}".split())


@settings(max_examples=30)
@given(host=st.sampled_from(HOSTS), key=st.sampled_from(["not_after", "notAfter", "valid_until"]),
       day=st.integers(1, 28), shift=st.integers(-3, 3),
       extra=st.lists(st.sampled_from(UNRELATED), unique=True, max_size=2))
def test_a_certificate_expiry_is_its_not_after(host: str, key: str, day: int, shift: int,
                                              extra: list[str]) -> None:
    items = [f'{{"host": "{host}", "cn": "pay.example.net", "{key}": "2025-05-{day:02d}"}}',
             f"host={host} tls_handshake_errors=1800 ts=2025-05-{min(day + 2, 28):02d}T04:06:18Z",
             *extra]
    said = min(max(day + shift, 1), 28)
    claim = f"The certificate expiry date of {host} was 2025-05-{said:02d}."
    got = buckets(claim, items)
    assert got == (["grounded"] if said == day else ["contradicted"]), (claim, items)


EVENTS = [("node-updater: upgraded NVIDIA driver on {h}", "NVIDIA driver upgrade on {h}",
           "the driver upgrade on {h}"),
          ("deploy-bot: pushed cfg-8385 to {h}", "config push cfg-8385 to {h}",
           "the config push cfg-8385"),
          ("kubelet: {h} NodeNotReady", "{h} went NotReady", "the NotReady node {h}")]


@settings(max_examples=40)
@given(host=st.sampled_from(HOSTS), alert=st.sampled_from(ALERTS), said=st.integers(0, 2),
       recorded=st.integers(0, 2), flip=st.booleans())
def test_a_logged_event_is_a_cause_only_when_the_record_names_it(
        host: str, alert: str, said: int, recorded: int, flip: bool) -> None:
    """The event the claim calls the cause is on record as an event; the incident's root cause
    record decides whether it was the cause."""
    items = [f"ALERT {alert} firing for {host} since 16:14:44 UTC (threshold 90%)",
             f"2024-10-02 16:10:02 UTC INFO {EVENTS[said][0].format(h=host)}",
             f'{{"incident": "INC-3370", "root_cause": "{EVENTS[recorded][1].format(h=host)}"}}']
    items = list(reversed(items)) if flip else items
    claim = f"So the root cause of the {alert} alert was {EVENTS[said][2].format(h=host)}."
    got = buckets(claim, items)
    assert (got == ["grounded"]) == (said == recorded), (claim, items, got)


# ================================================================================================
# What started a run: "the deploy-prod run was triggered by a push" is the record's trigger
# field (``event: push``), never an alert that fired or an unstated cause; another trigger is
# contradicted, a trigger no record states is not grounded.
# ================================================================================================

TRIGGERS = {"push": "a push", "pull_request": "a pull request", "schedule": "the nightly schedule",
            "workflow_dispatch": "a workflow dispatch", "merge_request": "a merge request",
            "webhook": "a webhook", "tag": "a tag", "api": "an API call"}
"""A trigger field's value and how an answer writes it."""
VERBS = ("was triggered by", "was started by", "was kicked off by", "was initiated by",
         "was launched by")
NOUNS = ("run", "workflow run", "pipeline", "build", "job", "deployment")
KEYS = ("event", "source", "trigger", "triggered_by")
TRIGGER_UNRELATED = ["2024-05-01T10:00:00Z ERROR payments-api: timeout calling ledger",
             "ALERT ALRT-7 HighLatency on checkout-api fired at 10:02",
             "host=db-1 cpu_pct=12.5 conn_count=40"]


def _record(key: str, value: str, shape: str) -> str:
    if shape == "json":
        return json.dumps({"id": 8812, "name": "deploy-prod", key: value, "status": "completed",
                           "conclusion": "success"})
    return f"pipeline=deploy-prod {key}={value} status=success duration_s=184"


def _verdict(claim: str, items: list[str]) -> str:
    verdicts = StagedJudge().explain(synthesis=claim, evidence=EvidenceSet.coerce(items))
    assert len(verdicts) == 1, claim
    return verdicts[0].bucket


@settings(max_examples=60, deadline=None)
@given(key=st.sampled_from(KEYS), value=st.sampled_from(sorted(TRIGGERS)),
       other=st.sampled_from(sorted(TRIGGERS)), verb=st.sampled_from(VERBS),
       noun=st.sampled_from(NOUNS), shape=st.sampled_from(["json", "row"]),
       unrelated=st.permutations(TRIGGER_UNRELATED), where=st.integers(0, 3))
@example(key="event", value="push", other="schedule", verb="was triggered by", noun="run",
         shape="json", unrelated=TRIGGER_UNRELATED, where=0)
def test_a_runs_trigger_is_its_trigger_field(key: str, value: str, other: str, verb: str,
                                             noun: str, shape: str, unrelated: list[str],
                                             where: int) -> None:
    record = _record(key, value, shape)
    items = [*unrelated[:where], record, *unrelated[where:]]
    said = f"The deploy-prod {noun} {verb} {TRIGGERS[value]}."
    assert _verdict(said, [record]) == "grounded", (said, record)
    # unrelated items, added or reordered, change nothing
    assert _verdict(said, items) == "grounded", (said, items)
    if other != value:
        wrong = f"The deploy-prod {noun} {verb} {TRIGGERS[other]}."
        assert _verdict(wrong, [record]) == "contradicted", (wrong, record)
        assert _verdict(wrong, items) == "contradicted", (wrong, items)


@settings(max_examples=30, deadline=None)
@given(value=st.sampled_from(sorted(TRIGGERS)), verb=st.sampled_from(VERBS),
       noun=st.sampled_from(NOUNS))
def test_a_trigger_no_record_states_is_not_grounded(value: str, verb: str, noun: str) -> None:
    record = json.dumps({"id": 8812, "name": "deploy-prod", "status": "completed",
                         "conclusion": "success", "run_attempt": 1})
    said = f"The deploy-prod {noun} {verb} {TRIGGERS[value]}."
    assert _verdict(said, [record, *TRIGGER_UNRELATED]) != "grounded", said


# (claim, evidence): "triggered by" where no run is the trigger states a cause, which a record
# must state; the claim is ungrounded, for a cause
STILL_CAUSES = [
    # no run: what an alert was triggered by is a cause
    pytest.param("Alert ALRT-7 was triggered by a bad config push on checkout-api.",
                 ["ALERT ALRT-7 HighLatency on checkout-api fired at 10:02"],
                 id="what-an-alert-was-triggered-by"),
    # the run is the trigger here, not what was triggered
    pytest.param("The latency spike was triggered by the deploy of payments-api v2.12.4.",
                 ["2024-05-01T13:30:00Z INFO deployer: deploy of payments-api v2.12.4 finished",
                  "2024-05-01T13:34:39Z ALERT HighLatencyP99 fired for payments-api"],
                 id="what-a-deploy-triggered"),
]


@pytest.mark.parametrize(("said", "items"), STILL_CAUSES)
def test_what_a_trigger_names_is_still_a_cause(said: str, items: list[str]) -> None:
    verdicts = StagedJudge().explain(synthesis=said, evidence=EvidenceSet.coerce(items))
    assert [v.bucket for v in verdicts] == ["ungrounded"]
    assert verdicts[0].reason.startswith("cause:")


# ================================================================================================
# A change is read in its order off a record's fields before and after it (``replicas_old`` and
# ``replicas_new``, ``previous_version`` and ``current_version``): "from A to B" the other way
# round, or "now A" / "to A" where A is the value it left, is contradicted; and an act a record
# says was done (``action=scale``) is the act: "deleted" beside it is contradicted.
# ================================================================================================

PAIRS = [("replicas_old", "replicas_new"), ("previous_replicas", "current_replicas"),
         ("replicas_before", "replicas_after")]


def bucket(answer: str, items: list[str]) -> str:
    verdicts = judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))
    assert len(verdicts) == 1, verdicts
    return verdicts[0].bucket


@settings(max_examples=100)
@given(keys=st.sampled_from(PAIRS), old=st.integers(1, 20), new=st.integers(1, 20),
       form=st.sampled_from(["from {a} to {b}", "to {b}", "now {b}"]), swapped=st.booleans())
@example(keys=PAIRS[0], old=8, new=1, form="from {a} to {b}", swapped=True)
@example(keys=PAIRS[0], old=8, new=1, form="to {b}", swapped=True)
def test_a_change_is_read_in_its_order(keys: tuple[str, str], old: int, new: int, form: str,
                                       swapped: bool) -> None:
    if old == new:
        return
    item = f"ts=2024-06-10T14:01:09Z deployment=orders-api {keys[0]}={old} {keys[1]}={new}"
    a, b = (new, old) if swapped else (old, new)
    said = form.format(a=a, b=b)
    claim = (f"orders-api now has {b} replicas." if form.startswith("now")
             else f"orders-api was scaled {said} replicas.")
    verdict = bucket(claim, [item])
    if swapped:
        assert verdict == "contradicted", (claim, item)
    else:
        assert verdict == "grounded", (claim, item)


ACTIONS = [("scale", "scaled"), ("delete", "deleted"), ("restart", "restarted"),
           ("create", "created")]


@settings(max_examples=60)
@given(done=st.sampled_from(ACTIONS), said=st.sampled_from(ACTIONS),
       shape=st.sampled_from(["ts=2024-06-10T14:01:09Z user=frank action={a} "
                              "resource=deployment/orders-api result=allowed",
                              '{{"user": "frank", "verb": "{a}", "objectRef": '
                              '{{"name": "orders-api", "resource": "deployments"}}}}']))
def test_the_act_is_the_one_the_record_says(done: tuple[str, str], said: tuple[str, str],
                                            shape: str) -> None:
    item = shape.format(a=done[0])
    claim = f"frank {said[1]} the orders-api deployment."
    expected = "grounded" if done == said else "contradicted"
    assert bucket(claim, [item]) == expected, (claim, item)


DIFF = """diff --git a/deploy/{svc}/values.yaml b/deploy/{svc}/values.yaml
@@ -12,8 +12,8 @@ {svc}:
   http:
-    {key}: {old}
+    {key}: {new}
   db:
     host: pg-primary.prod.svc"""
CHANGE_KEYS = [("timeoutSeconds", "timeout", "seconds"), ("maxConnections", "max connections", ""),
        ("replicaCount", "replica count", "")]


@settings(max_examples=80)
@given(key=st.sampled_from(CHANGE_KEYS), old=st.integers(1, 500), new=st.integers(1, 500),
       off=st.integers(1, 90), form=st.sampled_from(["now", "from", "swapped", "other end"]))
@example(key=CHANGE_KEYS[0], old=10, new=30, off=370, form="other end")
@example(key=CHANGE_KEYS[0], old=10, new=30, off=1, form="now")
def test_a_diff_of_a_key_is_its_change(key: tuple[str, str, str], old: int, new: int, off: int,
                                       form: str) -> None:
    if old == new:
        return
    item = DIFF.format(svc="search", key=key[0], old=old, new=new)
    unit = f" {key[2]}" if key[2] else ""
    faithful = {"now": f"The search {key[1]} is now {new}{unit}.",
                "from": f"The search {key[1]} went from {old} to {new}{unit}."}
    unfaithful = {"now": f"The search {key[1]} is now {old}{unit}.",
                  "from": f"The search {key[1]} went from {new} to {old}{unit}.",
                  "swapped": f"The search {key[1]} went from {new} to {old}{unit}.",
                  "other end": f"The search {key[1]} went from {old} to {new + off}{unit}."}
    if form in faithful:
        assert bucket(faithful[form], [item]) == "grounded", (faithful[form], item)
    assert bucket(unfaithful[form], [item]) != "grounded", (unfaithful[form], item)


def test_a_yaml_list_item_is_no_change() -> None:
    from gsar_otel.judges.staged.log_fields import diff_keys
    assert diff_keys(["- name", "image", "- name"]) == ["- name", "image", "- name"]
    assert diff_keys(["-    ttl", "+    ttl", "host"]) == ["ttl_old", "ttl_new", "host"]
