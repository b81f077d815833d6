"""smolagents traced by ``openinference-instrumentation-smolagents``, with a smolagents
``Model`` subclass as the offline model: ``--mode toolcalling`` (ToolCallingAgent: tool calls,
then the built-in ``final_answer`` tool) or ``--mode code`` (CodeAgent: code that calls the
tool, then ``final_answer(...)``)."""

from __future__ import annotations

import json
from typing import Any

from common import HOST_ARGUMENTS, QUESTION, arguments, run_all, setup
from common import get_metrics as read_metrics
from openinference.instrumentation.smolagents import SmolagentsInstrumentor
from smolagents import CodeAgent, ToolCallingAgent, tool
from smolagents.models import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
    Model,
)


@tool
def get_metrics(host: str) -> str:
    """Read the current metrics of a host.

    Args:
        host: the host name.
    """
    return read_metrics(host)


def _seen_result(messages: list[Any]) -> bool:
    for message in messages:
        role = message.role if isinstance(message, ChatMessage) else message.get("role")
        content = message.content if isinstance(message, ChatMessage) else message.get(
            "content")
        if role in (MessageRole.TOOL_RESPONSE, "tool-response") or "cpu_pct=" in json.dumps(
                content, default=str):
            return True
    return False


class OfflineModel(Model):
    """Asks for the metrics first, then gives the run's answer."""

    def __init__(self, code: bool) -> None:
        super().__init__(model_id="offline-model")
        self.code = code
        self.answer = ""

    def generate(self, messages: list[Any], stop_sequences: list[str] | None = None,
                 response_format: Any = None, tools_to_call_from: Any = None,
                 **kwargs: Any) -> ChatMessage:
        done = _seen_result(messages)
        if self.code:
            code = (f"final_answer({self.answer!r})" if done
                    else 'print(get_metrics(host="db-prod-1"))')
            return ChatMessage(role=MessageRole.ASSISTANT,
                               content=f"Thought: next step.\n<code>\n{code}\n</code>")
        name, arguments_ = (("final_answer", {"answer": self.answer}) if done
                            else ("get_metrics", dict(HOST_ARGUMENTS)))
        return ChatMessage(role=MessageRole.ASSISTANT, content=None, tool_calls=[
            ChatMessageToolCall(id=f"call_{name}", type="function",
                                function=ChatMessageToolCallFunction(name=name,
                                                                     arguments=arguments_))])


def main() -> None:
    args = arguments()
    telemetry = setup(args.endpoint, "smolagents-service")
    SmolagentsInstrumentor().instrument(tracer_provider=telemetry.provider)
    model = OfflineModel(code=args.mode == "code")
    kind = CodeAgent if args.mode == "code" else ToolCallingAgent
    agent = kind(tools=[get_metrics], model=model, name="incident_bot", max_steps=4,
                 verbosity_level=0)

    def run_one(answer: str) -> Any:
        model.answer = answer
        return agent.run(QUESTION)

    run_all(telemetry, args.answers, run_one)


if __name__ == "__main__":
    main()
