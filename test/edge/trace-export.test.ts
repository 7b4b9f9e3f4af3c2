// One trace across a durable halt, at the edge (issue 29 §2, §3): a run suspends, every
// object is evicted, the decision resumes it in a freshly constructed object, and a fake
// OTLP/HTTP collector receives both halves as ONE trace, decoded as OTLP JSON.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { abortAllDurableObjects, env } from "cloudflare:test";
import { api, pendingRun, signedDecision, waitForStatus } from "../helpers/http";
import { inThread } from "../helpers/durable";
import { decodeOtlp } from "../helpers/otlp";

const COLLECTOR = "http://otlp.test";
const received: Array<{ url: string; headers: Headers; body: unknown }> = [];
/** Statuses the collector answers with, in order; then 200. */
const plan: number[] = [];
const realFetch = globalThis.fetch;
const mutableEnv = env as unknown as Record<string, string | undefined>;

beforeAll(() => {
  // This file's isolate only: every other test file runs without an endpoint.
  mutableEnv.OTEL_EXPORTER_OTLP_ENDPOINT = COLLECTOR;
  mutableEnv.OTEL_EXPORTER_OTLP_HEADERS = "x-tenant=demo%20team";
  vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    if (!request.url.startsWith(COLLECTOR)) {
      return realFetch(input, init);
    }
    received.push({ url: request.url, headers: request.headers, body: await request.json() });
    return new Response("{}", { status: plan.shift() ?? 200 });
  });
});
afterAll(() => {
  vi.unstubAllGlobals();
  delete mutableEnv.OTEL_EXPORTER_OTLP_ENDPOINT;
  delete mutableEnv.OTEL_EXPORTER_OTLP_HEADERS;
});

describe("traces across an eviction", () => {
  it("the halted and the resumed half are one trace at the collector", async () => {
    const { runId, threadId, request } = await pendingRun("Refund order 42 for $120");
    const stored = await inThread(threadId, (instance) => instance.store.requireRun(runId).trace);
    const carrier = stored!;
    expect(carrier.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(Object.keys(carrier.waiting ?? {})).toEqual([request.id]);

    await abortAllDurableObjects(); // the resumed half runs in an object constructed afresh
    const decided = await signedDecision({ runId, requestId: request.id, decision: "approve" });
    expect(decided.status).toBe(202);
    expect((await waitForStatus(runId, ["done"])).status).toBe("done");

    const traceId = carrier.traceparent.split("-")[1];
    const runSpanId = carrier.traceparent.split("-")[2];
    // Sent from waitUntil after the drive: wait until both segments' run spans have arrived.
    await vi.waitFor(
      () => {
        const segments = decodeOtlp(received.map((r) => r.body)).filter(
          (s) => s.attributes["toolnexus.run.id"] === runId,
        );
        // The edge starts a run from storage (continueRun), so its first segment is `continue`.
        expect(segments.map((s) => s.attributes["toolnexus.run.segment"]).sort()).toEqual([
          "continue",
          "resume",
        ]);
      },
      { timeout: 10_000, interval: 50 },
    );

    for (const r of received) {
      expect(r.url).toBe(`${COLLECTOR}/v1/traces`);
      expect(r.headers.get("content-type")).toMatch(/^application\/json/);
      expect(r.headers.get("x-tenant")).toBe("demo team");
    }
    const spans = decodeOtlp(received.map((r) => r.body)).filter((s) => s.traceId === traceId);
    const ofRun = decodeOtlp(received.map((r) => r.body)).filter(
      (s) => s.attributes["gen_ai.conversation.id"] === threadId,
    );
    expect(new Set(ofRun.map((s) => s.traceId))).toEqual(new Set([traceId])); // ONE trace id
    expect(spans.length).toBe(ofRun.length);

    const runSpan = spans.find((s) => s.spanId === runSpanId);
    expect(runSpan?.name).toBe("invoke_agent support");
    expect(runSpan?.parentSpanId).toBeUndefined();
    expect(runSpan?.attributes["toolnexus.run.status"]).toBe("pending");
    const resumed = spans.find((s) => s.attributes["toolnexus.run.segment"] === "resume");
    expect(resumed?.parentSpanId).toBe(runSpanId);
    expect(resumed?.attributes["toolnexus.run.status"]).toBe("done");

    const wait = spans.find((s) => s.name.startsWith("await_decision"));
    expect(wait?.parentSpanId).toBe(runSpanId);
    expect(wait?.attributes).toMatchObject({
      "toolnexus.request.id": request.id,
      "toolnexus.request.outcome": "approved",
      "toolnexus.request.channel": "webhook",
    });
    // The decider is a salted hash (the webhook decision's decided_by), never in clear.
    expect(wait?.attributes).not.toHaveProperty("toolnexus.request.decided_by");
    expect(wait!.end >= wait!.start).toBe(true);

    const tools = spans.filter((s) => s.name.startsWith("execute_tool"));
    expect(tools.length).toBeGreaterThan(0);
    for (const s of spans) {
      expect(s.resource["service.name"]).toBe("toolnexus-edge");
    }
  });

  it("a failing collector shows in /metrics and the error sink; the run is not failed by it", async () => {
    const warnings: string[] = [];
    const warn = vi.spyOn(console, "warn").mockImplementation((line: unknown) => {
      warnings.push(String(line));
    });
    plan.push(500, 500, 500, 500, 500, 500);
    const before = failures(await (await api("/metrics")).text());
    const { runId, request } = await pendingRun("Refund order 43 for $80");
    expect(
      (await signedDecision({ runId, requestId: request.id, decision: "decline" })).status,
    ).toBe(202);
    const run = await waitForStatus(runId, ["done", "failed", "incomplete"]);
    expect(run.status).toBe("done");
    await vi.waitFor(
      async () => expect(failures(await (await api("/metrics")).text())).toBeGreaterThan(before),
      { timeout: 10_000, interval: 100 },
    );
    warn.mockRestore();
    const sunk = warnings.flatMap((w) => (w.startsWith("{") ? [JSON.parse(w)] : []));
    expect(sunk).toContainEqual(
      expect.objectContaining({ source: "telemetry", code: "telemetry_retry", level: "warn" }),
    );
  });

  it("without OTEL_EXPORTER_OTLP_ENDPOINT nothing is traced or sent", async () => {
    delete mutableEnv.OTEL_EXPORTER_OTLP_ENDPOINT;
    await abortAllDurableObjects();
    received.length = 0;
    const { runId, threadId, request } = await pendingRun("Refund order 44 for $90");
    expect(
      (await signedDecision({ runId, requestId: request.id, decision: "approve" })).status,
    ).toBe(202);
    expect((await waitForStatus(runId, ["done"])).status).toBe("done");
    const stored = await inThread(threadId, (instance) => instance.store.requireRun(runId).trace);
    expect(stored).toBeNull(); // no tracer: the kernel left no trace on the result
    const ofRun = decodeOtlp(received.map((r) => r.body)).filter(
      (s) => s.attributes["gen_ai.conversation.id"] === threadId,
    );
    expect(ofRun).toEqual([]);
  });
});

function failures(metrics: string): number {
  const line = metrics
    .split("\n")
    .find((l) => l.startsWith("toolnexus_trace_export_failures_total "));
  expect(line).toBeDefined();
  return Number(line!.split(" ")[1]);
}
