"""Secret masking of cassette entries, and reading reference masks back on replay.

Every string of an entry is masked before it is written (known secret shapes, the values of
secret-named environment variables, then the ``gsar_redact`` plugins on the text fields). In the
verdict, a secret that the answer or an evidence item holds verbatim gets a reference mask
(``[REDACTED:synthesis@40+12]``) that :func:`restore_verdict` reads back from the judged texts,
so a replay sees the verdict exactly as it was recorded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import JudgeOutput
from gsar_otel.core.protocol import JudgeVerdict
from gsar_otel.core.redact import (
    REDACTED,
    redact_with_references,
    references_for_changes,
    replace_lone_surrogates,
    restore_references,
    secret_references,
)

REFERENCE_MARK: Final = "[REDACTED:"
"""How every reference mask starts (``[REDACTED:synthesis@40+12]``); a verdict without it has
nothing to read back."""


def evidence_rows(evidence: EvidenceSet) -> list[dict[str, str]]:
    """The evidence as a cassette entry (and a verdict key) holds it: id, type and content."""
    return [{"id": item.id, "type": str(item.type), "content": item.content}
            for item in evidence.items]


# --- masking --------------------------------------------------------------------------------------
# The masking itself is gsar_otel.core.redact, shared by every artefact.


_HOOKED: Final = {"synthesis": "synthesis", "content": "evidence", "text": "claim",
                  "explanation": "explanation", "gaps": "explanation",
                  "contradictions": "explanation", "verification_reason": "explanation",
                  "abstain_reason": "explanation", "claim": "claim", "reason": "explanation"}
"""The fields the ``gsar_redact`` plugins see, and the kind each is passed as (``claim`` and
``reason`` are those of the guard's recorded adjustments); enums, ids and numbers are left to
the built-in masking, so a plugin cannot make a verdict invalid."""


def _mask(value: Any, references: Mapping[str, str], secrets: tuple[str, ...],
          sources: Mapping[str, str], kind: str | None = None) -> Any:
    if isinstance(value, str):
        masked = redact_with_references(replace_lone_surrogates(value)[0], references, secrets,
                                        sources=sources)
        return masked if kind is None else _plugin_masked(masked, kind, sources)
    if isinstance(value, Mapping):
        return {key: _mask(item, references, secrets, sources, _HOOKED.get(str(key), kind))
                for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_mask(item, references, secrets, sources, kind) for item in value]
    return value


def _plugin_masked(text: str, kind: str, sources: Mapping[str, str]) -> str:
    """``text`` through the ``gsar_redact`` plugins; what they mask that the judged texts hold
    verbatim becomes a reference mask, so a replay still reads it back."""
    from gsar_otel.plugins import has_redactors, redact

    if not has_redactors():
        return text
    hooked = redact(text, kind)
    if hooked is None:  # a failing plugin hides the text
        return REDACTED
    return references_for_changes(text, hooked, sources)


def _sources(synthesis: str, evidence: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """The judged texts a verdict may quote, by the names reference masks use."""
    sources = {"synthesis": synthesis}
    for index, row in enumerate(evidence):
        content = row.get("content") if isinstance(row, Mapping) else None
        if isinstance(content, str):
            sources[f"evidence.{index}"] = content
    return sources


def mask_entry(entry: Mapping[str, Any], secrets: tuple[str, ...] = ()) -> dict[str, Any]:
    """A cassette entry with every secret masked (lone surrogates replaced, too).

    The built-in masking runs first, then the ``gsar_redact`` plugins on the text fields. The
    answer and evidence get plain masks; in the verdict, a secret that the answer or an evidence
    item holds (and any stretch of it a plugin masks) gets a reference mask
    (``[REDACTED:synthesis@40+12]``) so that :func:`restore_verdict` gives a replay the verdict
    exactly as it was recorded.
    """
    synthesis = entry.get("synthesis")
    evidence = entry.get("evidence")
    sources = _sources(synthesis if isinstance(synthesis, str) else "",
                       evidence if isinstance(evidence, list) else [])
    references = secret_references(sources, secrets)
    masked = {key: _mask(value, {}, secrets, {}, _HOOKED.get(key)) for key, value in entry.items()
              if key != "verdict"}
    if "verdict" in entry:
        masked["verdict"] = _mask(entry["verdict"], references, secrets, sources)
    return masked


def restore_verdict(verdict: JudgeVerdict, synthesis: str, evidence: EvidenceSet) -> JudgeVerdict:
    """A replayed verdict with its reference masks read back from the judged texts."""
    # Most verdicts hold no reference mask: one serialisation tells, before any tree walk.
    if REFERENCE_MARK not in verdict.output.model_dump_json():
        return verdict
    sources = _sources(synthesis, evidence_rows(evidence))
    dumped = verdict.output.model_dump(mode="json")
    restored = _restore(dumped, sources)
    if restored == dumped:
        return verdict
    return verdict.model_copy(update={"output": JudgeOutput.model_validate(restored)})


def _restore(value: Any, sources: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return restore_references(value, sources)
    if isinstance(value, Mapping):
        return {key: _restore(item, sources) for key, item in value.items()}
    if isinstance(value, list):
        return [_restore(item, sources) for item in value]
    return value
