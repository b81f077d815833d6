"""Google ADK with its built-in OpenTelemetry tracing and a ``BaseLlm`` subclass as the offline
model (no Gemini call): ``--mode current`` (ADK's default span format, message content captured
with ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``: messages as log records) or
``--mode v1`` (run with ``ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN=1``: the older format, whose
answer is only in ``gcp.vertex.agent.llm_response``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

from common import HOST_ARGUMENTS, QUESTION, arguments, get_metrics, run_all, setup
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types


class OfflineLlm(BaseLlm):
    """Asks for the metrics, then answers with :attr:`answer`."""

    answer: str = ""

    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False
                                     ) -> AsyncGenerator[LlmResponse, None]:
        answered = any(part.function_response is not None
                       for content in llm_request.contents for part in content.parts or ())
        if answered:
            part = types.Part(text=self.answer)
        else:
            part = types.Part(function_call=types.FunctionCall(
                id="adk-call-1", name="get_metrics", args=dict(HOST_ARGUMENTS)))
        yield LlmResponse(content=types.Content(role="model", parts=[part]),
                          finish_reason=types.FinishReason.STOP)


def main() -> None:
    args = arguments()
    telemetry = setup(args.endpoint, "adk-service", logs=True)
    model = OfflineLlm(model="offline-model")
    agent = LlmAgent(name="incident_bot", model=model, tools=[get_metrics],
                     instruction="Answer from the metrics.")
    runner = InMemoryRunner(agent=agent, app_name="incident")

    async def one(answer: str) -> str:
        model.answer = answer
        session = await runner.session_service.create_session(app_name="incident",
                                                               user_id="ops")
        text = ""
        async for event in runner.run_async(
                user_id="ops", session_id=session.id,
                new_message=types.Content(role="user", parts=[types.Part(text=QUESTION)])):
            for part in (event.content.parts if event.content else None) or ():
                text = part.text or text
        return text

    def run_one(answer: str) -> Any:
        return asyncio.run(one(answer))

    run_all(telemetry, args.answers, run_one)


if __name__ == "__main__":
    main()
