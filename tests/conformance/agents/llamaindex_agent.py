"""A LlamaIndex ``FunctionAgent`` (an agent workflow) with its OpenAI LLM on a local fake
OpenAI server, traced by ``openinference-instrumentation-llama-index``."""

from __future__ import annotations

import asyncio
from typing import Any

from common import QUESTION, answering, arguments, fake_server, get_metrics, run_all, setup
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.tools import FunctionTool
from llama_index.llms.openai import OpenAI
from openinference.instrumentation.llama_index import LlamaIndexInstrumentor


def main() -> None:
    args = arguments()
    telemetry = setup(args.endpoint, "incident-service")
    LlamaIndexInstrumentor().instrument(tracer_provider=telemetry.provider)
    llm = OpenAI(model="gpt-4o", api_key="test-key", api_base=f"{fake_server()}/v1")
    agent = FunctionAgent(name="incident-bot", description="Answers incident questions.",
                          tools=[FunctionTool.from_defaults(get_metrics)], llm=llm,
                          system_prompt="Answer from the tools' results.")

    async def ask() -> Any:
        return await agent.run(user_msg=QUESTION)

    def run_one(answer: str) -> Any:
        with answering(answer):
            return asyncio.run(ask())

    run_all(telemetry, args.answers, run_one)


if __name__ == "__main__":
    main()
