"""A cause is grounded only by a fact that states it: an incident record's ``root_cause`` holding
the cause's own words, or the one fact the claim is about stating the event with its reason. A
record of another cause, or an event just before the alert, is no record of this cause.

"Failed" is stated by a line at level error about what failed (a WARN line, or a record saying
it succeeded, is not); "failed over" is a failover, no failed outcome. A certificate's
``not_after`` is its expiry date. A claim tied to an address ("requests to 10.1.2.3:8080") is
read against the line about that address: another status there contradicts it.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge
from gsar_otel.judges.staged.categories import categories_of

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
