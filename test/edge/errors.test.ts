/**
 * Mistakes say what is wrong, and errors the service handles itself reach the
 * application's sink: an agent without a model, a missing or misnamed binding, a
 * driver that fails, a notification that does not get through, an unexpected 500.
 */
import { describe, expect, it, vi } from "vitest";
import {
  createExecutionContext,
  createMessageBatch,
  env,
  getQueueResult,
  runInDurableObject,
} from "cloudflare:test";
import { createEdge } from "../../src/create-edge";
import { defineAgent } from "../../src/edge/agent";
import { defineTool, requireApproval } from "../../src/core";
import { supportAgent } from "../../src/edge/demo/agent";
import type { ErrorInfo } from "../../src/edge/error-sink";
import type { EdgeEnv } from "../../src/edge/settings";
import type { DriveMessage, NotifyMessage, RunView } from "../../src/edge/protocol";
import type { ThreadObjectInternals } from "../../durable/thread/object";
import { RunStore } from "../../durable/storage/run-store";
import { newRunId, newThreadId } from "../../src/edge/http/threads";
import { API_TOKEN, BASE } from "../helpers/edge";
import { startPending, threadStub } from "../helpers/durable";

const noModel = defineAgent({
  name: "no-model",
  description: "An agent nobody gave a model",
  systemPrompt: "…",
  tools: [],
});

const brokenTools = defineAgent({
  name: "broken-tools",
  description: "Its tools cannot be built",
  systemPrompt: "…",
  tools: () => {
    throw new Error("CRM_TOKEN is not set");
  },
  demoModel: () => ({ role: "assistant", content: "unreachable" }),
});

/** Payouts over $500 need the `auditors`, a group the test configuration does not define. */
const payouts = defineAgent({
  name: "payouts",
  description: "Pays out, with approvers that depend on the amount",
  systemPrompt: "…",
  tools: [
    requireApproval(
      defineTool({
        name: "pay",
        description: "Pay an amount",
        inputSchema: {
          type: "object",
          properties: { amount: { type: "number" } },
          required: ["amount"],
        },
        run: ({ amount }: { amount: number }) => `paid $${amount}`,
      }),
      {
        approvers: (a: { amount: number }) => (a.amount > 500 ? { group: "auditors" } : undefined),
      },
    ),
  ],
  demoModel: (request) =>
    request.messages.at(-1)?.role === "user"
      ? { toolCalls: [{ id: "call_pay", name: "pay", arguments: { amount: 900 } }] }
      : { content: "done" },
});

/** An edge whose sink records what it receives. */
function recordingEdge(options: { fetch?: typeof fetch } = {}) {
  const reported: Array<{ error: Error; info: ErrorInfo }> = [];
  const edge = createEdge({
    agents: [supportAgent, noModel, brokenTools, payouts],
    onError: (error, info) => reported.push({ error, info }),
    ...options,
  });
  return { edge, reported };
}

async function call(
  edge: ReturnType<typeof createEdge>,
  path: string,
  init: RequestInit = {},
  environment: EdgeEnv = env,
) {
  const request = new Request(`${BASE}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
  });
  return edge.worker.fetch!(
    request as Parameters<NonNullable<typeof edge.worker.fetch>>[0],
    environment,
    createExecutionContext(),
  );
}

/**
 * Starts and drives a run inside a thread object of `edge`'s class, with the resume
 * queue captured (so the deployed worker's own consumer never sees it).
 */
async function driveInObject(
  edge: ReturnType<typeof createEdge>,
  agent: string,
  extra: {
    env?: Record<string, unknown>;
    start?: { callbackUrl?: string };
    /** Runs after the start, before the first drive (to break something for that drive). */
    beforeDrive?: () => void;
    /** Runs after the first drive, inside the object (a second drive, an alarm). */
    afterDrive?: (object: ThreadObjectInternals, runId: string) => Promise<void>;
  } = {},
) {
  const threadId = newThreadId();
  const runId = newRunId(threadId);
  const sent: DriveMessage[] = [];
  const queue = {
    send: async (message: DriveMessage) => {
      sent.push(message);
    },
    sendBatch: async () => {},
  };
  const view = await runInDurableObject(threadStub(threadId), async (_instance, state) => {
    const object = new edge.ThreadObject(state, { ...env, RESUME_QUEUE: queue, ...extra.env });
    // The run as `start` stores it, without the drive `start` now begins at once (issue 26):
    // the first drive below is the queue's, the one whose failure this file is about.
    const definition = [supportAgent, noModel, brokenTools, payouts].find((a) => a.name === agent);
    (object as unknown as ThreadObjectInternals).store.insertRun({
      runId,
      threadId,
      agent,
      input: "Please delete my account",
      publicUrl: BASE,
      now: Date.now(),
      ...(definition?.systemPrompt ? { systemPrompt: definition.systemPrompt } : {}),
      ...extra.start,
    });
    extra.beforeDrive?.();
    const drove = await object.drive(runId).then(
      () => undefined,
      (error: unknown) => error,
    );
    await extra.afterDrive?.(object as unknown as ThreadObjectInternals, runId);
    const run = await object.getRun(runId);
    // The stored log (an SSE stream of a run still pending would stay open).
    const rows = (object as unknown as ThreadObjectInternals).store.eventsAfter(runId, 0);
    const events = rows.map((row) => `event: ${row.type}\ndata: ${row.data}`).join("\n\n");
    await state.storage.deleteAlarm();
    return { run, events, drove };
  });
  return { ...view, runId, threadId, sent };
}

describe("an agent without a model", () => {
  it("is refused up front with 400 agent_has_no_model", async () => {
    const { edge } = recordingEdge();
    const response = await call(edge, "/v1/runs", {
      method: "POST",
      body: JSON.stringify({ agent: "no-model", input: "hello" }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("agent_has_no_model");
    expect(body.error.message).toMatch(/LLM_BASE_URL/);
    expect(body.error.message).toMatch(/demoModel/);
  });

  it("fails the run at once with a clear error when it reaches the driver", async () => {
    const { edge, reported } = recordingEdge();
    const { run, events, runId, threadId } = await driveInObject(edge, "no-model");
    expect((run as RunView).status).toBe("failed");
    expect((run as RunView).error).toEqual({
      code: "config_error",
      message: expect.stringMatching(/no model: set LLM_BASE_URL.*demoModel/),
    });
    expect(events).toMatch(/event: error\ndata: \{"code":"config_error","message":"no model/);
    expect(reported).toHaveLength(1);
    // The sink hears the run's own code (its log line says config_error, not driver_failed).
    expect(reported[0]!.info).toEqual({
      source: "driver",
      runId,
      threadId,
      code: "config_error",
      recoverable: false,
    });
    expect(reported[0]!.error.message).toMatch(/no model/);
  });
});

describe("a model endpoint that is down", () => {
  it("fails the run with the URL (no credentials) and the cause, in its error and event", async () => {
    const { edge, reported } = recordingEdge({
      fetch: async () => {
        throw new Error("Network connection lost.");
      },
    });
    const { run, events } = await driveInObject(edge, "support", {
      env: {
        LLM_BASE_URL: "https://gateway-user:gateway-pw@llm.down.test",
        LLM_STYLE: "anthropic",
        LLM_MODEL: "claude-test",
        LLM_API_KEY: "sk-ant-never-shown",
      },
    });
    const expected =
      "anthropic: request to https://llm.down.test/v1/messages failed: Network connection lost.";
    expect((run as RunView).status).toBe("failed");
    expect((run as RunView).error).toEqual({ code: "provider_error", message: expected });
    expect(events).toContain(
      `event: error\ndata: ${JSON.stringify({ code: "provider_error", message: expected })}`,
    );
    expect(events).not.toMatch(/gateway-pw|sk-ant-never-shown/);
    expect(reported.at(-1)!.error.message).toBe(expected);
  });
});

describe("the error sink", () => {
  it("receives a driver failure with its run and thread; the run ends failed", async () => {
    const { edge, reported } = recordingEdge();
    const { run, runId, threadId } = await driveInObject(edge, "broken-tools");
    expect((run as RunView).status).toBe("failed");
    expect((run as RunView).error).toEqual({
      code: "driver_failed",
      message: "CRM_TOKEN is not set",
    });
    expect(reported.map((r) => r.info)).toEqual([
      { source: "driver", runId, threadId, code: "driver_failed", recoverable: false },
    ]);
    expect(reported[0]!.error.message).toBe("CRM_TOKEN is not set");
  });

  it("a failure outside the loop is a visible, recoverable error event, reported and rethrown for a retry", async () => {
    const { edge, reported } = recordingEdge();
    let redrive: unknown = "not tried";
    const { run, events, drove, runId, threadId } = await driveInObject(edge, "support", {
      // Storage fails once where the driver stores the turn's outcome, after the model loop.
      beforeDrive: () => {
        vi.spyOn(RunStore.prototype, "requireRun").mockImplementationOnce(() => {
          throw new Error("storage unavailable");
        });
      },
      // What the queue's redelivery (or the watchdog alarm) does next.
      afterDrive: async (object, id) => {
        redrive = await object.drive(id).then(
          () => undefined,
          (error: unknown) => error,
        );
      },
    });
    vi.restoreAllMocks();
    // The queue consumer sees the failure (and redelivers); the watchdog alarm backs it up.
    expect(drove).toBeInstanceOf(Error);
    expect((drove as Error).message).toBe("storage unavailable");
    expect(events).toMatch(
      /event: error\ndata: \{"message":"driver failed, retrying: storage unavailable","recoverable":true\}/,
    );
    expect(reported.map((r) => r.info)).toEqual([
      { source: "driver", runId, threadId, recoverable: true },
    ]);
    // The retry finishes the job: the run suspends on its approval.
    expect(redrive).toBeUndefined();
    expect((run as RunView).status).toBe("pending");
  });

  it("a notification the queue refuses is a visible, recoverable error; the alarm queues it again", async () => {
    const { edge, reported } = recordingEdge();
    const queued: NotifyMessage[] = [];
    let refusals = 1;
    const flakyQueue = {
      send: async (message: NotifyMessage) => {
        if (refusals > 0) {
          refusals -= 1;
          throw new Error("queue unavailable");
        }
        queued.push(message);
      },
      sendBatch: async () => {},
    };
    let stored: unknown[] = [];
    const { run, events, drove, runId, threadId } = await driveInObject(edge, "support", {
      env: { NOTIFY_QUEUE: flakyQueue },
      start: { callbackUrl: "https://hooks.example.com/approvals" },
      afterDrive: async (object) => {
        // Stored with the suspension, still there after the refusal.
        stored = object.notifications.due(Number.MAX_SAFE_INTEGER);
        expect(queued).toEqual([]);
        expect(object.notifications.retryAt()).toBeGreaterThan(Date.now());
        await object.alarm(); // too early: nothing is due yet
        expect(queued).toEqual([]);
        vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 1_500 });
        try {
          await object.alarm();
        } finally {
          vi.useRealTimers();
        }
        expect(object.notifications.retryAt()).toBeUndefined();
      },
    });
    // The run itself suspended normally; only the notification waited.
    expect(drove).toBeUndefined();
    expect((run as RunView).status).toBe("pending");
    const requestId = (run as RunView).pending!.id;
    expect(stored).toEqual([{ message: { threadId, runId, requestId }, attempts: 1 }]);
    expect(queued).toEqual([{ threadId, runId, requestId }]);
    expect(events).toMatch(
      new RegExp(
        `event: error\ndata: \\{"message":"notification not queued, retrying: queue unavailable","requestId":"${requestId}","recoverable":true\\}`,
      ),
    );
    expect(reported.map((r) => r.info)).toEqual([
      { source: "notify", runId, threadId, requestId, recoverable: true },
    ]);
  });

  it("a request whose rules (known only from its arguments) name an undefined group says so when it surfaces", async () => {
    const { edge, reported } = recordingEdge();
    const { run, events, drove, runId, threadId } = await driveInObject(edge, "payouts");
    expect(drove).toBeUndefined();
    // Not failed: a fixed configuration makes it decidable.
    expect((run as RunView).status).toBe("pending");
    const requestId = (run as RunView).pending!.id;
    const message = `nobody can decide request ${requestId} yet: agent "payouts", tool "pay": approver group "auditors" is not defined (define it in APPROVER_GROUPS or createEdge({ approverGroups }))`;
    expect(events).toContain(
      `event: error\ndata: ${JSON.stringify({ message, requestId, recoverable: true })}`,
    );
    expect(reported.map((r) => [r.info, r.error.message])).toEqual([
      [{ source: "driver", runId, threadId, requestId, recoverable: false }, message],
    ]);
    // The operator defines the group (a new deployment's environment): now it can be decided.
    const decidedAfterFix = await runInDurableObject(threadStub(threadId), async (_i, state) => {
      const fixed = new edge.ThreadObject(state, {
        ...env,
        APPROVER_GROUPS: JSON.stringify({ auditors: ["audit@example.com"] }),
      });
      const outcome = await fixed.decide({
        runId,
        requestId,
        decision: "decline",
        decidedBy: "audit@example.com",
        channel: "webhook",
      });
      await state.storage.deleteAlarm();
      return outcome;
    });
    expect(decidedAfterFix).toMatchObject({ ok: true, duplicate: false });
  });

  it("receives an MCP server that cannot be reached; the run goes on without its tools", async () => {
    const reported: Array<{ error: Error; info: ErrorInfo }> = [];
    const withMcp = defineAgent({
      name: "with-mcp",
      description: "Has a remote MCP server that is down",
      systemPrompt: "…",
      tools: [],
      mcp: { mcpServers: { crm: { url: "https://crm.example/mcp" } } },
      demoModel: () => ({ content: "answered without the CRM" }),
    });
    const down = (async () => new Response("down", { status: 503 })) as typeof fetch;
    const edge = createEdge({
      agents: [withMcp],
      fetch: down,
      onError: (error, info) => reported.push({ error, info }),
    });
    const { run, runId, threadId } = await driveInObject(edge, "with-mcp");
    expect((run as RunView).status).toBe("done");
    expect((run as RunView).text).toBe("answered without the CRM");
    expect(reported.map((r) => r.info)).toEqual([
      { source: "driver", runId, threadId, recoverable: true },
    ]);
    expect(reported[0]!.error.message).toMatch(/^MCP server crm is unavailable/);
  });

  it("receives a failed notification with its run, thread and request", async () => {
    const failing = (async () => new Response("down", { status: 503 })) as typeof fetch;
    const { edge, reported } = recordingEdge({ fetch: failing });
    const started = await startPending("Please refund $80 on order 42", {
      callbackUrl: `http://127.0.0.1:9/hooks/${crypto.randomUUID()}`,
    });
    const message: NotifyMessage = {
      threadId: started.threadId,
      runId: started.runId,
      requestId: started.request.id,
    };
    const ids = { runId: started.runId, threadId: started.threadId, requestId: message.requestId };

    const batch = createMessageBatch<NotifyMessage>("toolnexus-notify", [
      { id: "m1", timestamp: new Date(), attempts: 2, body: message },
    ]);
    const ctx = createExecutionContext();
    await edge.worker.queue!(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).retryMessages).toHaveLength(1);
    expect(reported).toHaveLength(1);
    expect(reported[0]!.info).toEqual({ source: "notify", ...ids, recoverable: true });
    expect(reported[0]!.error.message).toMatch(/attempt 2\): HTTP 503$/);

    // Given up (dead-lettered): reported as final.
    const dead = createMessageBatch<NotifyMessage>("toolnexus-notify-dlq", [
      { id: "m2", timestamp: new Date(), attempts: 1, body: message }, // first from the DLQ
    ]);
    const deadCtx = createExecutionContext();
    await edge.worker.queue!(dead, env, deadCtx);
    await getQueueResult(dead, deadCtx);
    expect(reported).toHaveLength(2);
    expect(reported[1]!.info).toEqual({ source: "notify", ...ids, recoverable: false });
    expect(reported[1]!.error.message).toMatch(/gave up after 5 deliveries/);
  });

  it("receives an unexpected route error (the client gets a plain 500)", async () => {
    const exploding = defineAgent({
      name: "exploding",
      description: "Its tools throw when listed",
      systemPrompt: "…",
      tools: () => {
        throw new Error("tool registry unavailable");
      },
    });
    const reported: ErrorInfo[] = [];
    const edge = createEdge({
      agents: [exploding],
      onError: (_error, info) => reported.push(info),
    });
    const response = await call(edge, "/v1/agents");
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      error: { code: "internal_error", message: "internal error" },
    });
    expect(reported).toEqual([{ source: "http", recoverable: false }]);
  });

  it("a queue this edge was not told about is reported with the names it expects", async () => {
    const { edge, reported } = recordingEdge();
    const batch = createMessageBatch("my-resume-queue", [
      { id: "m1", timestamp: new Date(), attempts: 1, body: {} },
    ]);
    const ctx = createExecutionContext();
    await edge.worker.queue!(batch, env, ctx);
    // A body that says nothing is retried (test/edge/queue-mismatch.test.ts: the rest is handled).
    expect((await getQueueResult(batch, ctx)).retryMessages).toHaveLength(1);
    expect(reported[0]!.error.message).toMatch(
      /"my-resume-queue" is not one of this edge's queues \(toolnexus-resume,.*createEdge\(\{ queues \}\)/,
    );
  });

  it("a sink that throws is contained (and logged)", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const edge = createEdge({
      agents: [brokenTools],
      onError: () => {
        throw new Error("sink down");
      },
    });
    const { run } = await driveInObject(edge, "broken-tools");
    expect((run as RunView).status).toBe("failed");
    // One JSON line, as every log line: searchable by its code and the run's ids.
    const lines = logged.mock.calls.map(([line]) => JSON.parse(String(line)));
    const line = lines.find((l) => l.code === "error_sink_failed");
    expect(line).toMatchObject({
      level: "error",
      message: "toolnexus-edge: the onError sink threw: sink down",
      runId: (run as RunView).runId,
      threadId: (run as RunView).threadId,
    });
    expect(typeof line.reported).toBe("string");
    logged.mockRestore();
  });
});

describe("bindings", () => {
  const { edge } = recordingEdge();
  const withEnv = (patch: Record<string, unknown>) => {
    const copy: Record<string, unknown> = { ...env, ...patch };
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) {
        delete copy[key];
      }
    }
    return copy;
  };

  it("a missing THREADS is a 500 config_error naming it and what wrangler.toml needs", async () => {
    const response = await call(edge, "/v1/agents", {}, withEnv({ THREADS: undefined }));
    expect(response.status).toBe(500);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("config_error");
    expect(body.error.message).toMatch(/^binding THREADS is missing: wrangler.toml needs/);
    expect(body.error.message).toMatch(/\[\[durable_objects.bindings\]\] name = "THREADS"/);
    expect(body.error.message).toMatch(/new_sqlite_classes/);
  });

  it("a misnamed one is found and named", async () => {
    const response = await call(
      edge,
      "/healthz",
      {},
      withEnv({ THREADS: undefined, THREAD: env.THREADS }),
    );
    expect(response.status).toBe(500);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.message).toMatch(
      /found Durable Object namespace binding "THREAD": rename it to THREADS$/,
    );
  });

  it("a queue binding that is not a queue says so", async () => {
    const response = await call(
      edge,
      "/healthz",
      {},
      withEnv({ NOTIFY_QUEUE: "toolnexus-notify" }),
    );
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(response.status).toBe(500);
    expect(body.error.message).toMatch(
      /^binding NOTIFY_QUEUE is not a queue: wrangler.toml needs \[\[queues.producers\]\] binding = "NOTIFY_QUEUE"/,
    );
  });
});
