"""Which runs are judged: service, agent and attribute-match filters (``--match KEY=VALUE`` on the
run span's attributes, else its resource), and sampling deterministic on the trace id, so that
replicas and restarts choose the same runs."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.sdk.trace.id_generator import RandomIdGenerator

from gsar_otel.sidecar.assembly.assembler import ReadyRun
from gsar_otel.sidecar.filters import RunFilter, parse_match, sampled
from gsar_otel.sidecar.intake.spans import SpanRecord
from tests.sidecar.support import start_sidecar
from tests.sidecar.test_receiver_http import agent_spans, kv, otlp_json, post

T1 = "0af7651916cd43dd8448eb211c80319c"


def run_of(attributes: dict[str, Any], resource: dict[str, Any] | None = None) -> ReadyRun:
    span = SpanRecord(trace_id=T1, span_id="0000000000000001", parent_span_id="",
                      name="invoke_agent bot", attributes=attributes,
                      resource={"service.name": "agent", **(resource or {})})
    return ReadyRun(trace_id=T1, spans=(span,), logs=(), run_span=span, convention="genai",
                    reason="settled")


def test_a_match_reads_the_run_span_then_its_resource() -> None:
    run = run_of({"gen_ai.agent.name": "bot", "tenant": "acme", "retries": 2, "vip": True},
                 {"deployment.environment.name": "prod", "tenant": "ignored"})
    assert RunFilter(matches=(("tenant", "acme"),)).wanted(run)
    assert not RunFilter(matches=(("tenant", "ignored"),)).wanted(run)  # the span wins
    assert RunFilter(matches=(("deployment.environment.name", "prod"),)).wanted(run)
    assert RunFilter(matches=(("retries", "2"), ("vip", "true"))).wanted(run)
    assert not RunFilter(matches=(("absent", ""),)).wanted(run)


def test_keys_must_all_hold_and_values_of_one_key_are_alternatives() -> None:
    run = run_of({"tenant": "acme"}, {"deployment.environment.name": "staging"})
    either = RunFilter(matches=(("deployment.environment.name", "prod"),
                                ("deployment.environment.name", "staging")))
    assert either.wanted(run)
    both = RunFilter(matches=(("deployment.environment.name", "staging"), ("tenant", "other")))
    assert not both.wanted(run)


def test_service_agent_and_match_combine() -> None:
    run = run_of({"gen_ai.agent.name": "bot", "tenant": "acme"})
    assert RunFilter(("agent",), ("bot",), (("tenant", "acme"),)).wanted(run)
    assert not RunFilter(("web",), ("bot",), (("tenant", "acme"),)).wanted(run)
    assert not RunFilter(("agent",), ("other",), (("tenant", "acme"),)).wanted(run)


SCALARS = st.one_of(st.text(max_size=8), st.integers(-5, 5), st.booleans())


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from("abcd"), SCALARS, max_size=4),
       st.lists(st.tuples(st.sampled_from("abcde"), st.text(max_size=8)), max_size=4),
       st.tuples(st.sampled_from("abcde"), st.text(max_size=8)))
def test_a_match_only_narrows_and_a_runs_own_value_always_matches(
        attributes: dict[str, Any], matches: list[tuple[str, str]],
        extra: tuple[str, str]) -> None:
    run = run_of(attributes)
    base = RunFilter(matches=tuple(matches))
    if extra[0] not in {k for k, _ in matches}:  # a new key narrows; it never widens
        narrower = RunFilter(matches=(*matches, extra))
        assert not narrower.wanted(run) or base.wanted(run)
    for key, value in attributes.items():
        own = "true" if value is True else "false" if value is False else str(value)
        assert RunFilter(matches=((key, own),)).wanted(run)


@pytest.mark.parametrize(("text", "pair"), [
    ("tenant=acme", ("tenant", "acme")), ("q=a=b", ("q", "a=b")), ("empty=", ("empty", ""))])
def test_parse_match(text: str, pair: tuple[str, str]) -> None:
    assert parse_match(text) == pair


@pytest.mark.parametrize("text", ["tenant", "=acme", " =x"])
def test_parse_match_refuses_what_is_not_key_value(text: str) -> None:
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_match(text)


def test_a_sidecar_judges_only_runs_that_match_and_counts_the_rest() -> None:
    running = start_sidecar(matches=(("deployment.environment.name", "prod"),))
    try:
        for n, env in enumerate(("prod", "staging", "prod")):
            body = json.loads(otlp_json(*agent_spans(f"{n + 1:032x}")))
            body["resourceSpans"][0]["resource"]["attributes"].append(
                kv("deployment.environment.name", env))
            assert post(running, json.dumps(body).encode())[0] == 200
        stats = running.sidecar.stats
        running.wait_for(lambda: stats.get("runs_judged") == 2
                         and stats.get("runs_skipped", "filtered") == 1, "two judged, one out")
    finally:
        running.stop()
    assert {f"{s.context.trace_id:032x}" for s in running.evaluations()} == {
        f"{1:032x}", f"{3:032x}"}


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 2**128 - 1), st.floats(0, 1), st.floats(0, 1))
def test_sampling_is_a_pure_function_of_the_trace_id_and_monotone_in_the_rate(
        trace_id: int, low: float, high: float) -> None:
    low, high = min(low, high), max(low, high)
    tid = f"{trace_id:032x}"
    assert sampled(tid, low) == sampled(tid, low)
    assert not sampled(tid, low) or sampled(tid, high)
    assert sampled(tid, 1.0) and not sampled(tid, 0.0)


def _one_replica(traces: list[str]) -> tuple[set[str], int]:
    """Send ``traces`` to a fresh sidecar sampling at 0.5: (trace ids judged, sampled out)."""
    running = start_sidecar(sample_rate=0.5)
    stats = running.sidecar.stats
    try:
        for trace_id in traces:
            assert post(running, otlp_json(*agent_spans(trace_id)))[0] == 200
        running.wait_for(lambda: stats.get("runs_judged") + stats.get(
            "runs_skipped", "sampled_out") == len(traces), "every run decided")
    finally:
        running.stop()
    judged = {f"{s.context.trace_id:032x}" for s in running.evaluations()}
    return judged, stats.get("runs_skipped", "sampled_out")


def test_two_replicas_sample_the_same_runs() -> None:
    """The same traces reach two sidecars (or one before and after a restart): both judge the
    same runs, those ``sampled`` picks, and count the rest as sampled out."""
    ids = RandomIdGenerator()
    traces = [f"{ids.generate_trace_id():032x}" for _ in range(40)]
    chosen = {t for t in traces if sampled(t, 0.5)}
    first, second = _one_replica(traces), _one_replica(traces)
    assert first == second == (chosen, len(traces) - len(chosen))
    assert 0 < len(chosen) < len(traces)
