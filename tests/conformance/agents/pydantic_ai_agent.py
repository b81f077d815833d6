"""pydantic-ai with its built-in OpenTelemetry instrumentation (``instrument=True``, the default
instrumentation version) and its own offline FunctionModel."""

from __future__ import annotations

from typing import Any

from common import HOST_ARGUMENTS, QUESTION, arguments, get_metrics, run_all, setup
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel


def main() -> None:
    args = arguments()
    telemetry = setup(args.endpoint, "pydantic-ai-service")
    answer = {"text": ""}

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returned = any(isinstance(part, ToolReturnPart)
                       for message in messages for part in getattr(message, "parts", ()))
        if returned:
            return ModelResponse(parts=[TextPart(answer["text"])])
        return ModelResponse(parts=[ToolCallPart("get_metrics", dict(HOST_ARGUMENTS),
                                                 tool_call_id="call_1")])

    Agent.instrument_all(True)
    agent: Agent[None, str] = Agent(FunctionModel(model), name="incident-bot")
    agent.tool_plain(get_metrics)

    def run_one(text: str) -> Any:
        answer["text"] = text
        return agent.run_sync(QUESTION).output

    run_all(telemetry, args.answers, run_one)


if __name__ == "__main__":
    main()
