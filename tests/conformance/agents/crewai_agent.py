"""A one-agent CrewAI crew with its LLM on a local fake OpenAI server, traced by
``openinference-instrumentation-crewai`` (crew, task and tool spans) and
``openinference-instrumentation-openai`` (the model calls)."""

from __future__ import annotations

import os

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")
os.environ.setdefault("OTEL_SDK_DISABLED", "false")

from typing import Any

from common import QUESTION, answering, arguments, fake_server, get_metrics, run_all, setup
from crewai import LLM, Agent, Crew, Task
from crewai.tools import tool
from openinference.instrumentation.crewai import CrewAIInstrumentor
from openinference.instrumentation.openai import OpenAIInstrumentor


def main() -> None:
    args = arguments()
    telemetry = setup(args.endpoint, "incident-service")
    CrewAIInstrumentor().instrument(tracer_provider=telemetry.provider)
    OpenAIInstrumentor().instrument(tracer_provider=telemetry.provider)
    llm = LLM(model="openai/gpt-4o", base_url=f"{fake_server()}/v1", api_key="test-key")
    metrics_tool = tool("get_metrics")(get_metrics)

    def run_one(answer: str) -> Any:
        with answering(answer):
            agent = Agent(role="incident-bot", goal="Explain incidents from metrics.",
                          backstory="An on-call assistant.", tools=[metrics_tool], llm=llm)
            task = Task(description=QUESTION, expected_output="One sentence.", agent=agent)
            return Crew(agents=[agent], tasks=[task], name="incident-crew").kickoff()

    run_all(telemetry, args.answers, run_one)


if __name__ == "__main__":
    main()
