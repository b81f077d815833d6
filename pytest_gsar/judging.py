"""One judgement inside a test: pick the judge, replay or record, evaluate, check, report.

Shared by the ``assert_grounded`` fixture and the case-file items, so both fail the same way
and feed the same summary, baseline and report.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import pytest

from pytest_gsar.errors import GroundingFailure
from pytest_gsar.expectations import (
    check_decision,
    check_min_score,
    expectation_problems,
    unverified_abstain,
)
from pytest_gsar.records import RECORDS_KEY, JudgementRecord
from pytest_gsar.report import Redactor
from pytest_gsar.state import GSARSession, session_of

if TYPE_CHECKING:
    from gsar_otel.core.evaluator import GSAREvaluator
    from gsar_otel.core.protocol import Judge
    from gsar_otel.core.result import GSARResult
    from gsar_otel.judges.recorded.judge import RecordingJudge

MARKER: Final = "gsar"
MARKER_OPTIONS: Final = ("decision", "judge", "min_score", "record_mode")



# --- resolving a test's settings ------------------------------------------------------------------


def marker_options(item: pytest.Item) -> dict[str, Any]:
    """The keyword options of the closest ``@pytest.mark.gsar`` (empty without one)."""
    marker = item.get_closest_marker(MARKER)
    if marker is None:
        return {}
    if marker.args:
        raise GroundingFailure(f"@pytest.mark.gsar takes keyword options only "
                               f"({', '.join(MARKER_OPTIONS)}), got positional {marker.args!r}")
    unknown = sorted(set(marker.kwargs) - set(MARKER_OPTIONS))
    if unknown:
        raise GroundingFailure(f"@pytest.mark.gsar: unknown option(s) {', '.join(unknown)}; "
                               f"valid: {', '.join(MARKER_OPTIONS)}")
    return dict(marker.kwargs)


def resolve_judge(item: pytest.Item, explicit: object, marker: Mapping[str, Any]) -> Judge:
    """The judge for one judgement: explicit argument > CLI > ini > marker > session default."""
    state = session_of(item.config)
    chosen: object = explicit
    if chosen is None:
        chosen = state.options.judge
    if chosen is None:
        chosen = marker.get("judge")
    try:
        if chosen is None:
            return state.default_judge()
        if isinstance(chosen, str):
            return state.judge_named(chosen)
    except ValueError as error:
        raise GroundingFailure(str(error)) from None
    if callable(getattr(chosen, "judge", None)):
        return chosen  # type: ignore[return-value]
    raise GroundingFailure(f"judge must be a judge name or an object with an async judge() "
                           f"method, got {type(chosen).__name__}")


def cassette_path(item: pytest.Item, state: GSARSession) -> Path:
    """Where the verdicts of ``item`` are recorded.

    A test function ``test_x`` in ``tests/test_agent.py`` uses
    ``tests/cassettes/gsar/test_agent/test_x.json``; every case of ``tests/gsar_cases.jsonl``
    shares ``tests/cassettes/gsar/gsar_cases.json``.
    """
    shared = getattr(item, "gsar_cassette_name", None)
    if isinstance(shared, str):
        return state.cassette_base(item.path) / shared
    name = item.name
    cls = getattr(item, "cls", None)
    if cls is not None:
        name = f"{cls.__name__}.{name}"
    for char in '<>?%*:|"\'/\\ ':
        name = name.replace(char, "-")
    return state.cassette_base(item.path) / item.path.stem / f"{name}.json"


def note_existing_cassettes(state: GSARSession, items: list[pytest.Item]) -> None:
    """Remember whether each item's cassette exists now, before any test records into it."""
    for item in items:
        path = cassette_path(item, state)
        if path not in state.preexisting:
            state.preexisting[path] = path.exists()


def _evaluator(item: pytest.Item, judge: Judge, state: GSARSession,
               options: Mapping[str, Any], *, traced: bool) -> GSAREvaluator:
    from gsar_otel.core.evaluator import GSAREvaluator

    try:
        defaults: dict[str, Any] = state.settings().evaluator_options()
    except ValueError as error:
        raise GroundingFailure(str(error)) from None
    defaults.update(options)
    try:
        if traced:
            from gsar_otel.otel.traced import TracedEvaluator

            return TracedEvaluator(judge, function=telemetry_function(item), **defaults)
        return GSAREvaluator(judge, **defaults)
    except (TypeError, ValueError) as error:
        raise GroundingFailure(f"invalid evaluator option: {error}") from None


def telemetry_function(item: pytest.Item) -> str:
    """``gsar.function`` for judgements made by ``item``: its test file (few distinct values,
    as metric attributes need)."""
    return item.nodeid.split("::", 1)[0]


def build_evaluator(item: pytest.Item, *, judge: object = None,
                    evaluator_options: Mapping[str, Any] | None = None,
                    marker: Mapping[str, Any] | None = None,
                    ) -> tuple[GSAREvaluator, RecordingJudge | None]:
    """The evaluator for ``item``: its judge, wrapped for replay unless it is deterministic."""
    state = session_of(item.config)
    inner = resolve_judge(item, judge, marker_options(item) if marker is None else marker)
    traced = state.telemetry_listening()
    # The cases of one file share a cassette and settings: build their evaluator once.
    shares_file = isinstance(getattr(item, "gsar_cassette_name", None), str)
    cache_key = (item.path, id(inner), traced) if shares_file and not evaluator_options else None
    if cache_key is not None and cache_key in state.evaluators:
        return state.evaluators[cache_key]
    recording = wrap_for_recording(item, inner)
    used: Judge = recording or inner
    with_tier = getattr(inner, "with_model_tier", None)
    if recording is not None and callable(with_tier):
        used = with_tier(recording)  # a tiered judge: the cassette holds the model's part only
    built = _evaluator(item, used, state, evaluator_options or {}, traced=traced), recording
    if cache_key is not None:
        state.evaluators[cache_key] = built
    return built


def wrap_for_recording(item: pytest.Item, judge: Judge) -> RecordingJudge | None:
    """``judge`` behind the test's cassette, or None for a deterministic judge."""
    from gsar_otel.judges.recorded.judge import RecordingJudge, is_deterministic
    from gsar_otel.judges.recorded.store import CassetteError

    if isinstance(judge, RecordingJudge) or is_deterministic(judge):
        return None
    tier = getattr(judge, "model_tier", None)
    if callable(getattr(judge, "with_model_tier", None)) and tier is not None:
        judge = tier  # a tiered judge: record its model tier, the offline tier is replayable
    state = session_of(item.config)
    mode = state.record_mode_for(item)  # the test's marker, else the session's
    try:
        store = state.store(cassette_path(item, state), mode)
    except CassetteError as error:
        raise GroundingFailure(str(error)) from None
    return RecordingJudge(judge, store, mode, identity=state.identity(judge),
                          reuse_guard=not state.options.recheck)


# --- judging -------------------------------------------------------------------------------------


def judge_in_test(
    item: pytest.Item,
    synthesis: Any,
    evidence: Any,
    *,
    min_score: float | None = None,
    decision: str | None = None,
    judge: object = None,
    evaluator_options: Mapping[str, Any] | None = None,
    origin: str = "assert_grounded",
    defer_save: bool = False,
) -> GSARResult:
    """Judge ``synthesis`` against ``evidence`` for ``item`` and fail it when it falls short.

    Passing rule: the final decision must equal ``decision`` (default ``proceed``), and with
    ``min_score`` S must also reach it: a threshold adds to the decision check, so an answer
    that a policy caps at regenerate does not pass on its S. ``decision="any"`` turns the
    decision check off by name (then the judge must still not abstain). With a baseline, S may
    not fall more than the tolerance below the stored S and the decision may not get worse.

    ``defer_save`` leaves new recordings for the plugin to write after the item (a case file
    writes its shared cassette once, after its last case).

    Raises:
        GroundingFailure: the judgement falls short, the verdict is not recorded, or a setting is
            invalid.
    """
    __tracebackhide__ = True
    from gsar_otel.core.evaluator import GSAREvaluator
    from gsar_otel.core.evidence import coerce_evidence
    from gsar_otel.judges.recorded.store import CassetteError

    state = session_of(item.config)
    marker = marker_options(item)
    min_score = check_min_score(min_score, f"{origin} min_score")
    if min_score is None:
        min_score = state.options.min_score
    if min_score is None:
        min_score = check_min_score(marker.get("min_score"), "@pytest.mark.gsar min_score")
    decision = check_decision(decision, f"{origin} decision")
    if decision is None:
        decision = check_decision(marker.get("decision"), "@pytest.mark.gsar decision")

    if not isinstance(synthesis, str):
        raise GroundingFailure(f"{origin}: synthesis must be a str, got "
                               f"{type(synthesis).__name__}")
    try:
        evidence = coerce_evidence(evidence)
    except ValueError as error:
        raise GroundingFailure(f"{origin}: {error}") from None
    evaluator, recording = build_evaluator(item, judge=judge, evaluator_options=evaluator_options,
                                           marker=marker)
    if recording is not None:
        recording.misses.clear()
        recording.cassette_errors.clear()
    # The secret environment values are read once per judgement, for every text it masks.
    redactor = Redactor()
    key = _next_key(item, redactor.values)
    # Exceptions from the test's own callbacks (regenerate_fn, replan_fn) propagate unchanged.
    result = state.run(evaluator.evaluate(report_synthesis=synthesis, evidence_corpus=evidence))
    if recording is not None:
        if recording.cassette_errors:
            raise GroundingFailure(str(recording.cassette_errors[0]))
        if recording.store.dirty:
            if defer_save:
                state.dirty_stores.add(recording.store)
            else:
                try:
                    recording.store.save()
                except CassetteError as error:
                    raise GroundingFailure(str(error)) from None
    if type(evaluator) is GSAREvaluator:
        # Untraced (nothing receives telemetry): result plugins still hear of the judgement.
        from gsar_otel.plugins import notify_result

        notify_result(result, telemetry_function(item))
    if recording is not None and recording.misses:
        miss = recording.misses[0]
        _keep(item, JudgementRecord(key=key, nodeid=item.nodeid, passed=False,
                                    problems=[miss.message], judge=recording.name,
                                    missing=miss.message))
        raise GroundingFailure(miss.message)

    problems = expectation_problems(result, min_score=min_score, decision=decision,
                                    strict=state.options.strict)
    record = _record(item, key, result, state, problems, evaluator, redactor)
    _keep(item, record)
    item.user_properties.append(("gsar_score", f"{result.final_score:.4f}"))
    item.user_properties.append(("gsar_decision", str(result.final_decision)))
    item.config.hook.pytest_gsar_result(item=item, result=result)
    if record.problems:
        raise GroundingFailure(failure_message(result, record, redactor))
    return result


def _next_key(item: pytest.Item, secrets: tuple[str, ...]) -> str:
    from gsar_otel.core.redact import redact_text

    records = item.stash.get(RECORDS_KEY, [])
    key = item.nodeid if not records else f"{item.nodeid}#{len(records) + 1}"
    # A parametrized id can hold the secret it was given: keys reach the baseline and report.
    return redact_text(key, secrets)


def _keep(item: pytest.Item, record: JudgementRecord) -> None:
    item.stash.setdefault(RECORDS_KEY, []).append(record)


def _record(item: pytest.Item, key: str, result: GSARResult, state: GSARSession,
            problems: list[str], evaluator: GSAREvaluator, redactor: Redactor
            ) -> JudgementRecord:
    record = JudgementRecord(
        key=key, nodeid=item.nodeid, passed=True, score=result.final_score,
        decision=str(result.final_decision), counts=result.final_partition.counts(),
        judge=_judge_label(result), unverified=unverified_abstain(result))
    if state.options.baseline is not None:
        from pytest_gsar.baseline import compare

        entry = state.baseline().get(key)
        if entry is not None:
            record.baseline_score = entry.score
            record.baseline_decision = entry.decision
            regression = compare(entry, score=result.final_score,
                                 decision=str(result.final_decision),
                                 tolerance=state.options.tolerance, judge=record.judge)
            record.regressed = bool(regression)
            if not state.options.update_baseline:
                problems = [*problems, *regression]
    record.problems = [redactor(problem, "explanation") for problem in problems]
    record.passed = not problems
    if state.options.report is not None:
        record.details = result_details(result, evaluator, redactor)
    return record


def _judge_label(result: GSARResult) -> str:
    if result.judge_model:
        return f"{result.judge_name} ({result.judge_model})"
    return result.judge_name


def _adjustment_kinds(result: GSARResult) -> dict[str, list[str]]:
    kinds: dict[str, list[str]] = {}
    for adjustment in result.adjustments:
        kinds.setdefault(adjustment.claim, []).append(adjustment.kind)
    return kinds


def result_details(result: GSARResult, evaluator: GSAREvaluator,
                   mask: Redactor | None = None) -> dict[str, Any]:
    """The answer, evidence and claims of ``result`` as JSON data, for the HTML report."""
    from gsar_otel.core.scoring import claim_weight
    from pytest_gsar.report_meta import judging_context

    kinds = _adjustment_kinds(result)
    mask = mask or Redactor()
    return {
        "synthesis": mask(result.final_report, "synthesis"),
        "evidence": [{"id": mask(e.id, "evidence"), "type": str(e.type),
                      "content": mask(e.content, "evidence")}
                     for e in result.final_evidence.items],
        "claims": [{"bucket": bucket, "text": mask(claim.text, "claim"), "type": str(claim.type),
                    "refs": list(claim.evidence_refs), "adjustments": kinds.get(claim.text, []),
                    "weight": round(claim_weight(claim, evaluator.weight_map,
                                                 evaluator.default_unknown), 4)}
                   for bucket, claims in result.final_partition.buckets() for claim in claims],
        "explanation": mask(result.final_judge_output.explanation, "explanation"),
        "degraded": result.degraded,
        **judging_context(evaluator, mask),  # the judge and thresholds that decided
    }


def failure_message(result: GSARResult, record: JudgementRecord,
                    mask: Redactor | None = None) -> str:
    """The readable explanation of a failed judgement: S, decision, every claim not grounded."""
    from gsar_otel.core.result import shortfall_lines

    counts = record.counts
    lines = [
        f"grounding check failed: {'; '.join(record.problems)}",
        f"S = {result.final_score:.2f}, decision = {result.final_decision}, judge = {record.judge}"
        f", claims G{counts.get('grounded', 0)} U{counts.get('ungrounded', 0)}"
        f" X{counts.get('contradicted', 0)} K{counts.get('complementary', 0)}",
    ]
    if result.cap_note:
        lines.append(result.cap_note)
    if record.baseline_score is not None:
        delta = result.final_score - record.baseline_score
        lines.append(f"baseline: S {record.baseline_score:.2f} -> {result.final_score:.2f} "
                     f"({delta:+.2f}), decision {record.baseline_decision} -> "
                     f"{result.final_decision}")
    kinds = _adjustment_kinds(result)
    lines.extend(shortfall_lines(
        result.final_partition,
        lambda text: f" [adjusted: {', '.join(kinds[text])}]" if text in kinds else ""))
    if result.final_judge_output.abstained:
        lines.append(f"the judge abstained: {result.final_judge_output.abstain_reason}")
    elif result.final_judge_output.explanation:
        lines.append(f"the judge said: {result.final_judge_output.explanation}")
    # The message reaches the terminal and the JUnit XML: claims and reasons quote the answer.
    return (mask or Redactor())("\n".join(lines), "explanation")
