/**
 * The HTTP API of docs/architecture.md §4 through the worker's public surface (SELF.fetch), with
 * real local Durable Objects and queues, driven by the demo `support` agent.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DecisionSchema, RunCreateSchema } from "../../src/edge/http/schemas";
import { webhookHeaders } from "../../src/edge/notify/webhooks";
import {
  API_TOKEN,
  BASE,
  WEBHOOK_SECRET,
  absentRunId,
  allEvents,
  api,
  decideAndFinish,
  errorOf,
  finishedRun,
  getRun,
  pendingRun,
  rawDecision,
  signedDecision,
  startRun,
  uniqueThread,
  waitForStatus,
} from "../helpers/http";

/** A member of `support-leads`, the group that decides delete_account (see vitest.config.ts). */
const LEAD = "lead@example.com";
const SLOW = 30_000;
const OTHER_SECRET = `whsec_${btoa("another secret, 32 bytes long!!!")}`;

function postRun(body: unknown, init: RequestInit = {}): Promise<Response> {
  return api("/v1/runs", {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...init,
  });
}

async function expectValidation(response: Response, field: string): Promise<void> {
  expect(response.status).toBe(400);
  expect(response.headers.get("content-type")).toMatch(/application\/json/);
  const error = await errorOf(response);
  expect(error.code).toBe("invalid_body");
  expect(error.issues?.length).toBeGreaterThan(0);
  const named = error.issues!.some(
    (issue) => issue.path === field || issue.message.includes(`"${field}"`),
  );
  expect(named, `issues should name ${field}: ${JSON.stringify(error.issues)}`).toBe(true);
}

describe("bearer auth on the run API", () => {
  it(
    "rejects missing, wrong and malformed tokens on every /v1 run route with a JSON 401 and www-authenticate",
    async () => {
      const { runId } = await pendingRun("Please delete my account");
      const routes: Array<[string, string, string?]> = [
        ["GET", "/v1/agents"],
        ["POST", "/v1/runs", JSON.stringify({ agent: "support", input: "hello" })],
        ["GET", `/v1/runs/${runId}`],
        ["GET", `/v1/runs/${runId}/events`],
        ["POST", `/v1/runs/${runId}/cancel`],
      ];
      const badHeaders: Array<Record<string, string>> = [
        {},
        { authorization: "" },
        { authorization: "Bearer wrong-token" },
        { authorization: `Bearer ${API_TOKEN.toUpperCase()}` },
        { authorization: `Bearer ${API_TOKEN}x` },
        { authorization: `Bearer ${API_TOKEN} extra` },
        { authorization: "Bearer" },
        { authorization: "Bearer " },
        { authorization: `Bearer${API_TOKEN}` },
        { authorization: `Token ${API_TOKEN}` },
        { authorization: `Basic ${btoa(`user:${API_TOKEN}`)}` },
        { authorization: API_TOKEN },
      ];
      for (const [method, path, body] of routes) {
        for (const headers of badHeaders) {
          const response = await SELF.fetch(`${BASE}${path}`, {
            method,
            headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) },
            ...(body ? { body } : {}),
          });
          expect(response.status, `${method} ${path} with ${JSON.stringify(headers)}`).toBe(401);
          expect(response.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
          expect(response.headers.get("content-type")).toMatch(/application\/json/);
          expect(await errorOf(response)).toMatchObject({ code: "unauthorized" });
        }
      }
      // None of those requests had an effect: the run was not cancelled.
      expect((await getRun(runId)).status).toBe("pending");
    },
    SLOW,
  );

  it("does not start a run on a rejected request (the thread stays free)", async () => {
    const threadId = uniqueThread();
    const rejected = await postRun(
      { agent: "support", input: "hello", threadId },
      { headers: { authorization: "Bearer nope" } },
    );
    expect(rejected.status).toBe(401);
    const accepted = await postRun({ agent: "support", input: "hello", threadId });
    expect(accepted.status).toBe(202);
  });

  it("treats the auth scheme case-insensitively (RFC 9110 §11.1) but the token exactly", async () => {
    for (const scheme of ["Bearer", "bearer", "BEARER"]) {
      expect(
        (await api("/v1/agents", { headers: { authorization: `${scheme} ${API_TOKEN}` } })).status,
      ).toBe(200);
    }
    expect(
      (await api("/v1/agents", { headers: { authorization: `bearer ${API_TOKEN.toUpperCase()}` } }))
        .status,
    ).toBe(401);
  });

  it("leaves /healthz, /openapi.json and /metrics open", async () => {
    for (const path of ["/healthz", "/openapi.json", "/metrics"]) {
      const response = await SELF.fetch(`${BASE}${path}`);
      expect(response.status, path).toBe(200);
      await response.arrayBuffer();
    }
    expect(await (await SELF.fetch(`${BASE}/healthz`)).json()).toEqual({ ok: true });
  });
});

describe("POST /v1/runs validation", () => {
  it("names the missing agent", async () => {
    await expectValidation(await postRun({ input: "hello" }), "agent");
  });

  it("rejects an empty or over-long input, accepts exactly 32000 chars", async () => {
    await expectValidation(await postRun({ agent: "support", input: "" }), "input");
    await expectValidation(await postRun({ agent: "support", input: "x".repeat(32_001) }), "input");
    await expectValidation(await postRun({ agent: "support" }), "input");
    await expectValidation(await postRun({ agent: "support", input: 42 }), "input");
    expect((await postRun({ agent: "support", input: "x".repeat(32_000) })).status).toBe(202);
  });

  it.each([
    ["spaces", "my thread"],
    ["unicode", "thréad"],
    ["emoji", "thread🙂"],
    ["a dot (the run-id separator)", "a.b"],
    ["129 chars", "a".repeat(129)],
    ["empty", ""],
    ["a number", 12],
  ])("rejects a threadId with %s", async (_label, threadId) => {
    await expectValidation(
      await postRun({ agent: "support", input: "hello", threadId }),
      "threadId",
    );
  });

  it("accepts a 128-char threadId of the allowed alphabet and echoes it", async () => {
    const threadId = `A-z_9${"b".repeat(123)}`;
    expect(threadId).toHaveLength(128);
    const response = await postRun({ agent: "support", input: "hello", threadId });
    expect(response.status).toBe(202);
    expect(((await response.json()) as { threadId: string }).threadId).toBe(threadId);
  });

  it.each([
    "ftp://example.com/hook",
    "javascript:alert(1)",
    "not a url",
    "/relative/path",
    "mailto:a@b.c",
    "",
  ])("rejects callbackUrl %j", async (callbackUrl) => {
    await expectValidation(
      await postRun({ agent: "support", input: "hello", callbackUrl }),
      "callbackUrl",
    );
  });

  it("names an unknown extra key", async () => {
    await expectValidation(
      await postRun({ agent: "support", input: "hello", extra: true }),
      "extra",
    );
  });

  it.each([
    ["a string", "x"],
    ["a number", 5],
    ["an array", [1, 2]],
    ["null", null],
    ["a boolean", true],
  ])("rejects metadata that is %s", async (_label, metadata) => {
    await expectValidation(
      await postRun({ agent: "support", input: "hello", metadata }),
      "metadata",
    );
  });

  it("rejects invalid JSON and a JSON body that is not an object", async () => {
    for (const body of ["{not json", "", '{"agent":"support",', "null", "[]", '"text"']) {
      const response = await postRun(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(["invalid_json", "invalid_body"]).toContain((await errorOf(response)).code);
    }
    expect((await errorOf(await postRun("{not json"))).code).toBe("invalid_json");
  });

  it("rejects non-UTF-8 bytes", async () => {
    const bytes = new TextEncoder().encode('{"agent":"support","input":"caf\u00e9"}');
    const broken = new Uint8Array([...bytes.slice(0, 30), 0xff, 0xfe, ...bytes.slice(30)]);
    const response = await api("/v1/runs", { method: "POST", body: broken });
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe("invalid_body");
    expect(error.message).toMatch(/UTF-8/);
  });

  it("rejects an unknown agent with unknown_agent", async () => {
    const response = await postRun({ agent: "nobody", input: "hello" });
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe("unknown_agent");
    expect(error.message).toContain("nobody");
  });

  it("rejects a body over 256 KiB with 413, declared or streamed", async () => {
    const big = JSON.stringify({
      agent: "support",
      input: "hi",
      metadata: { blob: "x".repeat(256 * 1024) },
    });
    const declared = await postRun(big);
    expect(declared.status).toBe(413);
    expect((await errorOf(declared)).code).toBe("body_too_large");

    const bytes = new TextEncoder().encode(big);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 16 * 1024) {
          controller.enqueue(bytes.slice(i, i + 16 * 1024));
        }
        controller.close();
      },
    });
    const streamed = await api("/v1/runs", {
      method: "POST",
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect((await errorOf(streamed)).code).toBe("body_too_large");
  });

  it("returns 202 { runId, threadId, status, links }", async () => {
    const threadId = uniqueThread();
    const response = await postRun({
      agent: "support",
      input: "Where is order 42?",
      threadId,
      metadata: { ticket: "T-1" },
    });
    expect(response.status).toBe(202);
    const body = (await response.json()) as {
      runId: string;
      threadId: string;
      status: string;
      links: Record<string, string>;
    };
    expect(Object.keys(body).sort()).toEqual(["links", "runId", "status", "threadId"]);
    expect(body.threadId).toBe(threadId);
    expect(body.runId).toMatch(new RegExp(`^${threadId}\\.run_[a-f0-9]{20}$`));
    expect(body.status).toBe("running");
    const self = `${BASE}/v1/runs/${body.runId}`;
    expect(body.links).toEqual({ self, events: `${self}/events`, cancel: `${self}/cancel` });
    const done = await waitForStatus(body.runId, ["done"]);
    expect(done.metadata).toEqual({ ticket: "T-1" });

    const generated = (await (await postRun({ agent: "support", input: "hello" })).json()) as {
      runId: string;
      threadId: string;
    };
    expect(generated.threadId).toMatch(/^[A-Za-z0-9_-]{1,128}$/);
    expect(generated.runId.startsWith(`${generated.threadId}.run_`)).toBe(true);
  });

  it(
    "refuses a second run on a busy thread with 409 thread_busy",
    async () => {
      const threadId = uniqueThread();
      const first = await startRun({
        agent: "support",
        input: "Please delete my account",
        threadId,
      });
      const whileRunning = await postRun({ agent: "support", input: "hello", threadId });
      expect(whileRunning.status).toBe(409);
      expect((await errorOf(whileRunning)).code).toBe("thread_busy");
      await waitForStatus(first.runId, ["pending"]);
      const whilePending = await postRun({ agent: "support", input: "hello", threadId });
      expect(whilePending.status).toBe(409);
      expect((await errorOf(whilePending)).code).toBe("thread_busy");
      // Another thread is not affected.
      expect(
        (await postRun({ agent: "support", input: "hello", threadId: uniqueThread() })).status,
      ).toBe(202);
    },
    SLOW,
  );

  it(
    "continues a thread after its run is done: own transcript, the model sees the history",
    async () => {
      const threadId = uniqueThread();
      const first = await finishedRun("Where is order 42?", { threadId });
      expect(first.run.status).toBe("done");
      const [second, fresh] = await Promise.all([
        finishedRun("Where is order 7?", { threadId }),
        finishedRun("Where is order 7?"),
      ]);
      expect(second.threadId).toBe(threadId);
      expect(second.run.status).toBe("done");
      expect(fresh.run.status).toBe("done");

      expect(second.run.text).toBe(fresh.run.text);
      expect(second.run.turns).toBe(fresh.run.turns);
      expect(second.run.toolCalls.map((c) => c.name)).toEqual(["lookup_order"]);
      // The demo model's prompt tokens grow with every message it is shown: more history, more tokens.
      expect(second.run.usage.promptTokens).toBeGreaterThan(fresh.run.usage.promptTokens);

      type Msg = { role: string; content?: string | null };
      const transcript = (await getRun(second.runId, "?transcript=true")).transcript as Msg[];
      const freshTranscript = (await getRun(fresh.runId, "?transcript=true")).transcript as Msg[];
      // The thread's system prompt belongs to its first run; later runs show only their own turns.
      expect(transcript.map((m) => m.role)).toEqual(
        freshTranscript.filter((m) => m.role !== "system").map((m) => m.role),
      );
      expect(transcript[0]).toEqual({ role: "user", content: "Where is order 7?" });
      expect(transcript.filter((m) => m.role === "user")).toHaveLength(1);
      expect(transcript.at(-1)).toMatchObject({ role: "assistant", content: second.run.text });
      expect(JSON.stringify(transcript)).not.toContain("Where is order 42?");
      expect(
        JSON.stringify((await getRun(first.runId, "?transcript=true")).transcript),
      ).not.toContain("Where is order 7?");
      // Without ?transcript there is none.
      expect((await getRun(second.runId)).transcript).toBeUndefined();
    },
    SLOW,
  );
});

describe("GET /v1/runs/:runId", () => {
  it("answers 404 for ids that name no run", async () => {
    const other = await startRun({ agent: "support", input: "hello" });
    const suffix = other.runId.slice(other.runId.indexOf(".") + 1);
    const ids = [
      "nope",
      "th.run_",
      "th.run_zzzzzzzzzzzzzzzzzzzz",
      "th.run_0123456789ABCDEF0123",
      "th.run_0123456789abcdef012",
      `.${suffix}`,
      absentRunId(),
      `${uniqueThread()}.${suffix}`,
      `${other.threadId}.run_ffffffffffffffffffff`,
    ];
    for (const id of ids) {
      const response = await api(`/v1/runs/${encodeURIComponent(id)}`);
      expect(response.status, id).toBe(404);
      expect((await errorOf(response)).code).toBe("run_not_found");
    }
    expect((await api(`/v1/runs/${other.runId}`)).status).toBe(200);
  });

  it(
    "shows a pending run's request, expiry and approval link",
    async () => {
      const before = Date.now();
      const { runId, request } = await pendingRun("Please delete my account");
      const run = await getRun(runId);
      expect(run.status).toBe("pending");
      expect(run.pending).toMatchObject({
        id: request.id,
        kind: "approval",
        prompt: expect.stringMatching(/Delete this account/),
      });
      expect(run.text).toBeNull();
      // delete_account expires after 2 hours (its own expiresIn, over the agent's 15 minutes).
      const expires = Date.parse(run.expiresAt!);
      expect(expires).toBeGreaterThanOrEqual(before + 119 * 60_000);
      expect(expires).toBeLessThanOrEqual(Date.now() + 121 * 60_000);
      expect(run.approvalUrl).toMatch(new RegExp(`^${BASE}/approve/[^/]+$`));
      const page = await SELF.fetch(run.approvalUrl!);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("Delete this account?");
    },
    SLOW,
  );

  it("shows a finished run's text, usage, turns and tool calls, and no pending request", async () => {
    const { runId } = await finishedRun("Where is order 42?");
    const run = await getRun(runId);
    expect(run).toMatchObject({
      status: "done",
      agent: "support",
      input: "Where is order 42?",
      pending: null,
      expiresAt: null,
      error: null,
    });
    expect(run.text).toMatch(/Order 42 is shipped/);
    expect(run.turns).toBe(2);
    expect(run.usage.promptTokens).toBeGreaterThan(0);
    expect(run.usage.completionTokens).toBeGreaterThan(0);
    expect(run.usage.totalTokens).toBe(run.usage.promptTokens + run.usage.completionTokens);
    expect(run.toolCalls).toHaveLength(1);
    expect(run.toolCalls[0]).toMatchObject({
      name: "lookup_order",
      args: { orderId: "42" },
      isError: false,
    });
    expect(run.toolCallCount).toBe(1);
    expect(run.approvalUrl).toBeUndefined();
    expect((run as unknown as { links: { self: string } }).links.self).toBe(
      `${BASE}/v1/runs/${runId}`,
    );
  });
});

describe("POST /v1/runs/:runId/cancel", () => {
  it(
    "cancels a pending run once; a second cancel and a later decision are conflicts",
    async () => {
      const { runId, request } = await pendingRun("Please delete my account");
      const cancelled = await api(`/v1/runs/${runId}/cancel`, { method: "POST" });
      expect(cancelled.status).toBe(200);
      const body = (await cancelled.json()) as {
        status: string;
        cancelledAt: string | null;
        runId: string;
      };
      expect(body.status).toBe("cancelled");
      expect(body.runId).toBe(runId);
      expect(body.cancelledAt).not.toBeNull();

      const again = await api(`/v1/runs/${runId}/cancel`, { method: "POST" });
      expect(again.status).toBe(409);
      expect((await errorOf(again)).code).toBe("run_not_active");

      const late = await signedDecision({ runId, requestId: request.id, decision: "approve" });
      expect(late.status).toBe(409);
      expect((await errorOf(late)).code).toBe("request_not_pending");

      const view = await getRun(runId);
      expect(view.status).toBe("cancelled");
      expect(view.decisions).toEqual([]);
      expect(view.toolCalls.filter((c) => c.name === "delete_account")).toEqual([]);
    },
    SLOW,
  );

  it("answers 404 for an unknown run and 409 for a finished one", async () => {
    for (const id of ["nope", absentRunId()]) {
      const response = await api(`/v1/runs/${id}/cancel`, { method: "POST" });
      expect(response.status, id).toBe(404);
      expect((await errorOf(response)).code).toBe("run_not_found");
    }
    const { runId } = await finishedRun("Where is order 42?");
    const response = await api(`/v1/runs/${runId}/cancel`, { method: "POST" });
    expect(response.status).toBe(409);
    expect((await getRun(runId)).status).toBe("done");
  });
});

describe("POST /v1/decisions", () => {
  it(
    "202 accepted, then 200 for an identical repeat even under another webhook-id",
    async () => {
      const { runId, request } = await pendingRun("Please delete my account");
      // delete_account has approver rules: a support lead decides, and says so.
      const body = { runId, requestId: request.id, decision: "approve", decidedBy: LEAD };
      const first = await signedDecision(body, { id: "msg_first" });
      expect(first.status).toBe(202);
      const accepted = (await first.json()) as {
        runId: string;
        requestId: string;
        duplicate: boolean;
        decision: Record<string, unknown>;
      };
      expect(accepted).toMatchObject({ runId, requestId: request.id, duplicate: false });
      expect(accepted.decision).toMatchObject({
        decision: "approve",
        channel: "webhook",
        webhookId: "msg_first",
        answer: { id: request.id, ok: true },
      });

      const repeat = await signedDecision(body, { id: "msg_second" });
      expect(repeat.status).toBe(200);
      expect(await repeat.json()).toMatchObject({
        duplicate: true,
        decision: { webhookId: "msg_first" },
      });

      const done = await waitForStatus(runId, ["done"]);
      expect(done.text).toMatch(/Account deleted/);
      const afterDone = await signedDecision(body, { id: "msg_third" });
      expect(afterDone.status).toBe(200);
    },
    SLOW,
  );

  it(
    "409 for a conflicting decision, before and after the run finished",
    async () => {
      const { runId, request } = await pendingRun("Please delete my account");
      const decide = (extra: Record<string, unknown>) =>
        signedDecision({ runId, requestId: request.id, decidedBy: LEAD, ...extra });
      expect((await decide({ decision: "decline" })).status).toBe(202);
      const conflict = await decide({ decision: "approve" });
      expect(conflict.status).toBe(409);
      expect((await errorOf(conflict)).code).toBe("conflicting_decision");
      // Anyone else after the request settled: 409 too.
      const other = await decide({ decision: "approve", decidedBy: "max@example.com" });
      expect(other.status).toBe(409);
      expect((await errorOf(other)).code).toBe("already_decided");

      const done = await waitForStatus(runId, ["done"]);
      expect(done.text).toMatch(/did not delete your account/);
      const late = await decide({ decision: "approve" });
      expect(late.status).toBe(409);
      const view = await getRun(runId);
      expect(view.decisions).toHaveLength(1);
      expect(view.decisions[0]).toMatchObject({
        decision: "decline",
        answer: { ok: false, reason: "declined" },
      });
      expect(view.toolCalls.find((c) => c.name === "delete_account")?.output).not.toBe(
        "Account deleted",
      );
    },
    SLOW,
  );

  it(
    "turns decline and cancel into refusals the model sees, with the reason and who decided",
    async () => {
      const [declined, cancelled] = await Promise.all([
        pendingRun("Please delete my account"),
        pendingRun("Refund order 42 for $120"),
      ]);
      const d = await signedDecision({
        runId: declined.runId,
        requestId: declined.request.id,
        decision: "decline",
        reason: "not verified",
        decidedBy: LEAD,
      });
      expect(d.status).toBe(202);
      const c = await signedDecision({
        runId: cancelled.runId,
        requestId: cancelled.request.id,
        decision: "cancel",
      });
      expect(c.status).toBe(202);
      const [doneD, doneC] = await Promise.all([
        waitForStatus(declined.runId, ["done"]),
        waitForStatus(cancelled.runId, ["done"]),
      ]);
      expect(doneD.decisions[0]).toMatchObject({
        decision: "decline",
        decidedBy: LEAD,
        answer: { ok: false, reason: "not verified" },
      });
      expect(doneD.text).toMatch(/not verified/);
      expect(doneD.toolCalls.some((call) => call.output === "Account deleted")).toBe(false);
      expect(doneC.decisions[0]).toMatchObject({
        decision: "cancel",
        answer: { ok: false, reason: "cancelled" },
      });
      expect(doneC.text).toMatch(/cancelled/);
      expect(doneC.text).not.toMatch(/Refunded/);
    },
    SLOW,
  );

  it(
    "400 for an invalid body, correctly signed",
    async () => {
      const { runId, request } = await pendingRun("Please delete my account");
      const cases: Array<[string, string, string | undefined]> = [
        [
          "bad decision enum",
          JSON.stringify({ runId, requestId: request.id, decision: "maybe" }),
          "decision",
        ],
        ["missing requestId", JSON.stringify({ runId, decision: "approve" }), "requestId"],
        ["missing runId", JSON.stringify({ requestId: request.id, decision: "approve" }), "runId"],
        [
          "extra key",
          JSON.stringify({ runId, requestId: request.id, decision: "approve", approved: true }),
          "approved",
        ],
        [
          "reason over 1000 chars",
          JSON.stringify({
            runId,
            requestId: request.id,
            decision: "decline",
            reason: "r".repeat(1001),
          }),
          "reason",
        ],
        ["invalid JSON", `{"runId":"${runId}",`, undefined],
        ["empty body", "", undefined],
        ["an array", "[]", undefined],
      ];
      for (const [label, raw, field] of cases) {
        const response = await signedDecision(undefined, { raw });
        expect(response.status, label).toBe(400);
        const error = await errorOf(response);
        if (field) {
          expect(error.code, label).toBe("invalid_body");
          const named = error.issues?.some(
            (i) => i.path === field || i.message.includes(`"${field}"`),
          );
          expect(named, `${label}: ${JSON.stringify(error.issues)}`).toBe(true);
        } else {
          expect(["invalid_json", "invalid_body"], label).toContain(error.code);
        }
      }
      const view = await getRun(runId);
      expect(view.status).toBe("pending");
      expect(view.decisions).toEqual([]);
    },
    SLOW,
  );

  it(
    "401 for missing, bad, wrong-key, stale, future or altered signatures; nothing is recorded",
    async () => {
      const { runId, request } = await pendingRun("Please delete my account");
      const body = JSON.stringify({
        runId,
        requestId: request.id,
        decision: "approve",
        decidedBy: LEAD,
      });
      const good = await webhookHeaders(WEBHOOK_SECRET, body);
      const zeros = btoa(String.fromCharCode(...new Uint8Array(32)));

      const attempts: Array<[string, Promise<Response>]> = [
        ["no headers", rawDecision(body)],
        ["no webhook-id", rawDecision(body, { ...good, "webhook-id": "" })],
        ["no webhook-timestamp", rawDecision(body, { ...good, "webhook-timestamp": "" })],
        ["no webhook-signature", rawDecision(body, { ...good, "webhook-signature": "" })],
        ["non-numeric timestamp", rawDecision(body, { ...good, "webhook-timestamp": "soon" })],
        ["bad signature", rawDecision(body, { ...good, "webhook-signature": `v1,${zeros}` })],
        ["not base64", rawDecision(body, { ...good, "webhook-signature": "v1,???" })],
        [
          "unknown version",
          rawDecision(body, {
            ...good,
            "webhook-signature": good["webhook-signature"]!.replace(/^v1,/, "v2,"),
          }),
        ],
        ["wrong secret", signedDecision(undefined, { raw: body, secret: OTHER_SECRET })],
        [
          "stale (now - 10 min)",
          signedDecision(undefined, { raw: body, now: Date.now() - 10 * 60_000 }),
        ],
        [
          "future (now + 10 min)",
          signedDecision(undefined, { raw: body, now: Date.now() + 10 * 60_000 }),
        ],
        ["other webhook-id than signed", rawDecision(body, { ...good, "webhook-id": "msg_other" })],
        ["body altered after signing", rawDecision(body.replace('"approve"', '"decline"'), good)],
        ["body with a trailing space", rawDecision(`${body} `, good)],
      ];
      for (const [label, pending] of attempts) {
        const response = await pending;
        expect(response.status, label).toBe(401);
        const error = await errorOf(response);
        expect(["missing_headers", "bad_signature", "stale_timestamp"], label).toContain(
          error.code,
        );
      }
      const view = await getRun(runId);
      expect(view.status).toBe("pending");
      expect(view.decisions).toEqual([]);

      // Inside the ±5 min tolerance the same request passes verification.
      const withinTolerance = await signedDecision(undefined, {
        raw: body,
        now: Date.now() - 4 * 60_000,
      });
      expect(withinTolerance.status).toBe(202);
    },
    SLOW,
  );

  it(
    "accepts any one valid signature among several (key rotation)",
    async () => {
      const { runId, request } = await pendingRun("Please delete my account");
      const body = JSON.stringify({
        runId,
        requestId: request.id,
        decision: "decline",
        decidedBy: LEAD,
      });
      const good = await webhookHeaders(WEBHOOK_SECRET, body, { id: "msg_rot" });
      const wrong = await webhookHeaders(OTHER_SECRET, body, {
        id: "msg_rot",
        now: Number(good["webhook-timestamp"]) * 1000,
      });
      const response = await rawDecision(body, {
        ...good,
        "webhook-signature": `${wrong["webhook-signature"]} ${good["webhook-signature"]}`,
      });
      expect(response.status).toBe(202);
    },
    SLOW,
  );

  it(
    "404 for an unknown run, an unknown request and a decision sent to the wrong run",
    async () => {
      const [a, b] = await Promise.all([
        pendingRun("Please delete my account"),
        pendingRun("Refund order 42 for $120"),
      ]);
      expect(a.request.id).not.toBe(b.request.id);

      const unknownRun = await signedDecision({
        runId: absentRunId(),
        requestId: a.request.id,
        decision: "approve",
      });
      expect(unknownRun.status).toBe(404);
      expect((await errorOf(unknownRun)).code).toBe("run_not_found");

      const malformedRun = await signedDecision({
        runId: "nope",
        requestId: a.request.id,
        decision: "approve",
      });
      expect(malformedRun.status).toBe(404);

      const unknownRequest = await signedDecision({
        runId: a.runId,
        requestId: "apr_nope",
        decision: "approve",
      });
      expect(unknownRequest.status).toBe(404);
      expect((await errorOf(unknownRequest)).code).toBe("request_not_found");

      const misrouted = await signedDecision({
        runId: b.runId,
        requestId: a.request.id,
        decision: "approve",
      });
      expect(misrouted.status).toBe(404);
      expect((await errorOf(misrouted)).code).toBe("request_not_found");

      const [viewA, viewB] = await Promise.all([getRun(a.runId), getRun(b.runId)]);
      expect(viewA.status).toBe("pending");
      expect(viewB.status).toBe("pending");
      expect(viewA.decisions).toEqual([]);
      expect(viewB.decisions).toEqual([]);
    },
    SLOW,
  );

  it(
    "413 for a signed body over 64 KiB",
    async () => {
      const { runId, request } = await pendingRun("Please delete my account");
      const response = await signedDecision({
        runId,
        requestId: request.id,
        decision: "approve",
        data: { blob: "x".repeat(64 * 1024) },
      });
      expect(response.status).toBe(413);
      expect((await errorOf(response)).code).toBe("body_too_large");
      expect((await getRun(runId)).decisions).toEqual([]);
    },
    SLOW,
  );

  it(
    "applies a decision at most once, however often it is replayed",
    async () => {
      const { runId, request } = await pendingRun("Please delete my account");
      const body = { runId, requestId: request.id, decision: "approve", decidedBy: LEAD };
      const burst = await Promise.all(
        [1, 2, 3].map((n) => signedDecision(body, { id: `msg_burst_${n}` })),
      );
      expect(burst.map((r) => r.status).sort()).toEqual([200, 200, 202]);

      await waitForStatus(runId, ["done"]);
      for (const n of [1, 2, 3]) {
        const replay = await signedDecision(body, { id: `msg_replay_${n}` });
        expect(replay.status).toBe(200);
        expect(((await replay.json()) as { duplicate: boolean }).duplicate).toBe(true);
      }
      const run = await getRun(runId);
      expect(run.status).toBe("done");
      expect(run.decisions).toHaveLength(1);
      expect(run.decisions[0]!.appliedAt).not.toBeNull();
      expect(run.toolCalls.filter((c) => c.name === "delete_account")).toHaveLength(1);
      expect(run.toolCalls.find((c) => c.name === "delete_account")).toMatchObject({
        output: "Account deleted",
        isError: false,
      });
      const events = await allEvents(runId);
      expect(events.filter((e) => e.event === "resumed")).toHaveLength(1);
      expect(events.filter((e) => e.event === "done")).toHaveLength(1);
    },
    SLOW,
  );
});

describe("input requests", () => {
  it(
    "validates data against the request's schema, then feeds the answer to the model",
    async () => {
      const { runId, request } = await pendingRun("I need to change my shipping address");
      expect(request.kind).toBe("input");
      const schema = (
        request.data as { schema?: { required?: string[]; properties?: Record<string, unknown> } }
      ).schema;
      expect(schema?.required).toEqual(["answer"]);
      expect(schema?.properties).toHaveProperty("answer");

      for (const data of [{}, { answer: 5 }, undefined]) {
        const bad = await signedDecision({
          runId,
          requestId: request.id,
          decision: "approve",
          ...(data === undefined ? {} : { data }),
        });
        expect(bad.status, JSON.stringify(data)).toBe(400);
        const error = await errorOf(bad);
        expect(error.code).toBe("invalid_data");
        expect(error.issues?.length).toBeGreaterThan(0);
        expect(error.issues![0]!.path).toBe("data");
        expect(error.issues!.map((i) => i.message).join(" ")).toMatch(/answer/);
      }
      expect((await getRun(runId)).decisions).toEqual([]);

      const ok = await signedDecision({
        runId,
        requestId: request.id,
        decision: "approve",
        data: { answer: "1 Main St" },
      });
      expect(ok.status).toBe(202);
      const done = await waitForStatus(runId, ["done"]);
      expect(done.text).toContain("1 Main St");
      expect(done.decisions).toHaveLength(1);
      expect(done.decisions[0]!.answer).toEqual({
        id: request.id,
        ok: true,
        data: { answer: "1 Main St" },
      });
    },
    SLOW,
  );
});

describe("the refund policy of the demo agent", () => {
  it("declines over $10,000 by policy without suspending, recorded in the ledger", async () => {
    const { runId, run } = await finishedRun("Refund order 42 for $50000");
    expect(run.status).toBe("done");
    expect(run.text).toMatch(/policy/i);
    expect(run.text).not.toMatch(/Refunded/);
    expect(run.decisions).toHaveLength(1);
    expect(run.decisions[0]).toMatchObject({
      channel: "policy",
      decision: "decline",
      answer: { ok: false, reason: expect.stringMatching(/^policy:/) },
    });
    expect(run.decisions[0]!.appliedAt).not.toBeNull();
    expect(run.toolCalls).toHaveLength(1);
    expect(run.toolCalls[0]).toMatchObject({ name: "refund_order", isError: true });
    const events = await allEvents(runId);
    expect(events.map((e) => e.event)).not.toContain("pending");
  });

  it("refunds $20 without approval", async () => {
    const { run } = await finishedRun("Refund order 42 for $20");
    expect(run.status).toBe("done");
    expect(run.text).toMatch(/Refunded \$20 on order 42/);
    expect(run.decisions).toEqual([]);
    expect(run.toolCalls).toHaveLength(1);
  });

  it(
    "asks for approval of $120, and refunds once approved",
    async () => {
      const { runId, request } = await pendingRun("Refund order 42 for $120");
      expect(request).toMatchObject({ kind: "approval", prompt: "Refund $120 on order 42?" });
      const done = await decideAndFinish(runId, request.id, "approve");
      expect(done.status).toBe("done");
      expect(done.text).toMatch(/Refunded \$120 on order 42/);
      expect(done.decisions).toHaveLength(1);
      expect(done.decisions[0]).toMatchObject({ channel: "webhook", decision: "approve" });
    },
    SLOW,
  );
});

describe("/openapi.json", () => {
  it("is OpenAPI 3.1 with a path for every route of docs/architecture.md §4", async () => {
    const response = await SELF.fetch(`${BASE}/openapi.json`);
    expect(response.status).toBe(200);
    const doc = (await response.json()) as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(doc.openapi).toMatch(/^3\.1\./);
    const routes: Array<[string, string]> = [
      ["/v1/runs", "post"],
      ["/v1/runs/{runId}", "get"],
      ["/v1/runs/{runId}/events", "get"],
      ["/v1/runs/{runId}/cancel", "post"],
      ["/v1/decisions", "post"],
      ["/approve/{token}", "get"],
      ["/approve/{token}", "post"],
      ["/v1/agents", "get"],
      ["/metrics", "get"],
      ["/openapi.json", "get"],
      ["/healthz", "get"],
    ];
    for (const [path, method] of routes) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }

    // Every $ref resolves to a component.
  });

  it("has only $refs that resolve to a named component", async () => {
    const doc = (await (await SELF.fetch(`${BASE}/openapi.json`)).json()) as {
      components: { schemas: Record<string, unknown> };
    };
    const refs = [
      ...new Set([...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!)),
    ];
    expect(refs.length).toBeGreaterThan(0);
    const broken = refs.filter((ref) => {
      const match = /^#\/components\/schemas\/([A-Za-z0-9._-]+)$/.exec(ref);
      return !match || !(match[1]! in doc.components.schemas);
    });
    expect(broken, `unresolvable $refs: ${broken.join(", ")}`).toEqual([]);
    expect(Object.keys(doc.components.schemas).filter((name) => name.startsWith("__"))).toEqual([]);
  });

  it("gives component schemas no $id with a fragment (JSON Schema 2020-12 §8.2.1)", async () => {
    const doc = (await (await SELF.fetch(`${BASE}/openapi.json`)).json()) as {
      components: { schemas: Record<string, { $id?: string }> };
    };
    const withFragment = Object.entries(doc.components.schemas)
      .filter(([, schema]) => typeof schema.$id === "string" && /#./.test(schema.$id))
      .map(([name, schema]) => `${name}: ${schema.$id}`);
    expect(withFragment).toEqual([]);
  });

  it("documents RunCreate and Decision exactly as the zod schemas validate them", async () => {
    const doc = (await (await SELF.fetch(`${BASE}/openapi.json`)).json()) as {
      components: {
        schemas: Record<
          string,
          {
            properties: Record<string, unknown>;
            required?: string[];
            additionalProperties?: unknown;
          }
        >;
      };
    };
    for (const [id, schema] of [
      ["RunCreate", RunCreateSchema],
      ["Decision", DecisionSchema],
    ] as const) {
      type Json = {
        properties: Record<string, unknown>;
        required?: string[];
        $ref?: string;
        $defs?: Record<string, Json>;
      };
      const generated = z.toJSONSchema(schema, { unrepresentable: "any" }) as Json;
      // A schema with a meta id comes out as { $ref: "#/$defs/<id>", $defs }.
      const expected = generated.$ref
        ? generated.$defs![generated.$ref.replace("#/$defs/", "")]!
        : generated;
      expect(expected.properties, id).toBeDefined();
      const documented = doc.components.schemas[id];
      expect(documented, id).toBeDefined();
      expect(Object.keys(documented!.properties).sort(), id).toEqual(
        Object.keys(expected.properties).sort(),
      );
      expect([...(documented!.required ?? [])].sort(), id).toEqual(
        [...(expected.required ?? [])].sort(),
      );
      expect(documented!.additionalProperties, id).toBe(false);
    }
  });
});

describe("/metrics, /v1/agents and unknown routes", () => {
  it("exposes Prometheus counters after a run", async () => {
    await finishedRun("Where is order 42?");
    const response = await SELF.fetch(`${BASE}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await response.text();
    expect(text).toContain("# TYPE toolnexus_llm_requests_total counter");
    expect(text).toContain("# TYPE toolnexus_tool_calls_total counter");
    expect(text).toContain("# TYPE toolnexus_llm_request_duration_seconds histogram");
    const llm = /^toolnexus_llm_requests_total\{[^}]*model="demo"[^}]*\} (\d+(?:\.\d+)?)$/m.exec(
      text,
    );
    expect(llm, text).not.toBeNull();
    expect(Number(llm![1])).toBeGreaterThanOrEqual(2);
    expect(text).toMatch(/^toolnexus_tool_calls_total\{[^}]*tool="lookup_order"[^}]*\} [1-9]/m);
  });

  it("lists the support agent with its four tools", async () => {
    const response = await api("/v1/agents");
    expect(response.status).toBe(200);
    const { agents } = (await response.json()) as {
      agents: Array<{ name: string; description: string; tools: string[] }>;
    };
    const support = agents.find((a) => a.name === "support");
    expect(support).toBeDefined();
    expect(support!.description.length).toBeGreaterThan(0);
    expect([...support!.tools].sort()).toEqual([
      "ask_user",
      "delete_account",
      "lookup_order",
      "refund_order",
    ]);
  });

  it("answers an unknown route with a JSON 404", async () => {
    for (const [path, init] of [
      ["/nope", {}],
      ["/v1", { headers: { authorization: `Bearer ${API_TOKEN}` } }],
      ["/v1/runs/x/y/z", { headers: { authorization: `Bearer ${API_TOKEN}` } }],
      ["/v1/nothing", { headers: { authorization: `Bearer ${API_TOKEN}` } }],
    ] as Array<[string, RequestInit]>) {
      const response = await SELF.fetch(`${BASE}${path}`, init);
      expect(response.status, path).toBe(404);
      expect(response.headers.get("content-type"), path).toMatch(/application\/json/);
      expect((await errorOf(response)).code).toBe("not_found");
    }
  });
});
