"""The OpenAI SDK against a local fake Chat Completions server, two ways:

- ``--mode agents``: the openai-agents SDK (``OpenAIChatCompletionsModel``) traced by
  ``openinference-instrumentation-openai-agents`` (the SDK's own trace export is turned off);
- ``--mode openai-v2``: a hand-written tool loop with the plain ``openai`` client, traced by the
  OpenTelemetry contrib ``opentelemetry-instrumentation-openai-v2`` (message content captured),
  inside the application's own ``incident_agent.run`` span;
- ``--mode openai-v2-calls``: the same loop with no application span, so each model call is a
  trace of its own and the tool result is only in the last call's history.
"""

from __future__ import annotations

import contextlib
import functools
import json
from typing import Any

from common import QUESTION, arguments, fake_server, get_metrics, run_all, setup
from common import answering as answering_with


def agents_sdk(endpoint: str, base_url: str) -> tuple[Any, Any]:
    from agents import (
        Agent,
        OpenAIChatCompletionsModel,
        Runner,
        function_tool,
        set_trace_processors,
    )
    from openai import AsyncOpenAI
    from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

    telemetry = setup(endpoint, "openai-agents-service")
    set_trace_processors([])  # no export to the SDK's own backend
    OpenAIAgentsInstrumentor().instrument(tracer_provider=telemetry.provider)
    client = AsyncOpenAI(base_url=f"{base_url}/v1", api_key="test-key")
    agent = Agent(name="incident-bot", instructions="Answer from the metrics.",
                  model=OpenAIChatCompletionsModel(model="gpt-4o", openai_client=client),
                  tools=[function_tool(get_metrics)])

    def run_one(answer: str) -> Any:
        with answering_with(answer):
            return Runner.run_sync(agent, QUESTION).final_output

    return telemetry, run_one


def openai_v2(endpoint: str, base_url: str, *, app_span: bool = True) -> tuple[Any, Any]:
    from openai import OpenAI
    from opentelemetry import trace
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

    telemetry = setup(endpoint, "incident-service", logs=True)
    OpenAIInstrumentor().instrument(tracer_provider=telemetry.provider)
    client = OpenAI(base_url=f"{base_url}/v1", api_key="test-key")
    tracer = trace.get_tracer("incident_agent")
    tools = [{"type": "function", "function": {
        "name": "get_metrics", "description": "Read the current metrics of a host.",
        "parameters": {"type": "object", "properties": {"host": {"type": "string"}},
                       "required": ["host"]}}}]

    def run_one(answer: str) -> Any:
        run_span = (tracer.start_as_current_span("incident_agent.run") if app_span
                    else contextlib.nullcontext())
        with answering_with(answer), run_span:
            messages: list[dict[str, Any]] = [{"role": "user", "content": QUESTION}]
            while True:
                reply = client.chat.completions.create(model="gpt-4o", messages=messages,
                                                       tools=tools).choices[0].message
                if not reply.tool_calls:
                    return reply.content
                messages.append(reply.model_dump(exclude_none=True))
                for call in reply.tool_calls:
                    result = get_metrics(**json.loads(call.function.arguments))
                    messages.append({"role": "tool", "tool_call_id": call.id,
                                     "content": result})

    return telemetry, run_one


def main() -> None:
    args = arguments()
    base_url = fake_server()
    build = {"agents": agents_sdk, "openai-v2": openai_v2,
             "openai-v2-calls": functools.partial(openai_v2, app_span=False)}[args.mode]
    telemetry, run_one = build(args.endpoint, base_url)
    # Without the application span each model call is a trace of its own: the run's answer
    # is in the last one.
    run_all(telemetry, args.answers, run_one, last_trace=args.mode == "openai-v2-calls")


if __name__ == "__main__":
    main()
