"""Strands Agents with its built-in OpenTelemetry tracing and its OpenAI model provider against a
local fake Chat Completions server (streaming). ``--mode default`` (the GenAI conventions it
writes by default: per-message span events), ``--mode latest`` (run with
``OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental``), ``--mode openinference``
(OpenInference's ``StrandsAgentsToOpenInferenceProcessor`` rewrites the spans before export)."""

from __future__ import annotations

from typing import Any

from common import QUESTION, answering, arguments, fake_server, run_all, setup
from common import get_metrics as read_metrics
from strands import Agent, tool
from strands.models.openai import OpenAIModel


@tool
def get_metrics(host: str) -> str:
    """Read the current metrics of a host.

    Args:
        host: the host name.
    """
    return read_metrics(host)


def main() -> None:
    args = arguments()
    processors: tuple[Any, ...] = ()
    if args.mode == "openinference":
        from openinference.instrumentation.strands_agents.processor import (
            StrandsAgentsToOpenInferenceProcessor,
        )
        processors = (StrandsAgentsToOpenInferenceProcessor(),)
    telemetry = setup(args.endpoint, "strands-service", processors=processors)
    base_url = fake_server()
    model = OpenAIModel(client_args={"api_key": "test-key", "base_url": f"{base_url}/v1"},
                        model_id="gpt-4o")

    def run_one(answer: str) -> Any:
        agent = Agent(name="incident-bot", model=model, tools=[get_metrics],
                      system_prompt="Answer from the metrics.", callback_handler=None)
        with answering(answer):
            return agent(QUESTION)

    run_all(telemetry, args.answers, run_one)


if __name__ == "__main__":
    main()
