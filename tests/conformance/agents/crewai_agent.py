"""A one-agent CrewAI crew with its LLM on a local fake OpenAI server, traced three ways:

- ``--mode openinference``: ``openinference-instrumentation-crewai`` (crew, task and tool
  spans) and ``openinference-instrumentation-openai`` (the model calls);
- ``--mode openllmetry``: OpenLLMetry's ``opentelemetry-instrumentation-crewai`` and
  ``opentelemetry-instrumentation-openai``;
- ``--mode native``: CrewAI's own event-driven tracing (``crewai.telemetry.tracing``'s
  ``TraceSession``, GenAI attributes) with an OTLP exporter to the sidecar.
"""

from __future__ import annotations

import os
import uuid

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")
os.environ.setdefault("OTEL_SDK_DISABLED", "false")

from typing import Any

from common import QUESTION, answering, arguments, fake_server, get_metrics, run_all, setup
from crewai import LLM, Agent, Crew, Task
from crewai.tools import tool


def main() -> None:
    args = arguments()
    native = args.mode == "native"
    telemetry = setup(args.endpoint, "incident-service")
    if args.mode == "openllmetry":
        from opentelemetry.instrumentation.crewai import CrewAIInstrumentor
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor
    elif not native:
        from openinference.instrumentation.crewai import (  # type: ignore[no-redef]
            CrewAIInstrumentor,
        )
        from openinference.instrumentation.openai import (  # type: ignore[no-redef]
            OpenAIInstrumentor,
        )
    if not native:
        CrewAIInstrumentor().instrument(tracer_provider=telemetry.provider)
        OpenAIInstrumentor().instrument(tracer_provider=telemetry.provider)
    llm = LLM(model="openai/gpt-4o", base_url=f"{fake_server()}/v1", api_key="test-key")
    metrics_tool = tool("get_metrics")(get_metrics)

    def kickoff(answer: str) -> Any:
        with answering(answer):
            agent = Agent(role="incident-bot", goal="Explain incidents from metrics.",
                          backstory="An on-call assistant.", tools=[metrics_tool], llm=llm)
            task = Task(description=QUESTION, expected_output="One sentence.", agent=agent)
            return Crew(agents=[agent], tasks=[task], name="incident-crew").kickoff()

    def run_native(answer: str) -> Any:
        from crewai.telemetry.tracing import TraceSession
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource

        session = TraceSession(str(uuid.uuid4()), [OTLPSpanExporter(
            endpoint=f"{args.endpoint}/v1/traces")], processors=[telemetry.roots],
            resource=Resource.create({"service.name": "incident-service"}))
        try:
            with session.activate():
                return kickoff(answer)
        finally:
            session.shutdown()

    run_all(telemetry, args.answers, run_native if native else kickoff)


if __name__ == "__main__":
    main()
