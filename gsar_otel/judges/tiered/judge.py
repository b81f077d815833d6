"""TieredJudge: the offline records engine first, the model only for what it cannot check.

One round:

1. The records engine (:class:`~gsar_otel.judges.records.judge.RecordsJudge`) splits the answer
   into claims and checks each against the evidence. A claim it verifies, contradicts or finds
   absent (a value or a name found nowhere), and a recommendation, is **settled**.
2. The claims it leaves unverified (nothing in them it can read against a record) go to the
   model tier in **one** call, at most ``max_escalated_claims`` of them (the rest stay
   unverified, counted), with only the evidence items aligned to them (:mod:`.alignment`) and
   the settled claims as context, marked as not to be judged (:mod:`.model_tier`).
3. The model's verdicts are matched back by claim text (:mod:`.merge`): a claim it leaves out is
   ungrounded, a claim it adds or rewords is reported, never merged. Its grounded claims get the
   offline second opinion (:mod:`.dispute`).
4. Both tiers' claims make one partition, one S and one decision; each claim says which tier
   judged it (``Claim.judged_by``).

No model call is made when every claim settles offline. Without a model tier (no API key) the
judge is the offline judge and says so: the verdict's explanation, the abstain reason when it
abstains, and ``gsar.judge.model_tier.skipped=no_api_key`` on the span.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import replace
from typing import Final, Literal

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.integrity import Adjustment
from gsar_otel.core.model import Bucket, EvidenceType, JudgeOutput, safe_default_judge_output
from gsar_otel.core.protocol import Judge, JudgeVerdict, TierCounts, run_judge
from gsar_otel.judges.records.judge import ClaimOutcome, Outcome, RecordsJudge, assemble
from gsar_otel.judges.tiered.alignment import DEFAULT_MAX_BYTES, DEFAULT_MAX_ITEMS, Escalated, align
from gsar_otel.judges.tiered.dispute import dispute_of
from gsar_otel.judges.tiered.merge import (
    ESCALATION_CAPPED,
    MODEL_TIER_FAILED,
    match,
    model_type,
)
from gsar_otel.judges.tiered.model_tier import ClaimsModelJudge, ClaimsTask

logger = logging.getLogger(__name__)

DEFAULT_MAX_ESCALATED_CLAIMS: Final = 16
SETTLED: Final = frozenset({"verified", "contradicted", "absent", "advice"})
"""Offline outcomes that settle a claim; ``unverified`` escalates it."""
NO_API_KEY: Final = "no_api_key"
ALL_SETTLED: Final = "all_settled"
NO_MODEL_NOTICE: Final = ("no model tier (ANTHROPIC_API_KEY is not set): the tiered judge "
                          "judges offline only")
_OUTCOME_OF: Final[dict[Bucket, Outcome]] = {
    "grounded": "verified", "contradicted": "contradicted", "ungrounded": "absent",
    "complementary": "advice"}
JudgedBy = Literal["offline", "model"]


def _configured_cap() -> int:
    from gsar_otel.config import get_settings

    try:
        return get_settings().max_escalated_claims
    except ValueError:
        return DEFAULT_MAX_ESCALATED_CLAIMS


class TieredJudge:
    """The offline judge first, a model judge for the claims it leaves unverified.

    Args:
        model_judge: The model tier: an :class:`~gsar_otel.judges.anthropic.judge.AnthropicJudge`
            (or a judge of claim tasks, such as a recording of one). Default: an
            ``AnthropicJudge(model=model)`` when an API key is configured, else none (offline
            only, said in every verdict).
        model: Claude model id for the default model tier.
        offline: The offline tier (default ``RecordsJudge()``).
        max_escalated_claims: Most claims sent to the model per evaluation (default the
            ``max_escalated_claims`` setting, ``GSAR_MAX_ESCALATED_CLAIMS``, else 16); 0 sends
            none.
        max_items, max_bytes: Bounds on the evidence sent with them.
        second_opinion: Check the model-grounded claims offline (``Claim.disputed``).

    Raises:
        ValueError: a bound is negative or not an integer.
    """

    name: Final = "tiered"
    checks_values = True
    """The offline tier checks (and derives) typed values itself; the model-grounded claims get
    the offline second opinion instead of the guard's plainer number check."""

    def __init__(self, model_judge: object | None = None, *, model: str | None = None,
                 offline: RecordsJudge | None = None, max_escalated_claims: int | None = None,
                 max_items: int = DEFAULT_MAX_ITEMS, max_bytes: int = DEFAULT_MAX_BYTES,
                 second_opinion: bool = True, use_model: bool = True) -> None:
        cap = _configured_cap() if max_escalated_claims is None else max_escalated_claims
        for label, value in (("max_escalated_claims", cap), ("max_items", max_items),
                             ("max_bytes", max_bytes)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{label} must be an integer >= 0, got {value!r}")
        self.max_escalated_claims = cap
        self.max_items, self.max_bytes = max_items, max_bytes
        self.second_opinion = bool(second_opinion)
        self.offline = offline or RecordsJudge()
        self.offline_reason = NO_API_KEY
        """Why there is no model tier, when there is none (``gsar.judge.model_tier.skipped``)."""
        self.model_tier: Judge | None = None
        if model_judge is None and use_model:
            from gsar_otel.judges.anthropic.judge import AnthropicJudge

            try:
                model_judge = AnthropicJudge(model=model)
            except ValueError:
                logger.warning("gsar: %s", NO_MODEL_NOTICE)
        if model_judge is not None:
            from gsar_otel.judges.anthropic.judge import AnthropicJudge

            self.model_tier = (ClaimsModelJudge(model_judge)
                               if isinstance(model_judge, AnthropicJudge) else model_judge)  # type: ignore[assignment]

    # -- identity ---------------------------------------------------------------------------------

    @property
    def deterministic(self) -> bool:
        """True without a model tier: the verdict is the offline engine's, every time."""
        return self.model_tier is None

    @property
    def model(self) -> str | None:
        """The model of the model tier, if any."""
        model = getattr(self.model_tier, "model", None)
        return model if isinstance(model, str) and model else None

    @property
    def identity(self) -> dict[str, str]:
        """Backend, model and the model tier's prompt version."""
        inner = getattr(self.model_tier, "identity", None)
        version = inner.get("prompt_version", "") if isinstance(inner, dict) else ""
        return {"backend": self.name, "model": self.model or "", "prompt_version": version}

    def with_model_tier(self, model_tier: Judge | None) -> TieredJudge:
        """This judge with another model tier (a recording of it, for cassettes)."""
        clone = object.__new__(TieredJudge)
        clone.__dict__.update(self.__dict__)
        clone.model_tier = model_tier
        return clone

    def offline_only(self, reason: str) -> TieredJudge:
        """This judge without its model tier for ``reason`` (``budget_exhausted``: the
        sidecar's model-token budget is spent), said in every verdict as a missing key is."""
        clone = self.with_model_tier(None)
        clone.offline_reason = reason
        return clone

    def _no_model_notice(self) -> str:
        if self.offline_reason == NO_API_KEY:
            return NO_MODEL_NOTICE
        return f"no model tier ({self.offline_reason}): the tiered judge judges offline only"

    def __repr__(self) -> str:
        return (f"TieredJudge(model={self.model!r}, max_escalated_claims="
                f"{self.max_escalated_claims}, max_items={self.max_items}, "
                f"max_bytes={self.max_bytes})")

    async def aclose(self) -> None:
        """Close the model tier's clients for the current loop."""
        close = getattr(self.model_tier, "aclose", None)
        if callable(close):
            await close()

    # -- judging ----------------------------------------------------------------------------------

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        """Judge ``synthesis`` against ``evidence`` (the Judge protocol)."""
        return (await self.judge_verdict(synthesis=synthesis, evidence=evidence)).output

    async def judge_verdict(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeVerdict:
        """One tiered round: offline, then (for what is left) one model call."""
        started = time.perf_counter()
        try:
            items = EvidenceSet.coerce(evidence)
        except (ValueError, TypeError) as error:
            return JudgeVerdict(output=safe_default_judge_output(f"input is not usable: {error}"),
                                error_type="InvalidInput")
        outcomes = await asyncio.to_thread(self.offline.explain, synthesis=synthesis,
                                           evidence=items)
        pending = [i for i, o in enumerate(outcomes) if o.outcome not in SETTLED]
        sent = pending[:self.max_escalated_claims]
        over = pending[self.max_escalated_claims:]
        notes = [Adjustment(kind=ESCALATION_CAPPED, claim=outcomes[i].text, from_bucket=None,
                            to_bucket=None, reason=f"not sent to the model: "
                            f"max_escalated_claims={self.max_escalated_claims} reached; unverified")
                 for i in over]
        counts = TierCounts(settled=len(outcomes) - len(pending), over_cap=len(over))
        if self.model_tier is None or not sent:
            skipped = self.offline_reason if self.model_tier is None else ALL_SETTLED
            counts = counts.model_copy(update={
                "no_model": len(sent) if self.model_tier is None else 0, "model_tier": skipped})
            output = self._output(outcomes, {}, items, no_model=self.model_tier is None)
            return JudgeVerdict(output=output, notes=tuple(notes), tiers=counts,
                                duration_s=time.perf_counter() - started)
        texts = [outcomes[i].text for i in sent]
        context = [o.text for i, o in enumerate(outcomes) if i not in set(sent)]
        subset = align([Escalated(outcomes[i].text, outcomes[i].refs) for i in sent], items,
                       max_items=self.max_items, max_bytes=self.max_bytes)
        task = ClaimsTask(tuple(texts), tuple(context))
        verdict = await run_judge(self.model_tier, synthesis=task.dumps(), evidence=subset)
        counts = counts.model_copy(update={"escalated": len(sent)})
        judged: dict[int, ClaimOutcome] = {}
        if verdict.error_type is None and not verdict.output.abstained:
            matched = match(texts, context, verdict.output)
            notes += matched.notes
            for i, found in zip(sent, matched.verdicts, strict=True):
                judged[i] = await self._from_model(outcomes[i], found, items)
        else:
            why = verdict.output.abstain_reason or verdict.error_type or "no verdict"
            notes += [Adjustment(kind=MODEL_TIER_FAILED, claim=outcomes[i].text,
                                 from_bucket=None, to_bucket=None,
                                 reason=f"the model tier gave no verdict ({why}); unverified")
                      for i in sent]
        output = self._output(outcomes, judged, items, no_model=False)
        return JudgeVerdict(output=output, usage=verdict.usage, model=verdict.model or self.model,
                            error_type=verdict.error_type, attempts=verdict.attempts,
                            duration_s=time.perf_counter() - started, notes=tuple(notes),
                            tiers=counts)

    async def _from_model(self, offline: ClaimOutcome, found: tuple[Bucket, object] | None,
                          evidence: EvidenceSet) -> ClaimOutcome:
        if found is None:  # left out: ungrounded, as a tool claim so omission never pays
            return replace(offline, outcome="absent", bucket="ungrounded",
                           type=EvidenceType.TOOL_MATCH, refs=(), checks=(),
                           reason="the model judge did not return this claim")
        bucket, claim = found
        from gsar_otel.core.model import Claim

        assert isinstance(claim, Claim)
        reason = f"the model judge: {bucket}"
        if bucket == "grounded" and self.second_opinion:
            dispute = await asyncio.to_thread(dispute_of, offline.text, evidence)
            if dispute:
                reason = f"{reason}; disputed offline: {dispute}"
        return replace(offline, outcome=_OUTCOME_OF[bucket], bucket=bucket,
                       type=model_type(claim), refs=tuple(claim.evidence_refs), checks=(),
                       conclusion=claim.conclusion, reason=reason)

    def _output(self, outcomes: list[ClaimOutcome], judged: dict[int, ClaimOutcome],
                evidence: EvidenceSet, *, no_model: bool) -> JudgeOutput:
        merged = [judged.get(i, o) for i, o in enumerate(outcomes)]
        output = assemble(merged, evidence, self.offline.settings)
        # Stamp each claim with its tier and dispute, bucket by bucket in the outcomes' order.
        marks: dict[Bucket, list[tuple[JudgedBy, str | None]]] = {
            "grounded": [], "ungrounded": [], "contradicted": [], "complementary": []}
        for i, outcome in enumerate(merged):
            disputed = (outcome.reason.split("; disputed offline: ", 1)[1]
                        if i in judged and "; disputed offline: " in outcome.reason else None)
            marks[outcome.bucket].append(("model" if i in judged else "offline", disputed))
        partition = output.to_partition()
        stamped: dict[str, object] = {
            name: tuple(c.model_copy(update={"judged_by": marks[name][k][0],
                                             "disputed": marks[name][k][1]})
                        for k, c in enumerate(claims))
            for name, claims in partition.buckets()}
        explanation = output.explanation
        if judged:
            explanation += (f" {len(judged)} claim(s) the offline engine could not check were "
                            f"judged by the model ({self.model or 'model tier'}).")
        notice = self._no_model_notice()
        if no_model and any(o.outcome == "unverified" for o in outcomes):
            explanation += f" {notice[0].upper()}{notice[1:]}."
        update: dict[str, object] = {"explanation": explanation}
        if output.abstained and no_model:
            update["abstain_reason"] = f"{output.abstain_reason}; {notice}"
        return output.with_partition(partition.model_copy(update=stamped)).model_copy(
            update=update)
