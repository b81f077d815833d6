"""Reading a model-written verdict: lenient JSON, validation as a JudgeOutput, and salvage.

Provider-neutral, so any LLM-backed judge can share it. A reply that is not a usable verdict
raises :class:`VerdictProblem`, whose ``detail`` is written to be shown back to the model in a
repair turn. :func:`salvage_verdict` keeps whatever is valid in a rejected verdict (claim by
claim, field by field) and records what it dropped in the explanation.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from pydantic import ValidationError

from gsar_otel.core.model import BUCKETS, Claim, JudgeOutput, check_unit_interval
from gsar_otel.errors import GSARError

ERROR_INVALID_JSON: Final = "InvalidJSON"
"""error_type of a reply that holds no parseable JSON."""
ERROR_SCHEMA: Final = "SchemaViolation"
"""error_type of JSON that is not a valid verdict (also of a salvaged one)."""

CLAIM_KEYS: Final = ("text", "type", "evidence_refs", "conclusion")
_FENCE: Final = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


@dataclass
class VerdictProblem(GSARError):
    """A reply that is not a usable verdict: its kind, why, and what could be parsed."""

    kind: str
    detail: str
    data: Any = None
    tool_use_id: str | None = None
    """The tool call that carried the bad verdict, when it came as one (it needs an answer)."""


def parse_json_text(text: str) -> Any:
    """JSON from a reply: the whole text, else a fenced block, else the first complete object.

    Raises:
        VerdictProblem: ``InvalidJSON``, with the parser's message.
    """
    if not text.strip():
        raise VerdictProblem(ERROR_INVALID_JSON, "the reply contained no verdict")
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        first_error = error
    for fenced in _FENCE.findall(text):
        with contextlib.suppress(json.JSONDecodeError):
            return json.loads(fenced)
    start = text.find("{")
    if start >= 0:
        with contextlib.suppress(json.JSONDecodeError):
            return json.JSONDecoder().raw_decode(text[start:])[0]
    raise VerdictProblem(ERROR_INVALID_JSON, f"the reply is not valid JSON ({first_error.msg} at "
                                             f"line {first_error.lineno} column "
                                             f"{first_error.colno})")


def verdict_from_payload(data: Any) -> JudgeOutput:
    """Validate a parsed verdict as a JudgeOutput, leniently where nothing is lost.

    Fields a claim should not have are dropped, null lists count as empty, and unknown evidence
    type strings are kept (see :class:`~gsar_otel.core.model.Claim`).

    Raises:
        VerdictProblem: ``SchemaViolation``, naming each offending field.
    """
    if not isinstance(data, Mapping):
        raise VerdictProblem(ERROR_SCHEMA, "the verdict must be a JSON object with the schema's "
                             f"fields, got {type(data).__name__}", data=data)
    cleaned = dict(data)
    for bucket in BUCKETS:
        key = f"{bucket}_claims"
        value = cleaned.get(key)
        if value is None:
            cleaned.pop(key, None)
        elif isinstance(value, list):
            cleaned[key] = [{k: v for k, v in c.items() if k in CLAIM_KEYS}
                            if isinstance(c, Mapping) else c for c in value]
    for key in ("gaps", "contradictions"):
        if key in cleaned and cleaned[key] is None:
            cleaned.pop(key)
    try:
        return JudgeOutput.model_validate(cleaned)
    except ValidationError as error:
        raise VerdictProblem(ERROR_SCHEMA, describe_validation_error(error), data=data) from None


def describe_validation_error(error: ValidationError, limit: int = 8) -> str:
    """A short, model-readable list of what failed validation (no input values echoed)."""
    problems = []
    for item in error.errors(include_url=False, include_input=False)[:limit]:
        where = ".".join(str(part) for part in item["loc"]) or "verdict"
        problems.append(f"{where}: {item['msg']}")
    more = error.error_count() - limit
    if more > 0:
        problems.append(f"and {more} more")
    return "schema violation: " + "; ".join(problems)


def _is_unit(value: object) -> bool:
    try:
        check_unit_interval("grounding_score", value)
    except ValueError:
        return False
    return True


def _is_str_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


_SALVAGE_FIELDS: Final[Mapping[str, tuple[Callable[[object], bool], object]]] = {
    "grounding_score": (_is_unit, 0.5),
    "is_grounded": (lambda v: isinstance(v, bool), False),
    "gaps": (_is_str_list, ()),
    "contradictions": (_is_str_list, ()),
    "verification_needed": (lambda v: isinstance(v, bool), False),
    "verification_reason": (lambda v: v is None or isinstance(v, str), None),
    "explanation": (lambda v: isinstance(v, str), ""),
    "decision_status": (lambda v: v in ("resolved", "abstain"), "resolved"),
    "abstain_reason": (lambda v: v is None or isinstance(v, str), None),
}


def salvage_verdict(data: Any, problem: str) -> JudgeOutput | None:
    """The valid parts of a rejected verdict, or None when there is nothing worth keeping.

    Each bad claim and each bad field is dropped on its own (a field falls back to its
    default) and the explanation ends with what was dropped and why. None when ``data`` is not
    an object, or when no claim survives and the verdict is not an abstain.
    """
    if not isinstance(data, Mapping):
        return None
    dropped: list[str] = []
    fields: dict[str, Any] = {}
    for bucket in BUCKETS:
        key = f"{bucket}_claims"
        raw = data.get(key)
        if raw is not None and not isinstance(raw, list):
            dropped.append(key)
        kept: list[Claim] = []
        for index, entry in enumerate(raw if isinstance(raw, list) else []):
            try:
                if not isinstance(entry, Mapping):
                    raise TypeError("a claim must be an object")
                kept.append(Claim.model_validate({k: v for k, v in entry.items()
                                                  if k in CLAIM_KEYS}))
            except (ValidationError, ValueError, TypeError):
                dropped.append(f"{key}[{index}]")
        fields[key] = kept
    for name, (valid, default) in _SALVAGE_FIELDS.items():
        value = data.get(name, default)
        if not valid(value):
            dropped.append(name)
            value = default
        fields[name] = value
    if fields["decision_status"] == "abstain" and not (fields["abstain_reason"] or "").strip():
        fields["abstain_reason"] = "the judge abstained without giving a reason"
        dropped.append("abstain_reason")
    claims = sum(len(fields[f"{bucket}_claims"]) for bucket in BUCKETS)
    if claims == 0 and fields["decision_status"] != "abstain":
        return None
    note = f"[Salvaged after {problem}; dropped: {', '.join(dropped) or 'nothing'}.]"
    fields["explanation"] = f"{fields['explanation']} {note}".strip()
    try:
        return JudgeOutput.model_validate(fields)
    except ValidationError:
        return None
