"""A hand-written tool loop with the ``anthropic`` SDK against a local fake Messages API, traced
by OpenLLMetry's ``opentelemetry-instrumentation-anthropic`` inside the application's own
``incident_agent.run`` span: ``--mode attributes`` (messages as span attributes, the default)
or ``--mode logs`` (``use_attributes=False``: messages as log records)."""

from __future__ import annotations

from typing import Any

from anthropic import Anthropic
from common import QUESTION, answering, arguments, fake_server, get_metrics, run_all, setup
from opentelemetry import trace
from opentelemetry.instrumentation.anthropic import AnthropicInstrumentor

TOOLS = [{"name": "get_metrics", "description": "Read the current metrics of a host.",
          "input_schema": {"type": "object", "properties": {"host": {"type": "string"}},
                           "required": ["host"]}}]


def main() -> None:
    args = arguments()
    logs = args.mode == "logs"
    telemetry = setup(args.endpoint, "incident-service", logs=logs)
    AnthropicInstrumentor(use_attributes=not logs).instrument(
        tracer_provider=telemetry.provider)
    client = Anthropic(base_url=fake_server(), api_key="test-key")
    tracer = trace.get_tracer("incident_agent")

    def run_one(answer: str) -> Any:
        with answering(answer), tracer.start_as_current_span("incident_agent.run"):
            messages: list[dict[str, Any]] = [{"role": "user", "content": QUESTION}]
            while True:
                reply = client.messages.create(model="claude-sonnet-4-5", max_tokens=512,
                                               messages=messages, tools=TOOLS)
                calls = [b for b in reply.content if b.type == "tool_use"]
                if not calls:
                    return "".join(b.text for b in reply.content if b.type == "text")
                messages.append({"role": "assistant",
                                 "content": [b.model_dump() for b in reply.content]})
                messages.append({"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": call.id,
                     "content": get_metrics(**call.input)} for call in calls]})

    run_all(telemetry, args.answers, run_one)


if __name__ == "__main__":
    main()
