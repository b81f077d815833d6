"""The records judge's invariants, as properties and tables: a value of another row of a table
is never grounded (any row, any column, any table shape), a restated value is, a name found
nowhere is not, an exact restatement of a prose record is; derivations ground what the rows
make; unverifiable claims are left out of S and reported; unrelated items, added or reordered,
change no outcome."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Decision
from gsar_otel.core.scoring import gsar_score, unverified_share
from gsar_otel.judges.records.judge import RecordsJudge, RecordsSettings
from tests.records.support import outcomes

judge = RecordsJudge()

COLUMNS = ("RESTARTS", "CPU_PCT", "CONNS")
WORDS = {"RESTARTS": "{} restarts", "CPU_PCT": "{}% CPU", "CONNS": "{} open connections"}
STATUSES = ("Running", "CrashLoopBackOff", "Pending")
UNRELATED = ("deploy checkout-api v1.4.15 finished at 09:12:44 by release-bot",
             "2024-03-05T10:02:09Z WARN cache-7 eviction storm keys=120000")


def table(shape: str, rows: list[tuple[str, str, list[int]]]) -> str:
    """The same rows as an aligned CLI table, a pipe table or JSON."""
    if shape == "json":
        return json.dumps({"items": [
            {"name": name, "status": status, **{c.lower(): v for c, v in zip(COLUMNS, values,
                                                                             strict=True)}}
            for name, status, values in rows]})
    header = ["NAME", "STATUS", *COLUMNS]
    lines = [header] + [[name, status, *map(str, values)] for name, status, values in rows]
    if shape == "pipe":
        return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)
    widths = [max(len(line[i]) for line in lines) + 3 for i in range(len(header))]
    return "\n".join("".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()
                     for line in lines)


rows_st = st.lists(
    st.tuples(st.sampled_from(STATUSES),
              st.lists(st.integers(1, 9000), min_size=3, max_size=3, unique=True)),
    min_size=2, max_size=6)


@settings(max_examples=60, deadline=None)
@given(rows=rows_st, data=st.data(), shape=st.sampled_from(["aligned", "pipe", "json"]))
def test_a_value_of_another_row_is_never_grounded(rows, data, shape):
    named = [(f"checkout-7d9f{i}-q{i}x{i}n", status, values)
             for i, (status, values) in enumerate(rows)]
    evidence = [table(shape, named)]
    mine = data.draw(st.integers(0, len(named) - 1), label="row")
    other = data.draw(st.integers(0, len(named) - 1).filter(lambda j: j != mine), label="other")
    column = data.draw(st.integers(0, len(COLUMNS) - 1), label="column")
    theirs = named[other][2][column]
    if theirs == named[mine][2][column]:
        return
    claim = f"Pod {named[mine][0]} has {WORDS[COLUMNS[column]].format(theirs)}."
    assert outcomes(claim, evidence) != ["verified"]
    own = f"Pod {named[mine][0]} has {WORDS[COLUMNS[column]].format(named[mine][2][column])}."
    assert outcomes(own, evidence) == ["verified"]
    for extra in ([*evidence, *UNRELATED], [*UNRELATED, *evidence]):
        assert outcomes(claim, extra) == outcomes(claim, evidence)
        assert outcomes(own, extra) == ["verified"]


@settings(max_examples=40, deadline=None)
@given(rows=rows_st, data=st.data(), shape=st.sampled_from(["aligned", "pipe", "json"]))
def test_a_state_of_another_row_is_contradicted(rows, data, shape):
    named = [(f"cart-5c{i}d-w{i}k", status, values) for i, (status, values) in enumerate(rows)]
    mine = data.draw(st.integers(0, len(named) - 1), label="row")
    claimed = data.draw(st.sampled_from([s for s in STATUSES if s != named[mine][1]]))
    claim = f"Pod {named[mine][0]} is {claimed}."
    assert outcomes(claim, [table(shape, named)]) == ["contradicted"]
    assert outcomes(f"Pod {named[mine][0]} is {named[mine][1]}.",
                    [table(shape, named)]) == ["verified"]


KUBECTL = """NAME                              READY   STATUS             RESTARTS   AGE
checkout-api-7d9f8b6c5-q8lmn      1/1     Running            0          2d
checkout-api-7d9f8b6c5-x2x9k      0/1     CrashLoopBackOff   14         2d
checkout-api-7d9f8b6c5-zt5vb      1/1     Running            1          2d"""
LOG = """2024-03-05T10:02:04Z INFO checkout-api started request_id=abc123
2024-03-05T10:02:09Z ERROR checkout-api payment failed: timeout after 30s"""


@pytest.mark.parametrize(("answer", "items", "expected"), [
    # the kubectl row: both values are another pod's
    ("Pod checkout-api-7d9f8b6c5-q8lmn is in CrashLoopBackOff with 14 restarts.", [KUBECTL],
     "contradicted"),
    ("Pod checkout-api-7d9f8b6c5-x2x9k is crash-looping with 14 restarts.", [KUBECTL],
     "verified"),
    # a time of another line
    ("The ERROR was logged at 10:02:04.", [LOG], "contradicted"),
    ("The ERROR was logged at 10:02:09.", [LOG], "verified"),
    ("There were no errors in the checkout-api log.", [LOG], "contradicted"),
    # a name found nowhere
    ("ci-runner deployed checkout-api to worker-12.",
     ["john.smith deployed checkout-api v1.4.15 to worker-12"], "absent"),
    ("john.smith deployed checkout-api to worker-12.",
     ["john.smith deployed checkout-api v1.4.15 to worker-12"], "verified"),
    # an exact restatement of a prose record
    ("pg-main-5 has address 10.227.47.89.",
     ["deployed pg-schema v12 to pg-main-5 (10.227.47.89) at 09:14"], "verified"),
    # derivations over the rows
    ("The three checkout-api pods restarted 15 times in total.", [KUBECTL], "verified"),
    ("The three checkout-api pods restarted 16 times in total.", [KUBECTL], "absent"),
    ("2 of the 3 pods are Running.", [KUBECTL], "verified"),
    ('{"latency_ms": 1234} took about 1.2 s', ['{"latency_ms": 1234}'], "verified"),
    ("The request took about 1.2 s.", ['{"request": {"latency_ms": 1234}}'], "verified"),
    ("The error ratio was 4.2%.", ['{"error_ratio": 0.042}'], "verified"),
    # nothing checkable
    ("This looks like a transient problem.", [KUBECTL], "unverified"),
    ("Consider raising the memory limit to 1Gi.", [KUBECTL], "advice"),
])
def test_outcomes_of_the_issue_cases(answer, items, expected):
    assert outcomes(answer, items)[-1] == expected


def test_unverified_claims_are_left_out_of_s_and_their_share_reported():
    output = judge.judge_now(
        synthesis="Pod checkout-api-7d9f8b6c5-x2x9k has 14 restarts. It looks unhappy.",
        evidence=EvidenceSet.coerce([KUBECTL]))
    partition = output.to_partition()
    assert [c.verifiable for c in partition.ungrounded] == [False]
    assert gsar_score(partition) == 1.0
    assert unverified_share(partition) == 0.5
    assert not output.abstained


def test_an_answer_mostly_unverifiable_abstains_with_the_reason_unverified():
    evaluator = GSAREvaluator(RecordsJudge(RecordsSettings(unverified_share=0.4)))
    result = evaluator.evaluate_sync(
        report_synthesis="Pod checkout-api-7d9f8b6c5-x2x9k has 14 restarts. It looks unhappy. "
                         "Nothing else stands out.",
        evidence_corpus=[KUBECTL])
    assert result.final_decision is Decision.ABSTAIN
    assert (result.final_judge_output.abstain_reason or "").startswith("unverified")


def test_a_contradicted_claim_never_proceeds():
    result = GSAREvaluator(judge).evaluate_sync(
        report_synthesis="Pod checkout-api-7d9f8b6c5-q8lmn has 14 restarts. Pods "
                         "checkout-api-7d9f8b6c5-x2x9k is in CrashLoopBackOff.",
        evidence_corpus=[KUBECTL])
    assert result.final_decision is not Decision.PROCEED


def test_a_bad_unverified_share_is_a_clear_error():
    with pytest.raises(ValueError, match="unverified_share"):
        RecordsSettings(unverified_share=1.5)


def test_the_evaluate_span_reports_the_unverified_share_and_unverifiable_claims():
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from gsar_otel.otel.instruments import get_telemetry
    from gsar_otel.otel.traced import TracedEvaluator

    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    evaluator = TracedEvaluator(judge, function="agent", telemetry=get_telemetry(
        tracer_provider=tracer_provider, meter_provider=meter_provider))
    evaluator.evaluate_sync(
        report_synthesis="Pod checkout-api-7d9f8b6c5-x2x9k has 14 restarts. It looks unhappy.",
        evidence_corpus=[KUBECTL])
    span = next(s for s in exporter.get_finished_spans() if s.name.startswith("gsar.evaluate"))
    assert span.attributes["gsar.unverified_share"] == 0.5
    flags = [e.attributes.get("gsar.claim.verifiable") for e in span.events
             if e.name == "gsar.claim"]
    assert sorted(flags, key=str) == [False, None]


def test_an_unverified_abstain_is_a_degraded_evaluation_with_its_reason():
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from gsar_otel.otel.instruments import get_telemetry
    from gsar_otel.otel.traced import TracedEvaluator

    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    evaluator = TracedEvaluator(judge, function="agent", telemetry=get_telemetry(
        tracer_provider=tracer_provider, meter_provider=MeterProvider(metric_readers=[reader])))
    result = evaluator.evaluate_sync(
        report_synthesis=("Pod checkout-api-7d9f8b6c5-x2x9k has 14 restarts. It looks unhappy. "
                          "Nobody has looked at it. The rest is quiet."),
        evidence_corpus=[KUBECTL])
    assert (result.final_decision, result.degraded, result.degraded_reason) == (
        Decision.ABSTAIN, True, "unverified")
    span = next(s for s in exporter.get_finished_spans() if s.name.startswith("gsar.evaluate"))
    assert span.attributes["gsar.degraded.reason"] == "unverified"
    points = [p for m in reader.get_metrics_data().resource_metrics[0].scope_metrics[0].metrics
              if m.name == "gsar.evaluations.degraded" for p in m.data.data_points]
    assert [(p.attributes["gsar.degraded.reason"], p.value) for p in points] == [("unverified", 1)]
