"""The ``number_absent`` rule on tool output and not on tables: a value of a metric no row
reports is unsupported tool data, while a table's claims reckon with its values."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged.classify import classify
from gsar_otel.judges.staged.features import answer_context
from gsar_otel.judges.staged.index import build_index
from gsar_otel.judges.staged.judge import analyse
from gsar_otel.judges.staged.textual import facts_of
from tests.staged.test_features_classify import flat_model

HOSTS = st.builds("{}-{}".format, st.sampled_from(["edge-lb", "pg-main", "cart-svc"]),
                  st.integers(1, 9))
PERCENT = st.integers(10, 999).map(lambda n: n / 10)
UNSEEN = st.sampled_from([("packet loss", "%"), ("GC pause time", " ms"),
                          ("swap usage", " GB"), ("TCP retransmit rate", "%")])
MODEL = flat_model(grounded=0.2, rules=frozenset({"number_absent"}))


def tool_output(host: str, rate: float) -> list[str]:
    """Tool output: a metric row beside a log line and an alert (not a table)."""
    return [f"host={host} http_5xx_rate={rate}% p99_ms=850 ts=2024-05-01T10:15:32Z",
            f"2024-05-01 10:15:02 UTC INFO deploy-bot: pushed cfg-7781 to {host}",
            f"ALERT HighErrorRate firing for {host} since 10:15:32 UTC (threshold 5%)"]


def table(host: str, rate: float) -> list[str]:
    """A table: every unit a ``key=value`` row."""
    return [f"host={host} http_5xx_rate={rate}% p99_ms=850",
            f"host={host}-b http_5xx_rate=1.5% p99_ms=120",
            f"host={host}-c http_5xx_rate=2.5% p99_ms=130"]


def rule_of(claim: str, items: list[str]) -> str:
    index = build_index(EvidenceSet.coerce(items))
    analysis = analyse(claim, index, answer_context(1, facts_of(claim), index))
    return classify(MODEL, analysis.vector, analysis.sources,
                    analysis.comparison.row_conflict).rule


@settings(max_examples=40, deadline=None)
@given(HOSTS, PERCENT, UNSEEN, st.integers(200, 799))
def test_a_value_of_a_metric_no_row_reports_is_ungrounded_on_tool_output(
        host: str, rate: float, metric: tuple[str, str], value: int) -> None:
    # 200-799 is no value of the evidence, even rounded (rates < 100, 850, times)
    name, unit = metric
    claim = f"The {name} of {host} was {value}{unit}."
    assert rule_of(claim, tool_output(host, rate)) == "number_absent"
    # a table's claims reckon with its values: the rule leaves them to the model
    assert rule_of(claim, table(host, rate)) != "number_absent"


@settings(max_examples=40, deadline=None)
@given(HOSTS, PERCENT)
def test_a_value_a_row_reports_is_never_number_absent(host: str, rate: float) -> None:
    claim = f"The 5xx rate on {host} reached {rate}% at 10:15:32 UTC."
    assert rule_of(claim, tool_output(host, rate)) != "number_absent"


UNIT_KEYS = st.sampled_from([("request rate", "rps", " req/s"), ("query rate", "qps", " req/s"),
                             ("queue wait", "queue_ms", " ms")])


@settings(max_examples=40, deadline=None)
@given(HOSTS, UNIT_KEYS, st.integers(200, 799), st.integers(1, 150))
def test_a_value_in_the_unit_one_key_names_is_that_keys_value(
        host: str, metric: tuple[str, str, str], value: int, shift: int) -> None:
    # No key shares the claim's words; the one key whose last part names the claim value's
    # unit (rps for req/s) is the metric the claim states.
    name, key, unit = metric
    row = [f"host={host} http_5xx_rate=1.5% {key}={value} ts=2024-05-01T10:15:32Z",
           f"2024-05-01 10:15:02 UTC INFO deploy-bot: pushed cfg-7781 to {host}"]

    def comparison(claimed: int) -> tuple[str, ...]:
        claim = f"The {name} on {host} was {claimed}{unit}."
        index = build_index(EvidenceSet.coerce(row))
        analysis = analyse(claim, index, answer_context(1, facts_of(claim), index))
        return tuple(c.status for c in analysis.comparison.checks if c.kind != "HOST")

    assert comparison(value) == ("MATCH",)
    assert comparison(value + shift * 7) == ("CONFLICT",)
