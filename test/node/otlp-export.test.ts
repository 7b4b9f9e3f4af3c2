// The edge's OTLP/HTTP JSON exporter against a real receiver on 127.0.0.1: a run that halts
// and resumes in a fresh client arrives as one trace, decoded as OTLP JSON (structure, not text).
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  answerOutput,
  createClient,
  createToolkit,
  defineTool,
  requireApproval,
  type RunResult,
} from "../../src/core";
import {
  edgeTelemetry,
  OtlpConfigError,
  OtlpExporter,
  createEdgeTracer,
  parseOtlpHeaders,
  telemetryMetrics,
  type FinishedSpan,
} from "../../src/edge/telemetry";
import { fakeLlm } from "../helpers/fake-llm";
import { settings } from "../../src/edge/settings";

interface Received {
  path: string;
  headers: IncomingMessage["headers"];
  body: any;
}

let server: Server;
let origin: string;
const received: Received[] = [];
/** Statuses to answer with, in order; then 200. */
const plan: number[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const status = plan.shift() ?? 200;
      received.push({
        path: req.url ?? "",
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
      });
      res.writeHead(status, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const reset = () => {
  received.length = 0;
  plan.length = 0;
};

/** Every span of every request, with its resource and scope, as a collector would store them. */
function decode(requests: Received[]) {
  const spans: Array<{ resource: any; scope: any; span: any }> = [];
  for (const { body } of requests) {
    expect(Array.isArray(body.resourceSpans)).toBe(true);
    for (const rs of body.resourceSpans) {
      for (const ss of rs.scopeSpans) {
        for (const span of ss.spans) {
          spans.push({ resource: rs.resource, scope: ss.scope, span });
        }
      }
    }
  }
  return spans;
}

/** An OTLP attribute list → a plain object (AnyValue decoded by its one member). */
function attrs(list: Array<{ key: string; value: Record<string, unknown> }>) {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list) {
    const [kind, v] = Object.entries(value)[0] as [string, any];
    out[key] =
      kind === "intValue"
        ? Number(v)
        : kind === "arrayValue"
          ? v.values.map((x: any) => Object.values(x)[0])
          : v;
  }
  return out;
}

async function toolkit() {
  const refund = requireApproval(
    defineTool({ name: "refund", description: "Refund", run: () => "refunded" }),
    { prompt: "Refund?" },
  );
  return createToolkit({ tools: [refund] });
}

describe("OTLP/HTTP JSON export", () => {
  it("a halted and a resumed half, exported from two clients, are one trace at the collector", async () => {
    reset();
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: `${origin}/otlp/`,
      OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=s3cr%3Dt,x-team = a%20b",
    };
    const errors: Error[] = [];
    let t = Date.UTC(2026, 0, 5, 9);
    const llm = fakeLlm("openai", [
      { toolCalls: [{ id: "c1", name: "refund", args: { order: 42 } }] },
      { content: "Refunded." },
    ]);
    const make = () => {
      const telemetry = edgeTelemetry(env, { report: (e) => errors.push(e) });
      if (!telemetry) {
        throw new Error("expected telemetry with an endpoint");
      }
      const client = createClient({
        baseUrl: "https://llm.example/v1",
        style: "openai",
        model: "m",
        fetch: llm.fetch,
        tracer: telemetry.tracer,
        tracing: { agentName: "support", now: () => t },
      });
      return { client, telemetry };
    };
    const first = make();
    const halted: RunResult = JSON.parse(
      JSON.stringify(await first.client.run("Refund 42", { toolkit: await toolkit() })),
    );
    await first.telemetry.flush();
    t += 3_600_000; // decided an hour later
    const second = make();
    const pending = halted.pending as NonNullable<RunResult["pending"]>;
    await second.client.runWithAnswer({
      ...halted,
      toolkit: await toolkit(),
      pending,
      answer: answerOutput(pending.id),
    });
    await second.telemetry.flush();

    expect(errors).toEqual([]);
    expect(received.length).toBeGreaterThanOrEqual(2);
    for (const r of received) {
      expect(r.path).toBe("/otlp/v1/traces");
      expect(r.headers["content-type"]).toBe("application/json");
      expect(r.headers["x-api-key"]).toBe("s3cr=t");
      expect(r.headers["x-team"]).toBe("a b");
    }
    const spans = decode(received);
    expect(new Set(spans.map((s) => s.span.traceId)).size).toBe(1);
    for (const { resource, scope, span } of spans) {
      expect(attrs(resource.attributes)["service.name"]).toBe("toolnexus-edge");
      expect(scope.name).toBe("toolnexus-edge");
      expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(typeof span.startTimeUnixNano).toBe("string");
      expect(BigInt(span.endTimeUnixNano) >= BigInt(span.startTimeUnixNano)).toBe(true);
    }
    const named = (name: string) => spans.filter((s) => s.span.name === name).map((s) => s.span);
    const [run, resumed] = named("invoke_agent support");
    expect(run.parentSpanId).toBeUndefined();
    expect(resumed.parentSpanId).toBe(run.spanId);
    expect(run.kind).toBe(1); // SPAN_KIND_INTERNAL
    const wait = named("await_decision refund")[0];
    expect(wait.parentSpanId).toBe(run.spanId);
    expect(BigInt(wait.endTimeUnixNano) - BigInt(wait.startTimeUnixNano)).toBe(3_600_000_000_000n);
    expect(attrs(wait.attributes)).toMatchObject({
      "toolnexus.request.outcome": "approved",
      "toolnexus.request.wait_ms": 3_600_000,
    });
    const chat = named("chat m")[0];
    expect(chat.kind).toBe(3); // SPAN_KIND_CLIENT
    expect(attrs(chat.attributes)["gen_ai.response.finish_reasons"]).toEqual(["tool_calls"]);
    expect(named("execute_tool refund")).toHaveLength(1);
    expect(named("execute_tool refund")[0].parentSpanId).toBe(resumed.spanId);
  });

  it("retries a 503, then gives up on a 500: counted, reported, never thrown", async () => {
    reset();
    const errors: Error[] = [];
    const exporter = new OtlpExporter({
      url: `${origin}/v1/traces`,
      headers: {},
      resource: { serviceName: "t" },
      scope: { name: "t" },
      report: (e) => errors.push(e),
      sleep: async () => undefined,
    });
    const tracer = createEdgeTracer({ onEnd: (s) => exporter.push(s) });
    plan.push(503);
    tracer.startSpan("a").end();
    await exporter.flush();
    expect(received).toHaveLength(2);
    expect(exporter.stats()).toMatchObject({ exportedSpans: 1, failedExports: 0 });

    reset();
    plan.push(500);
    tracer.startSpan("b").end();
    await expect(exporter.flush()).resolves.toBeUndefined();
    expect(received).toHaveLength(1); // a 500 is not retried
    expect(exporter.stats()).toMatchObject({ failedExports: 1, droppedSpans: 1 });
    expect(errors.map((e) => e.message)).toEqual(["OTLP export of 1 span(s) failed: HTTP 500"]);
  });

  it("an unreachable collector: bounded retries, then counted", async () => {
    const errors: Error[] = [];
    let attempts = 0;
    const exporter = new OtlpExporter({
      url: "http://127.0.0.1:9/v1/traces",
      headers: {},
      resource: { serviceName: "t" },
      scope: { name: "t" },
      retries: 2,
      report: (e) => errors.push(e),
      sleep: async () => undefined,
      fetch: async (input, init) => {
        attempts++;
        return fetch(input, init);
      },
    });
    createEdgeTracer({ onEnd: (s) => exporter.push(s) })
      .startSpan("x")
      .end();
    await exporter.flush();
    expect(attempts).toBe(3);
    expect(exporter.stats().failedExports).toBe(1);
    expect(errors).toHaveLength(1);
  });

  it("bounds: the queue drops the oldest, a large batch is split by bytes", async () => {
    reset();
    const errors: Error[] = [];
    const exporter = new OtlpExporter({
      url: `${origin}/v1/traces`,
      headers: {},
      resource: { serviceName: "t" },
      scope: { name: "t" },
      maxQueue: 10,
      maxBodyBytes: 2_000,
      report: (e) => errors.push(e),
    });
    const tracer = createEdgeTracer({ onEnd: (s: FinishedSpan) => exporter.push(s) });
    for (let i = 0; i < 12; i++) {
      tracer.startSpan(`span-${i}`, { attributes: { pad: "x".repeat(300) } }).end();
    }
    expect(exporter.queued).toBe(10);
    await exporter.flush();
    const names = decode(received).map((s) => s.span.name);
    expect(names).toEqual(Array.from({ length: 10 }, (_, i) => `span-${i + 2}`));
    expect(received.length).toBeGreaterThan(1);
    for (const r of received) {
      expect(Buffer.byteLength(JSON.stringify(r.body))).toBeLessThanOrEqual(2_000);
    }
    expect(exporter.stats()).toMatchObject({ exportedSpans: 10, droppedSpans: 2 });
    expect(errors.some((e) => e.message.includes("queue full"))).toBe(true);
  });

  it("settings: no endpoint, nothing; headers parsed per the spec; bad values name the variable", () => {
    expect(settings({}).otlp).toBeUndefined();
    expect(edgeTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: "" })).toBeUndefined();
    expect(settings({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://c.example:4318" }).otlp?.url).toBe(
      "https://c.example:4318/v1/traces",
    );
    expect(parseOtlpHeaders("a=1, b = x%2Cy ,,c=")).toEqual({ a: "1", b: "x,y", c: "" });
    expect(() => parseOtlpHeaders("novalue")).toThrow(OtlpConfigError);
    expect(() => parseOtlpHeaders("bad name=1")).toThrow(/entry 1 is not a valid header/);
    expect(() => settings({ OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" }).otlp).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
    expect(telemetryMetrics()).toMatch(/^toolnexus_trace_export_failures_total \d+$/m);
  });
});
