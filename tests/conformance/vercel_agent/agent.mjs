// The Vercel AI SDK: generateText with a get_metrics tool and the SDK's own MockLanguageModelV4
// (asks for the tool, then answers), traced by @ai-sdk/otel: --mode genai (OpenTelemetry: GenAI
// semantic conventions) or --mode legacy (LegacyOpenTelemetry: ai.generateText / ai.toolCall).
// Usage: node agent.mjs --endpoint URL --mode MODE ANSWER...
// Prints {"runs": [{"answer": ..., "trace_id": ...}, ...]}.
import { LegacyOpenTelemetry, OpenTelemetry } from "@ai-sdk/otel";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";

const ROW = "host=db-prod-1 cpu_pct=97.2 at=14:02:01";
const argv = process.argv.slice(2);
const option = (name) => argv[argv.indexOf(name) + 1];
const endpoint = option("--endpoint");
const mode = argv.includes("--mode") ? option("--mode") : "genai";
const answers = argv.filter((a, i) => !a.startsWith("--") && !argv[i - 1]?.startsWith("--"));

const roots = [];
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ "service.name": "vercel-service" }),
  spanProcessors: [
    {
      onStart() {},
      onEnd(span) {
        const parent = span.parentSpanContext ?? span.parentSpanId;
        if (!parent && !roots.includes(span.spanContext().traceId)) roots.push(span.spanContext().traceId);
      },
      forceFlush: async () => {},
      shutdown: async () => {},
    },
    new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint}/v1/traces` })),
  ],
});
const tracer = provider.getTracer("incident-agent");
const integration = mode === "legacy" ? new LegacyOpenTelemetry({ tracer }) : new OpenTelemetry({ tracer, agentSpanName: "functionId" });

const usage = {
  inputTokens: { total: 20, noCache: 20, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 10, text: 10, reasoning: 0 },
};

function model(answer) {
  return new MockLanguageModelV4({
    modelId: "mock-model",
    doGenerate: async ({ prompt }) => {
      const answered = prompt.some((message) => message.role === "tool");
      return answered
        ? { content: [{ type: "text", text: answer }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }
        : {
            content: [{ type: "tool-call", toolCallId: "call_1", toolName: "get_metrics", input: JSON.stringify({ host: "db-prod-1" }) }],
            finishReason: { unified: "tool-calls", raw: "tool_calls" },
            usage,
            warnings: [],
          };
    },
  });
}

const getMetrics = tool({
  description: "Read the current metrics of a host.",
  inputSchema: z.object({ host: z.string() }),
  execute: async ({ host }) => (host === "db-prod-1" ? ROW : `host=${host} unknown`),
});

const runs = [];
for (const answer of answers) {
  const before = roots.length;
  await generateText({
    model: model(answer),
    tools: { get_metrics: getMetrics },
    stopWhen: stepCountIs(3),
    prompt: "Why is db-prod-1 slow?",
    telemetry: { isEnabled: true, functionId: "incident-bot", integrations: integration },
  });
  await provider.forceFlush();
  const fresh = roots.slice(before);
  if (fresh.length !== 1) throw new Error(`one run made ${fresh.length} traces`);
  runs.push({ answer, trace_id: fresh[0] });
}
await provider.shutdown();
console.log(JSON.stringify({ runs }));
