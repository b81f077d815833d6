// One agent run in GenAI semantic-conventions shape (invoke_agent > chat > execute_tool > chat),
// exported span by span over OTLP/HTTP protobuf to each of the URLs (comma-separated: a tee).
// Usage: node agent.mjs URL[,URL...] ANSWER TOOL_RESULT [PHOENIX_PROJECT]
// Prints {"trace_id": ..., "span_id": ...} of the run span.
import { context, trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";

const [urls, answer, toolResult, project] = process.argv.slice(2);
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({
    "service.name": "node-agent",
    ...(project ? { "openinference.project.name": project } : {}),
  }),
  spanProcessors: urls.split(",").map((url) => new SimpleSpanProcessor(new OTLPTraceExporter({ url }))),
});
const tracer = provider.getTracer("node-agent");

const user = { role: "user", parts: [{ type: "text", content: "Why is db-prod-1 slow?" }] };
const call = {
  role: "assistant", finish_reason: "tool_call",
  parts: [{ type: "tool_call", id: "call_1", name: "get_metrics", arguments: { host: "db-prod-1" } }],
};
const result = { role: "tool", parts: [{ type: "tool_call_response", id: "call_1", response: toolResult }] };
const final = { role: "assistant", finish_reason: "stop", parts: [{ type: "text", content: answer }] };

const run = tracer.startSpan("invoke_agent node-bot", {
  attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "node-bot" },
});
const inRun = trace.setSpan(context.active(), run);
const child = (name, attributes) => tracer.startSpan(name, { attributes }, inRun).end();
child("chat gpt-4o", {
  "gen_ai.operation.name": "chat",
  "gen_ai.input.messages": JSON.stringify([user]),
  "gen_ai.output.messages": JSON.stringify([call]),
});
child("execute_tool get_metrics", {
  "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_metrics",
  "gen_ai.tool.call.id": "call_1", "gen_ai.tool.call.result": toolResult,
});
child("chat gpt-4o", {
  "gen_ai.operation.name": "chat",
  "gen_ai.input.messages": JSON.stringify([user, call, result]),
  "gen_ai.output.messages": JSON.stringify([final]),
});
run.setAttribute("gen_ai.output.messages", JSON.stringify([final]));
run.end();
await provider.forceFlush();
await provider.shutdown();
const { traceId, spanId } = run.spanContext();
console.log(JSON.stringify({ trace_id: traceId, span_id: spanId }));
