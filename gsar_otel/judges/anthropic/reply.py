"""Reading a Messages API reply: the verdict in it, why it stopped, what it cost.

Works on the SDK's ``Message`` objects by attribute only, so it never imports the SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from gsar_otel.core.model import JudgeOutput, safe_default_judge_output
from gsar_otel.core.protocol import JudgeUsage
from gsar_otel.judges.anthropic.payload import (
    VerdictProblem,
    parse_json_text,
    verdict_from_payload,
)
from gsar_otel.judges.anthropic.prompt import VERDICT_TOOL_NAME, OutputMode

if TYPE_CHECKING:
    from anthropic.types import Message

# error_type values for failures that are not SDK exceptions (those keep their class name).
ERROR_REFUSAL: Final = "Refusal"
ERROR_MAX_TOKENS: Final = "MaxTokensExceeded"
ERROR_CONTEXT_WINDOW: Final = "ContextWindowExceeded"

_STOP_FAILURES: Final = {
    "refusal": (ERROR_REFUSAL, "the judge model declined to judge this answer "
                               "(stop_reason=refusal)"),
    "max_tokens": (ERROR_MAX_TOKENS, "the verdict was cut off at max_tokens={max_tokens}; "
                                     "raise max_tokens"),
    "model_context_window_exceeded": (ERROR_CONTEXT_WINDOW, "evidence and answer exceed the "
                                                            "judge model's context window"),
}


def stop_failure(message: Message, max_tokens: int) -> tuple[JudgeOutput, str] | None:
    """The safe default and ``error_type`` for a reply that stopped without a verdict, else None.

    A refusal, a reply cut at ``max_tokens`` and an exceeded context window are such stops.
    """
    failure = _STOP_FAILURES.get(str(message.stop_reason))
    if failure is None:
        return None
    kind, reason = failure
    return safe_default_judge_output(reason.format(max_tokens=max_tokens)), kind


class RoundState:
    """Usage, attempts and answering model of one judge round (summed over a repair)."""

    def __init__(self, *, compact: bool = False) -> None:
        self.usage: JudgeUsage | None = None
        self.attempts = 0
        self.model: str | None = None
        self.compact = compact
        """The claims are given: the system prompt without the splitting step and the verdict
        schema without its descriptions."""

    def add(self, message: Message) -> None:
        """Count the usage and model of one reply."""
        self.model = getattr(message, "model", None) or self.model
        raw = getattr(message, "usage", None)
        if raw is None:
            return
        usage = JudgeUsage(
            input_tokens=int(getattr(raw, "input_tokens", 0) or 0),
            output_tokens=int(getattr(raw, "output_tokens", 0) or 0),
            cache_read_input_tokens=int(getattr(raw, "cache_read_input_tokens", 0) or 0),
            cache_creation_input_tokens=int(getattr(raw, "cache_creation_input_tokens", 0) or 0),
        )
        self.usage = usage if self.usage is None else self.usage + usage


def history(message: Message) -> list[dict[str, Any]]:
    """A reply as the assistant turn of the repair request."""
    blocks: list[dict[str, Any]] = []
    for block in message.content:
        if block.type == "text" and block.text:
            blocks.append({"type": "text", "text": block.text})
        elif block.type == "tool_use":
            blocks.append({"type": "tool_use", "id": block.id, "name": block.name,
                           "input": block.input})
    return blocks or [{"type": "text", "text": "(no reply)"}]


def parse_reply(message: Message, mode: OutputMode) -> JudgeOutput:
    """The verdict in a reply: the forced tool's input, else the JSON in its text.

    Raises:
        VerdictProblem: the reply holds no usable verdict; ``tool_use_id`` names the tool call
            that must be answered before a repair turn.
    """
    tool_use_id: str | None = None
    data: Any = None
    found = False
    if mode == "tool":
        for block in message.content:
            if block.type == "tool_use":
                tool_use_id = block.id
                if block.name == VERDICT_TOOL_NAME:
                    data, found = block.input, True
                    break
    try:
        if not found:
            data = parse_json_text("".join(block.text for block in message.content
                                           if block.type == "text"))
        return verdict_from_payload(data)
    except VerdictProblem as problem:
        problem.tool_use_id = tool_use_id
        raise


__all__ = [
    "ERROR_CONTEXT_WINDOW", "ERROR_MAX_TOKENS", "ERROR_REFUSAL", "RoundState", "history",
    "parse_reply", "stop_failure",
]
