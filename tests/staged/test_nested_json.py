"""A JSON record is one record however deeply its fields nest: a pod's ``metadata.name`` and its
``status.phase`` are one pod's, its containers' ``restartCount`` its own, a Prometheus sample's
value its series', an Alertmanager alert's ``labels`` and ``status`` one alert's. Each is read of
its own record, never of another record of the same list."""

from __future__ import annotations

import json

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()
PHASES = ("Running", "Pending", "Failed", "Succeeded")


def buckets(answer: str, items: list[str]) -> list[str]:
    return [v.bucket for v in judge.explain(synthesis=answer,
                                            evidence=EvidenceSet.coerce(items))]


def _pod(name: str, phase: str, restarts: int) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "prod", "labels": {"app": "checkout"}},
            "status": {"phase": phase, "containerStatuses": [
                {"name": "app", "ready": phase == "Running", "restartCount": restarts}]}}


pods = st.lists(st.tuples(st.sampled_from(PHASES), st.integers(0, 9)), min_size=1, max_size=4)


@settings(max_examples=100)
@given(states=pods, pick=st.integers(0, 3), said=st.sampled_from(PHASES), listed=st.booleans())
@example(states=[("Running", 0), ("Pending", 3)], pick=0, said="Pending", listed=True)
def test_a_pods_phase_is_its_own(states: list[tuple[str, int]], pick: int, said: str,
                                 listed: bool) -> None:
    records = [_pod(f"checkout-api-7d9f-{i}", phase, n) for i, (phase, n) in enumerate(states)]
    items = [json.dumps({"kind": "List", "items": records})] if listed else [
        json.dumps(r) for r in records]
    chosen = pick % len(states)
    claim = f"Pod checkout-api-7d9f-{chosen} is {said}."
    verdict = buckets(claim, items)
    if said == states[chosen][0]:
        assert verdict == ["grounded"], (claim, states)
    else:  # another phase: never grounded, contradicted where another pod holds it
        assert verdict != ["grounded"], (claim, states)
        if any(phase == said for phase, _ in states):
            assert verdict == ["contradicted"], (claim, states)


@settings(max_examples=80)
@given(states=pods, pick=st.integers(0, 3), off=st.sampled_from([0, 0, 1, 2]),
       listed=st.booleans())
def test_a_containers_restarts_are_its_pods(states: list[tuple[str, int]], pick: int, off: int,
                                            listed: bool) -> None:
    records = [_pod(f"checkout-api-7d9f-{i}", phase, n) for i, (phase, n) in enumerate(states)]
    items = [json.dumps({"items": records})] if listed else [json.dumps(r) for r in records]
    chosen = pick % len(states)
    said = states[chosen][1] + off
    claim = f"Pod checkout-api-7d9f-{chosen} has restarted {said} times."
    verdict = buckets(claim, items)
    assert (verdict == ["grounded"]) == (off == 0), (claim, states)


@settings(max_examples=60)
@given(values=st.lists(st.integers(10, 99), min_size=2, max_size=5, unique=True),
       pick=st.integers(0, 4), other=st.integers(0, 4))
def test_a_prometheus_sample_is_its_series(values: list[int], pick: int, other: int) -> None:
    result = [{"metric": {"__name__": "error_ratio", "instance": f"api-{i}", "job": "checkout"},
               "value": [1714557600.0, f"0.{v}"]} for i, v in enumerate(values)]
    items = [json.dumps({"status": "success",
                         "data": {"resultType": "vector", "result": result}})]
    chosen, held = pick % len(values), other % len(values)
    claim = f"The error ratio on api-{chosen} was 0.{values[held]}."
    # the sample is the error ratio its series' name says: another value of it on the same
    # instance is contradicted
    expected = ["grounded"] if chosen == held else ["contradicted"]
    assert buckets(claim, items) == expected, (claim, values)


ALERTS = [("warning", "active"), ("critical", "suppressed")]


@settings(max_examples=40)
@given(order=st.permutations(range(2)), pick=st.integers(0, 1),
       said=st.sampled_from(["critical", "a warning", "active", "suppressed"]))
def test_an_alerts_labels_and_status_are_one_alert(order: list[int], pick: int,
                                                   said: str) -> None:
    alerts = [{"labels": {"alertname": "HighErrorRate", "service": f"svc-{i}", "severity": sev},
               "status": {"state": state}, "startsAt": "2024-05-01T10:02:00Z"}
              for i, (sev, state) in enumerate(ALERTS)]
    items = [json.dumps([alerts[i] for i in order])]
    claim = f"HighErrorRate for svc-{pick} is {said}."
    holds = said.removeprefix("a ") in ALERTS[pick]
    assert buckets(claim, items) == (["grounded"] if holds else ["contradicted"]), claim
