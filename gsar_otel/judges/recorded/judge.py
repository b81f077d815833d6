"""Recorded judge verdicts: the vcrpy idea, for judges.

A :class:`RecordingJudge` wraps any judge. It looks each judgement up in a :class:`CassetteStore`
(one JSON file) by a stable key, the hash of the judge's identity (backend, model, prompt
version), the answer and the evidence with its ids and types, and only calls the wrapped judge
when the record mode allows it:

====================  ==================================================================
``none`` (default)    replay only; a verdict that is not in the cassette is a miss
``once``              record into a cassette that does not exist yet; once it exists, as ``none``
``new_episodes``      replay what is recorded, record what is not
``all``               call the judge every time and record (overwrite) every verdict
====================  ==================================================================

Cassettes are meant to be committed and reviewed, and never hold a request header or an API
key (see :mod:`~gsar_otel.judges.recorded.store`, which owns the record modes, the keys, secret
masking and the cassette files). A verdict that stands in for a failed judge call (rate limit,
timeout) is never recorded, so a transient outage cannot be replayed forever.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import JudgeOutput, safe_default_judge_output
from gsar_otel.core.protocol import (
    GuardMemo,
    Judge,
    JudgeVerdict,
    judge_model,
    judge_name,
    run_judge,
)
from gsar_otel.judges.recorded.store import (
    CassetteError,
    CassetteStore,
    MissingVerdictError,
    RecordMode,
    parse_record_mode,
    restore_verdict,
    verdict_key,
)

# --- identity -------------------------------------------------------------------------------------


def judge_identity(judge: object) -> dict[str, str]:
    """What makes a judge's verdicts comparable: backend, model and prompt version.

    Uses the judge's ``identity`` (a mapping or a pydantic model) when it has one; otherwise the
    judge's name, model and ``prompt_version`` attributes.
    """
    identity: Any = getattr(judge, "identity", None)
    if callable(identity):
        identity = identity()
    dump = getattr(identity, "model_dump", None)
    if callable(dump):
        identity = dump(mode="json")
    if isinstance(identity, Mapping) and identity:
        return {str(k): "" if v is None else str(v) for k, v in identity.items()}
    if isinstance(identity, str) and identity:
        return {"backend": identity}
    version = getattr(judge, "prompt_version", None)
    return {
        "backend": judge_name(judge),
        "model": judge_model(judge) or "",
        "prompt_version": "" if version is None else str(version),
    }


# --- the judge ------------------------------------------------------------------------------------


def is_deterministic(judge: object) -> bool:
    """True for judges that give the same verdict every time for free: no cassette needed.

    A judge says so with a true ``deterministic`` attribute; the offline lexical judge is
    deterministic by construction.
    """
    flag = getattr(judge, "deterministic", None)
    if isinstance(flag, bool):
        return flag
    return judge_name(judge).lower() in {"lexical", "lexicaljudge"}


JudgeSource = Judge | Callable[[], Judge]


class RecordingJudge:
    """A judge that replays verdicts from a cassette and records new ones, by record mode.

    Args:
        judge: the judge to record, or a zero-argument callable that builds it (called only when
            a verdict must be recorded, so replaying needs no API key).
        store: the cassette.
        mode: the record mode (default ``none``: replay only).
        identity: the judge identity the keys hash; default :func:`judge_identity` of ``judge``
            (give it when ``judge`` is a callable).
        reuse_guard: replay the integrity guard's report recorded beside a verdict when it
            matches the round exactly (see :mod:`gsar_otel.core.guard_memo`); false: the guard
            always runs again. Either way, record modes that write keep the report of every
            verdict they record (``new_episodes`` also adds it beside older verdicts).

    A miss the mode does not allow recording raises :class:`MissingVerdictError` inside the
    judge round (the evaluator turns it into an abstain) and is kept in :attr:`misses`, so a
    caller can tell "the judge abstained" from "nothing was recorded"; an unreadable cassette
    is kept in :attr:`cassette_errors` the same way.
    """

    def __init__(self, judge: JudgeSource, store: CassetteStore, mode: RecordMode | str = "none",
                 *, identity: Mapping[str, str] | None = None, reuse_guard: bool = True
                 ) -> None:
        self._judge: Judge | None = None
        self._factory: Callable[[], Judge] | None = None
        if _is_judge(judge):
            self._judge = cast(Judge, judge)
        elif callable(judge):
            self._factory = judge
        else:
            raise ValueError(f"judge must be a Judge or a callable that builds one, got "
                             f"{type(judge).__name__}")
        if identity is None:
            if self._judge is None:
                raise ValueError("identity is required when judge is a factory")
            identity = judge_identity(self._judge)
        self.identity: dict[str, str] = dict(identity)
        self.store = store
        self.mode = parse_record_mode(mode)
        self.reuse_guard = reuse_guard
        if self.mode is RecordMode.ALL:
            store.replace_damaged = True  # every verdict is recorded again: damage is replaced
        self.misses: list[MissingVerdictError] = []
        self.cassette_errors: list[CassetteError] = []
        self.replayed = 0
        self.recorded = 0

    @property
    def name(self) -> str:
        """The wrapped judge's backend name."""
        return self.identity.get("backend") or "recorded"

    @property
    def model(self) -> str | None:
        """The wrapped judge's model, when it has one."""
        return self.identity.get("model") or None

    @property
    def inner(self) -> Judge:
        """The wrapped judge (built on first use when a factory was given)."""
        if self._judge is None:
            assert self._factory is not None
            self._judge = self._factory()
        return self._judge

    def key(self, synthesis: str, evidence: EvidenceSet) -> str:
        """The cassette key of a judgement by this judge."""
        return verdict_key(self.identity, synthesis, evidence)

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        """Judge ``synthesis`` (replayed or recorded, by the record mode)."""
        return (await self.judge_verdict(synthesis=synthesis, evidence=evidence)).output

    async def judge_verdict(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeVerdict:
        """Judge ``synthesis`` and say how (tokens, model) when the verdict was recorded.

        Raises:
            MissingVerdictError: the verdict is not recorded and the mode forbids recording.
            CassetteError: the cassette is unreadable.
        """
        key = self.key(synthesis, evidence)
        if self.mode is not RecordMode.ALL:
            try:
                recorded = self.store.get(key, guard=self.reuse_guard)
            except CassetteError as error:
                self.cassette_errors.append(error)
                raise
            if recorded is not None:
                self.replayed += 1
                if self.store.may_hold_references:
                    recorded = restore_verdict(recorded, synthesis, evidence)
                return await self._review(recorded, evidence)
            if self.mode is RecordMode.NONE or (self.mode is RecordMode.ONCE
                                                and self.store.existed):
                miss = MissingVerdictError(self.store.path, self.mode,
                                           cassette_existed=self.store.existed)
                self.misses.append(miss)
                raise miss
        verdict = await self._model_verdict(synthesis, evidence)
        if verdict.error_type is None:
            try:
                self.store.put(key, identity=self.identity, synthesis=synthesis,
                               evidence=evidence, verdict=verdict)
            except CassetteError as error:
                self.cassette_errors.append(error)
                raise
            self.recorded += 1
        return await self._review(verdict, evidence)

    async def _model_verdict(self, synthesis: str, evidence: EvidenceSet) -> JudgeVerdict:
        """The wrapped judge's own verdict: for a model judge with an offline second opinion
        (``model_verdict`` and ``review``), the model's part alone, which is what is recorded."""
        inner = self.inner
        model_verdict = getattr(inner, "model_verdict", None)
        if callable(model_verdict) and callable(getattr(inner, "review", None)):
            try:
                verdict = await model_verdict(synthesis=synthesis, evidence=evidence)
            except Exception as error:  # as run_judge: a failing judge is an abstain
                return JudgeVerdict(output=safe_default_judge_output(
                    f"judge raised {type(error).__name__}"), error_type=type(error).__name__)
            if isinstance(verdict, JudgeVerdict):
                return verdict
        return await run_judge(inner, synthesis=synthesis, evidence=evidence)

    async def _review(self, verdict: JudgeVerdict, evidence: EvidenceSet) -> JudgeVerdict:
        """The wrapped judge's offline second opinion on a recorded or replayed verdict (never
        stored: the cassette holds the model's part only). Only a judge already built has one."""
        review = getattr(self._judge, "review", None) if self._judge is not None else None
        if not callable(review):
            return verdict
        reviewed = await review(verdict, evidence)
        return reviewed if isinstance(reviewed, JudgeVerdict) else verdict

    def remember_guard_memo(self, *, synthesis: str, evidence: EvidenceSet,
                            memo: GuardMemo) -> None:
        """Keep the integrity guard's report beside the verdict it checked: a verdict recorded
        now, or (record mode ``new_episodes``) a replayed one. Called by the judge round."""
        self.store.put_guard_memo(self.key(synthesis, evidence), memo,
                                  update=self.mode is RecordMode.NEW_EPISODES)


def _is_judge(value: object) -> bool:
    return callable(getattr(value, "judge", None))
