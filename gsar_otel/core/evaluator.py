"""GSAR's outer loop (Algorithm 1): judge, score, decide, recover, within a bounded budget.

Fixes over the reference loop: the round cap is a setting (``max_rounds``), regeneration has
its own budget after which a further regenerate escalates to replan, a regenerate that returns
the same text escalates at once, a replan that changes nothing ends the loop instead of
re-judging, ``degraded`` is never set together with a final proceed, a degraded result keeps the
best-scoring iteration, a deadline bounds the whole loop, and a judge that raises becomes an
abstain that names the error type. Exceptions from the caller's own callbacks propagate unchanged.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.integrity import INVALID_CHARACTERS, SYNTHESIS_TRUNCATED, Adjustment
from gsar_otel.core.judge_round import judge_and_check
from gsar_otel.core.loop import Run
from gsar_otel.core.model import (
    DEFAULT_UNKNOWN_WEIGHT,
    Decision,
    GSARThresholds,
    check_unit_interval,
)
from gsar_otel.core.protocol import Judge, judge_model
from gsar_otel.core.redact import encodable_inputs
from gsar_otel.core.result import (
    DEFAULT_MAX_SYNTHESIS_CHARS,
    Action,
    GSAREvaluation,
    GSARResult,
    RegenerateFn,
    ReplanFn,
)
from gsar_otel.core.scoring import (
    ConclusionPolicy,
    ContradictionPolicy,
    DisputePolicy,
    WeightMapInput,
    apply_conclusion_policy,
    apply_contradiction_policy,
    apply_dispute_policy,
    check_conclusion_policy,
    check_contradiction_policy,
    check_dispute_policy,
    decide,
    gsar_score,
    resolve_weight_map,
)
from gsar_otel.runtime.loop import run_sync

if TYPE_CHECKING:
    from gsar_otel.config import GSARSettings


class GSAREvaluator:
    """Runs Algorithm 1: judge an answer, and regenerate or replan until it proceeds or the
    budget ends.

    Args:
        judge: any Judge.
        regenerate_fn: ``(synthesis, judge_output) -> new synthesis``, sync or async.
        replan_fn: ``(synthesis, evidence, judge_output) -> (synthesis, evidence)``, sync or async.
        thresholds: decision thresholds (default: the settings, else 0.80 / 0.65).
        contradiction_penalty: rho in [0, 1] (default: the settings, else 0.5).
        weight_map: weights for some evidence types, merged over the defaults.
        k_max: replan budget (>= 0; default: the settings, else 2).
        max_rounds: most judge rounds in all (>= 1); default ``1 + k_max + max_regenerations``.
        max_regenerations: regenerate budget (>= 0); past it a regenerate escalates to replan.
        deadline_s: wall-clock budget for the whole evaluation, in seconds (default: none). A
            judge round (judge and integrity guard) or an async callback still running at the
            deadline is given up (a judge round becomes an abstain with
            ``judge_error="DeadlineExceeded"``); a synchronous judge runs on a worker thread, so
            the wait ends on time and the abandoned work finishes in the pool
            (:mod:`gsar_otel.core.judge_round`); a sync callback cannot be interrupted, so the loop
            stops after it returns. Either way the result is degraded with
            ``degraded_reason="deadline"``.
        default_unknown: weight of an evidence type the map does not know.
        max_synthesis_chars: longest answer judged; longer ones are cut (recorded).
        conclusion_policy: ``"cap"`` (default): an ungrounded or contradicted claim that states
            a cause or a conclusion caps the decision at regenerate, however high S is;
            ``"score"``: the decision follows S alone (the paper's behaviour).
        contradiction_policy: ``"cap"`` (default): a contradicted claim of a tool-backed type
            (``tool_match``, ``specific_data``, ``signal_match``) caps the decision at
            regenerate, however high S is; ``"score"``: the decision follows S alone. Both
            policies cap only a ``proceed``, and S is the paper's formula under either.
        penalty_weight_map: weights of ungrounded and contradicted claims, merged over
            ``weight_map``; by default penalties weigh what support weighs (GSAR-SPEC §11.7).
        dispute_policy: ``"flag"`` (default): a grounded claim the offline engine disputes
            (``Claim.disputed``, set by a model judge's second opinion) is reported and counted;
            ``"cap"``: it caps the decision at regenerate, however high S is.
        settings: where unset arguments come from; default :func:`gsar_otel.config.get_settings`
            (the ``GSAR_*`` variables and the ``GSAR_CONFIG`` file), so the evaluator, ``gsar
            judge``, ``@grounded`` and the pytest plugin apply the same settings. Arguments
            given explicitly win.

    An answer given no evidence is not judged: with no ``replan_fn`` (which may gather some) the
    result is an abstain, degraded with the reason ``no_evidence``, and the judge is not called.

    With neither callback the evaluator judges once and reports the decision. With one, a
    decision for the missing tier escalates to the other where it can, else ends degraded.

    Raises:
        ValueError: any setting out of range, naming the setting and the allowed values
            (:class:`gsar_otel.config.SettingsError` for an invalid variable or settings file).
    """

    no_evidence_hint: str = ""
    """The abstain reason of an answer given no evidence (default: the generic
    :data:`~gsar_otel.core.result.NO_EVIDENCE_EXPLANATION`); ``@grounded`` names its wirings."""

    def __init__(
        self,
        judge: Judge,
        regenerate_fn: RegenerateFn | None = None,
        replan_fn: ReplanFn | None = None,
        *,
        thresholds: GSARThresholds | None = None,
        contradiction_penalty: float | None = None,
        weight_map: WeightMapInput | None = None,
        k_max: int | None = None,
        max_rounds: int | None = None,
        max_regenerations: int | None = None,
        deadline_s: float | None = None,
        default_unknown: float = DEFAULT_UNKNOWN_WEIGHT,
        max_synthesis_chars: int = DEFAULT_MAX_SYNTHESIS_CHARS,
        conclusion_policy: ConclusionPolicy | None = None,
        contradiction_policy: ContradictionPolicy | None = None,
        penalty_weight_map: WeightMapInput | None = None,
        settings: GSARSettings | None = None,
        dispute_policy: DisputePolicy | None = None,
    ) -> None:
        if not callable(getattr(judge, "judge", None)):
            raise ValueError(f"judge must have an async judge(*, synthesis, evidence) method, "
                             f"got {type(judge).__name__}")
        for name, fn in (("regenerate_fn", regenerate_fn), ("replan_fn", replan_fn)):
            if fn is not None and not callable(fn):
                raise ValueError(f"{name} must be callable or None, got {type(fn).__name__}")
        if thresholds is not None and not isinstance(thresholds, GSARThresholds):
            raise ValueError(
                f"thresholds must be a GSARThresholds, got {type(thresholds).__name__}")
        # A caller that sets every scalar (as the decorator and the plugin do, from their own
        # settings) is not second-guessed by the process's settings.
        explicit = None not in (thresholds, contradiction_penalty, k_max, max_regenerations,
                                conclusion_policy, contradiction_policy)
        configured = _NO_SETTINGS if explicit and settings is None else _configured(settings)
        self.judge = judge
        self.regenerate_fn = regenerate_fn
        self.replan_fn = replan_fn
        self.thresholds = thresholds or configured["thresholds"]
        self.contradiction_penalty = check_unit_interval(
            "contradiction_penalty", configured["contradiction_penalty"]
            if contradiction_penalty is None else contradiction_penalty)
        self.weight_map = resolve_weight_map(
            configured["weight_map"] if weight_map is None else weight_map)
        self.penalty_weight_map = resolve_weight_map(
            configured["penalty_weight_map"] if penalty_weight_map is None
            else penalty_weight_map, base=self.weight_map, name="penalty_weight_map")
        self.conclusion_policy = check_conclusion_policy(
            configured["conclusion_policy"] if conclusion_policy is None else conclusion_policy)
        self.contradiction_policy = check_contradiction_policy(
            configured["contradiction_policy"] if contradiction_policy is None
            else contradiction_policy)
        self.dispute_policy = check_dispute_policy(
            configured.get("dispute_policy", "flag") if dispute_policy is None
            else dispute_policy)
        self.default_unknown = check_unit_interval("default_unknown", default_unknown)
        self.k_max = _non_negative_int("k_max", configured["k_max"] if k_max is None else k_max)
        self.max_regenerations = _non_negative_int(
            "max_regenerations", configured["max_regenerations"] if max_regenerations is None
            else max_regenerations)
        default_rounds = 1 + self.k_max + self.max_regenerations
        self.max_rounds = default_rounds if max_rounds is None else _non_negative_int(
            "max_rounds", max_rounds)
        if self.max_rounds < 1:
            raise ValueError(f"max_rounds must be >= 1, got {max_rounds!r}")
        if deadline_s is not None and (isinstance(deadline_s, bool)
                                       or not isinstance(deadline_s, int | float)
                                       or not math.isfinite(deadline_s) or deadline_s <= 0):
            raise ValueError(f"deadline_s must be a positive number of seconds, got {deadline_s!r}")
        self.deadline_s = deadline_s
        self.max_synthesis_chars = _non_negative_int("max_synthesis_chars", max_synthesis_chars)

    # -- public entry points --------------------------------------------------------------------

    async def evaluate(self, *, report_synthesis: str, evidence_corpus: Any = None) -> GSARResult:
        """Judge ``report_synthesis`` against ``evidence_corpus`` and recover while budget lasts.

        Raises:
            ValueError: the synthesis is not a string or the evidence cannot be coerced.
            Exception: whatever ``regenerate_fn`` or ``replan_fn`` raise, unchanged.
        """
        if not isinstance(report_synthesis, str):
            raise ValueError(f"report_synthesis must be a str, got "
                             f"{type(report_synthesis).__name__}")
        evidence = EvidenceSet.coerce(evidence_corpus)
        return await Run(self).run(report_synthesis, evidence)

    def evaluate_sync(self, *, report_synthesis: str, evidence_corpus: Any = None) -> GSARResult:
        """:meth:`evaluate` for synchronous callers (runs its own event loop, or a worker thread
        when called from inside a running loop)."""
        return run_sync(self.evaluate(report_synthesis=report_synthesis,
                                      evidence_corpus=evidence_corpus))

    # -- one round ------------------------------------------------------------------------------

    async def judge_round(
        self, synthesis: str, evidence: EvidenceSet, *, iteration: int, action: Action,
        timeout_s: float | None = None,
    ) -> GSAREvaluation:
        """Judge once, run the integrity guard, score and decide; judge and guard together stop
        at ``timeout_s`` (see :mod:`gsar_otel.core.judge_round`)."""
        notes: list[Adjustment] = []
        judged = synthesis
        if len(judged) > self.max_synthesis_chars:
            notes.append(Adjustment(
                kind=SYNTHESIS_TRUNCATED, claim=judged[:80], from_bucket=None, to_bucket=None,
                reason=f"answer of {len(judged)} characters cut to {self.max_synthesis_chars}"))
            judged = judged[: self.max_synthesis_chars]
        judged, judged_evidence, replaced = encodable_inputs(judged, evidence)
        if replaced:
            notes.append(Adjustment(
                kind=INVALID_CHARACTERS, claim=judged[:80], from_bucket=None, to_bucket=None,
                reason=f"{replaced} lone surrogate(s) in the answer or evidence replaced by "
                       f"U+FFFD before judging"))
        verdict, report = await judge_and_check(
            self.judge, judged, judged_evidence, timeout_s=timeout_s, weight_map=self.weight_map,
            contradiction_penalty=self.contradiction_penalty, default_unknown=self.default_unknown)
        output = report.output
        partition = output.to_partition()
        score = gsar_score(partition, weight_map=self.weight_map,
                           contradiction_penalty=self.contradiction_penalty,
                           default_unknown=self.default_unknown,
                           penalty_weight_map=self.penalty_weight_map)
        conclusion_capped = contradiction_capped = dispute_capped = False
        if output.abstained:
            decision = Decision.ABSTAIN
        else:
            # Each policy reads the decision S gives, so a result names both when both apply.
            plain = decide(score, thresholds=self.thresholds)
            decision, conclusion_capped = apply_conclusion_policy(
                plain, partition, self.conclusion_policy)
            capped, contradiction_capped = apply_contradiction_policy(
                plain, partition, self.contradiction_policy)
            if contradiction_capped:
                decision = capped
            disputed, dispute_capped = apply_dispute_policy(plain, partition, self.dispute_policy)
            if dispute_capped:
                decision = disputed
        return GSAREvaluation(
            iteration=iteration, score=score, decision=decision, judge_output=output,
            report_synthesis=synthesis, evidence_corpus=evidence, action=action,
            adjustments=(*notes, *verdict.notes, *report.adjustments),
            judge_error=verdict.error_type,
            judge_duration_s=verdict.duration_s, judge_usage=verdict.usage,
            judge_model=verdict.model or judge_model(self.judge),
            conclusion_capped=conclusion_capped, contradiction_capped=contradiction_capped,
            dispute_capped=dispute_capped, tiers=verdict.tiers,
        )


_NO_SETTINGS: dict[str, Any] = {"weight_map": None, "penalty_weight_map": None}


def _configured(settings: GSARSettings | None) -> dict[str, Any]:
    """The evaluator options of ``settings`` (default: the process's settings).

    Raises:
        SettingsError: the ``GSAR_*`` variables or the settings file are invalid.
    """
    if settings is None:
        from gsar_otel.config import get_settings

        settings = get_settings()
    return settings.evaluator_options()


def _non_negative_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    return value
