"""The offline judge's invariants, as properties: a restated value is grounded; a swapped typed,
categorical or named value never is; unrelated evidence items, added or reordered, change no
verdict."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

METRICS = {
    # key: (claim words, format of a value in the claim)
    "cpu_pct": ("CPU", "{:.1f}%"),
    "conn_count": ("the connection count", "{:.0f}"),
    "p99_latency_ms": ("p99 latency", "{:.0f} ms"),
    "error_pct": ("the error rate", "{:.1f}%"),
    "errors": ("the error count", "{:.0f}"),
    "mem_used_gb": ("memory used", "{:.1f} GB"),
}
HOSTS = ("db-prod-1", "api-prod-3", "cache-2", "edge-lb-7", "queue-4")
STATUSES = {"succeeded": "failed", "failed": "succeeded"}
SEVERITIES = ("info", "warning", "critical")

judge = StagedJudge()


def buckets(answer: str, items: list[str]) -> list[str]:
    return [v.bucket for v in judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))]


def row(host: str, values: dict[str, float]) -> str:
    return f"host={host} " + " ".join(f"{k}={v:g}" for k, v in values.items())


values_st = st.fixed_dictionaries({k: st.integers(100, 90000).map(lambda n: n / 10)
                                   for k in METRICS})
"""Values from 10.0 to 9000.0: a changed value below differs from the stated one by far more
than the claim's rounding."""


PHRASINGS = (
    "On {host}, {words} was {value}.",
    "{words} on host {host} reached {value}.",
    "Host {host} reported {words} of {value}.",
)
"""How an answer may state one row's value: the subject first, last, or named by its kind."""


@settings(max_examples=40)
@given(host=st.sampled_from(HOSTS), values=values_st, key=st.sampled_from(sorted(METRICS)),
       factor=st.sampled_from([0.5, 0.7, 1.5, 3.0]), phrasing=st.sampled_from(range(3)))
@example(host="cache-2", values={k: 133.0 for k in METRICS}, key="conn_count", factor=0.5,
         phrasing=0)
@example(host="db-prod-1", values={k: 97.2 for k in METRICS}, key="cpu_pct", factor=1.5,
         phrasing=0)
@example(host="db-prod-1", values={k: 97.2 for k in METRICS}, key="cpu_pct", factor=0.7,
         phrasing=1)
@example(host="db-prod-1", values={k: 97.2 for k in METRICS}, key="errors", factor=3.0,
         phrasing=2)
def test_a_restated_value_is_grounded_and_a_changed_one_is_contradicted(
        host: str, values: dict[str, float], key: str, factor: float, phrasing: int) -> None:
    words, shape = METRICS[key]
    evidence = [row(host, values)]
    right = PHRASINGS[phrasing].format(host=host, words=words, value=shape.format(values[key]))
    # at least 7 away, and more: never within the claim's rounding of the true value
    changed = values[key] * factor + 7 if factor > 1 else values[key] * (1 + factor) + 7
    wrong = PHRASINGS[phrasing].format(host=host, words=words, value=shape.format(changed))
    assert buckets(right, evidence) == ["grounded"], right
    assert buckets(wrong, evidence) == ["contradicted"], (wrong, evidence)


@settings(max_examples=40)
@given(host=st.sampled_from(HOSTS), values=values_st, key=st.sampled_from(sorted(METRICS)),
       other=st.sampled_from(sorted(METRICS)))
@example(host="cache-2", values={**{k: 5.0 for k in METRICS}, "conn_count": 133.0,
                                 "errors": 248.0}, key="errors", other="conn_count")
def test_a_value_of_another_field_of_the_row_is_never_grounded(
        host: str, values: dict[str, float], key: str, other: str) -> None:
    words, shape = METRICS[key]
    claimed = values[other]
    if shape.format(claimed) == shape.format(values[key]) or abs(claimed - values[key]) <= 0.5:
        return  # the two fields hold the same value (or one rounding of it): stating it is right
    answer = f"On {host}, {words} was {shape.format(claimed)}."
    assert buckets(answer, [row(host, values)]) != ["grounded"], answer


@settings(max_examples=40)
@given(host=st.sampled_from(HOSTS), other=st.sampled_from(["payments-api", "db-prod-9",
                                                            "billing-worker", "john.smith"]),
       values=values_st, key=st.sampled_from(sorted(METRICS)))
def test_a_subject_named_nowhere_is_never_grounded(host: str, other: str,
                                                   values: dict[str, float], key: str) -> None:
    words, shape = METRICS[key]
    answer = f"On {other}, {words} was {shape.format(values[key])}."
    assert buckets(answer, [row(host, values)]) == ["ungrounded"], answer


@settings(max_examples=40)
@given(status=st.sampled_from(sorted(STATUSES)), deploy=st.integers(1000, 9999),
       service=st.sampled_from(["checkout-api", "payment-worker", "search-svc"]),
       wrapped=st.booleans())
@example(status="succeeded", deploy=5521, service="checkout-api", wrapped=True)
def test_the_opposite_status_is_contradicted(status: str, deploy: int, service: str,
                                              wrapped: bool) -> None:
    record = (f'{{"deploy_id": "dep-{deploy}", "service": "{service}", "status": "{status}", '
              f'"actor": "maria.lopez"}}')
    item = record
    if wrapped:
        item = f'{{"result": "deploy_id=dep-{deploy} service={service} status={status}"}}'
    assert buckets(f"Deploy dep-{deploy} of {service} {status}.", [item]) == ["grounded"]
    assert buckets(f"Deploy dep-{deploy} of {service} {STATUSES[status]}.", [item]) == [
        "contradicted"]


@settings(max_examples=40)
@given(severity=st.sampled_from(SEVERITIES), claimed=st.sampled_from(SEVERITIES),
       host=st.sampled_from(HOSTS), alert=st.integers(10000, 99999))
def test_a_severity_is_grounded_only_as_stated(severity: str, claimed: str, host: str,
                                               alert: int) -> None:
    item = (f"ALERT ALRT-{alert} DiskSpace host={host} severity={severity} state=firing")
    expected = "grounded" if claimed == severity else "contradicted"
    assert buckets(f"Alert ALRT-{alert} on {host} is {claimed}.", [item]) == [expected]


@settings(max_examples=40)
@given(verb=st.sampled_from(["closed", "merged", "deployed", "restarted", "acknowledged",
                             "approved", "scaled", "drained", "resolved", "rolled back"]),
       form=st.sampled_from(["was never {}", "was not {}", "wasn't {}"]),
       ticket=st.integers(1, 999))
def test_a_negated_statement_of_a_logged_action_is_never_grounded(verb: str, form: str,
                                                                  ticket: int) -> None:
    item = f"2026-03-14T09:13:42Z INFO ticket-bot: ticket TCK-{ticket} was {verb} by team-5"
    assert buckets(f"Ticket TCK-{ticket} was {verb}.", [item]) == ["grounded"]
    claim = f"Ticket TCK-{ticket} {form.format(verb)}."
    assert buckets(claim, [item]) == ["contradicted"], claim


@settings(max_examples=40)
@given(host=st.sampled_from(HOSTS), values=values_st,
       distractors=st.lists(st.tuples(st.sampled_from(["web-9", "batch-3", "ldap-1"]),
                                      values_st), min_size=1, max_size=30),
       position=st.integers(0, 30), key=st.sampled_from(sorted(METRICS)),
       factor=st.sampled_from([1.0, 0.5]))
def test_unrelated_items_added_or_reordered_change_no_verdict(
        host: str, values: dict[str, float], distractors: list[tuple[str, dict[str, float]]],
        position: int, key: str, factor: float) -> None:
    words, shape = METRICS[key]
    answer = (f"On {host}, {words} was {shape.format(values[key] * factor)}. "
              f"db-prod-9 had {words} of {shape.format(values[key])}.")
    alone = buckets(answer, [row(host, values)])
    others = [row(h, v) for h, v in distractors]
    items = [*others[:position], row(host, values), *others[position:]]
    assert buckets(answer, items) == alone
    assert buckets(answer, list(reversed(items))) == alone


PEOPLE = ("maria.lopez", "john.smith", "wei.chen", "amara.okafor", "lucas.martin")


@settings(max_examples=30)
@given(actor=st.sampled_from(PEOPLE), other=st.sampled_from(PEOPLE),
       deploy=st.integers(1000, 9999), alert=st.integers(10000, 99998))
@example(actor="maria.lopez", other="john.smith", deploy=5521, alert=20932)
def test_a_name_in_another_name_s_place_is_contradicted(actor: str, other: str, deploy: int,
                                                       alert: int) -> None:
    record = (f'{{"deploy_id": "dep-{deploy}", "service": "checkout-api", "status": "succeeded", '
              f'"actor": "{actor}"}}')
    signal = f"ALERT ALRT-{alert} DiskSpaceWarning host=db-prod-2 severity=warning state=firing"
    items = [record, signal]
    assert buckets(f"Deploy dep-{deploy} was run by {actor}.", items) == ["grounded"]
    assert buckets(f"Alert ALRT-{alert} fired on db-prod-2.", items) == ["grounded"]
    if other != actor:
        assert buckets(f"Deploy dep-{deploy} was run by {other}.", items) == ["contradicted"]
    assert buckets(f"Alert ALRT-{alert + 1} fired on db-prod-2.", items) == ["contradicted"]
    assert buckets("Alert DiskSpaceCritical fired on db-prod-2.", items) == ["contradicted"]
