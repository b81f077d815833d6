"""Evidence types: a claim is typed by the unit its values come from, and by its item's type."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gsar_otel.core.evidence import Evidence, EvidenceSet
from gsar_otel.core.model import EvidenceType
from gsar_otel.judges.staged import StagedJudge
from gsar_otel.judges.staged.features import answer_context
from gsar_otel.judges.staged.index import build_index, source_type
from gsar_otel.judges.staged.judge import Analysis, analyse
from gsar_otel.judges.staged.textual import facts_of

HOSTS = st.sampled_from(["edge-lb-3", "db-prod-1", "api-7", "cache-2a", "gpu-node-5"])
METRICS = st.sampled_from([
    ("cpu_pct", "CPU on {host} reached {value}%", "{value}"),
    ("p99_ms", "The p99 latency on {host} was {value} ms", "{value}"),
    ("rps", "The request rate on {host} was {value} req/s", "{value}"),
    ("mem_used_gb", "Memory used on {host} reached {value} GB", "{value}"),
])
VALUES = st.integers(min_value=2, max_value=9999)
TIMES = st.tuples(st.integers(0, 23), st.integers(0, 59), st.integers(0, 59))
NOISE = st.sampled_from([
    "ALERT HighErrorRate firing for {host} since {time} UTC (threshold 5%)",
    "2024-05-01 {time} UTC ERROR {host}: request failed status=500 error=\"upstream timeout\"",
    "2024-05-01 {time} UTC WARN kernel: memory pressure on {host}, request queue growing",
])


def analysed(claim: str, evidence: EvidenceSet) -> Analysis:
    index = build_index(evidence)
    return analyse(claim, index, answer_context(1, facts_of(claim), index))


@given(HOSTS, METRICS, VALUES, TIMES, NOISE, st.booleans(),
       st.sampled_from([EvidenceType.TOOL_MATCH, EvidenceType.SPECIFIC_DATA]))
def test_a_claim_restating_one_row_is_typed_by_that_row(
        host: str, metric: tuple[str, str, str], value: int, clock: tuple[int, int, int],
        noise: str, noise_first: bool, row_type: EvidenceType) -> None:
    # Another unit sharing the claim's host and words never turns the restated row into a
    # synthesis; the row's item type (default or recorded) is the claim's type.
    key, phrase, shown = metric
    time = "{:02d}:{:02d}:{:02d}".format(*clock)
    row = Evidence("E1", f"host={host} {key}={shown.format(value=value)} "
                         f"ts=2024-05-01T{time}Z", row_type)
    other = Evidence("E2", noise.format(host=host, time=time))
    evidence = EvidenceSet(items=(other, row) if noise_first else (row, other))
    claim = phrase.format(host=host, value=value) + f" at {time} UTC."
    analysis = analysed(claim, evidence)
    assert analysis.sources.values is row_type


@given(HOSTS, TIMES)
def test_a_log_line_is_tool_output_and_an_alert_a_signal(host: str,
                                                         clock: tuple[int, int, int]) -> None:
    time = "{:02d}:{:02d}:{:02d}".format(*clock)
    log = f"2024-05-01 {time} UTC INFO deploy-bot: pushed cfg-7781 to {host}"
    alert = f"ALERT HighErrorRate firing for {host} since {time} UTC (threshold 5%)"
    evidence = EvidenceSet.coerce([log])
    assert analysed(f"deploy-bot pushed cfg-7781 to {host} at {time} UTC.",
                    evidence).sources.values is EvidenceType.TOOL_MATCH
    evidence = EvidenceSet.coerce([alert])
    assert evidence.items[0].type is EvidenceType.SIGNAL_MATCH  # coercion infers it
    assert analysed(f"The HighErrorRate alert for {host} fired at {time} UTC.",
                    evidence).sources.values is EvidenceType.SIGNAL_MATCH


def test_a_json_result_is_a_structured_step_output() -> None:
    evidence = EvidenceSet.coerce(['{"service": "checkout", "version": "v2.3.1", "replicas": 3}'])
    output = StagedJudge().judge_now(synthesis="checkout runs version v2.3.1.", evidence=evidence)
    assert [c.type for c in output.grounded_claims] == [EvidenceType.SPECIFIC_DATA]


def test_source_type_rules() -> None:
    tool, signal, data = (EvidenceType.TOOL_MATCH, EvidenceType.SIGNAL_MATCH,
                          EvidenceType.SPECIFIC_DATA)
    assert source_type(tool, "row", False) is tool
    assert source_type(tool, "log", False) is tool
    assert source_type(tool, "row", True) is data
    assert source_type(tool, "prose", False) is data
    assert source_type(signal, "signal", False) is signal
    assert source_type(data, "row", False) is data  # a recorded type wins
    assert source_type(EvidenceType.DOMAIN, "prose", False) is EvidenceType.DOMAIN


def test_a_claim_whose_values_no_single_unit_holds_has_no_value_source() -> None:
    evidence = EvidenceSet.coerce(["host=api-7 cpu_pct=97", "host=api-7 p99_ms=850"])
    analysis = analysed("CPU on api-7 reached 97% while p99 latency was 850 ms.", evidence)
    assert analysis.sources.values is None
    assert analysis.alignment.value_units == frozenset()


def test_a_bracket_tagged_row_is_tool_output_not_json() -> None:
    evidence = EvidenceSet.coerce(["[web-1] status=500 path=/api/cart latency_ms=830"])
    index = build_index(evidence)
    assert [u.source for u in index.units] == [EvidenceType.TOOL_MATCH]
    evidence = EvidenceSet.coerce(['[{"host": "web-1", "status": 500}]'])
    assert [u.source for u in build_index(evidence).units] == [EvidenceType.SPECIFIC_DATA]
