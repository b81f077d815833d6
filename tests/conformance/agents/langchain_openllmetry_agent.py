"""LangChain's ``create_agent`` (a LangGraph graph) traced by OpenLLMetry's
``opentelemetry-instrumentation-langchain``, with langchain_core's own fake chat model:
``--mode attributes`` (content as span attributes, the default) or ``--mode events``
(``use_attributes=False``: messages as log records)."""

from __future__ import annotations

from typing import Any

from common import HOST_ARGUMENTS, QUESTION, arguments, get_metrics, run_all, setup
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from opentelemetry.instrumentation.langchain import LangchainInstrumentor


class ToolCallingFake(GenericFakeChatModel):
    """The fake chat model, accepting tools."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


def main() -> None:
    args = arguments()
    events = args.mode == "events"
    telemetry = setup(args.endpoint, "langchain-service", logs=events)
    LangchainInstrumentor(use_attributes=not events).instrument(
        tracer_provider=telemetry.provider)
    metrics_tool = tool(get_metrics)

    def run_one(answer: str) -> Any:
        model = ToolCallingFake(messages=iter([
            AIMessage(content="", tool_calls=[{"name": "get_metrics", "args": HOST_ARGUMENTS,
                                               "id": "call_1", "type": "tool_call"}]),
            AIMessage(content=answer)]))
        agent = create_agent(model, tools=[metrics_tool], name="incident-bot")
        return agent.invoke({"messages": [{"role": "user", "content": QUESTION}]})

    run_all(telemetry, args.answers, run_one)


if __name__ == "__main__":
    main()
