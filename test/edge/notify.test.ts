/**
 * Outbound notifications: a pending request is POSTed, signed, to the run's
 * callbackUrl through the notify queue; failures are retried with backoff and,
 * once dead-lettered, recorded on the run, which stays pending and decidable.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createExecutionContext,
  createMessageBatch,
  env,
  getQueueResult,
  runDurableObjectAlarm,
  SELF,
} from "cloudflare:test";
import { createEdge } from "../../src/create-edge";
import { supportAgent } from "../../src/edge/demo/agent";
import { verifyWebhook } from "../../src/edge/notify/webhooks";
import type { EdgeEnv } from "../../src/edge/settings";
import type { NotifyMessage } from "../../src/edge/protocol";
import { notificationId, type Notification } from "../../src/edge/notify/notification";
import {
  BASE,
  getRun,
  signedDecision,
  startRun,
  NOTIFY_SECRET,
  waitForStatus,
  WEBHOOK_SECRET,
} from "../helpers/edge";
import { eventsOf, inThread, sleep, startPending, threadStub, until } from "../helpers/durable";
import { newRunId, newThreadId } from "../../src/edge/http/threads";
import type { ToolCall } from "../../src/core/types";

/** Unreachable on purpose: the real worker's own delivery attempts fail fast and harmlessly. */
const callbackUrl = (tag: string) => `http://127.0.0.1:9/hooks/${tag}/${crypto.randomUUID()}`;
const REFUND = "Please refund $80 on order 42";

interface Captured {
  url: string;
  method: string;
  headers: Headers;
  body: string;
  redirect: Request["redirect"];
}

/** A fake outbound fetch for the edge under test: records every request, answers with `respond`. */
function fakeCallback(respond: (attempt: number) => Response | Promise<Response>) {
  const calls: Captured[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    calls.push({
      url: request.url,
      method: request.method,
      headers: request.headers,
      body: await request.text(),
      redirect: request.redirect,
    });
    return respond(calls.length);
  }) as typeof globalThis.fetch;
  // Failed deliveries are what these tests cause: the sink keeps them (instead of logging them).
  const reported: unknown[] = [];
  const onError = (error: Error) => reported.push(error);
  return { calls, reported, edge: createEdge({ agents: [supportAgent], fetch, onError }) };
}

type Edge = ReturnType<typeof createEdge>;

async function deliver(
  edge: Edge,
  body: NotifyMessage,
  options: { attempts?: number; queue?: string } = {},
) {
  const id = crypto.randomUUID();
  const batch = createMessageBatch<NotifyMessage>(options.queue ?? "toolnexus-notify", [
    { id, timestamp: new Date(), attempts: options.attempts ?? 1, body },
  ]);
  // getQueueResult reports which messages were retried but not their delay: record it here.
  const retries: Array<QueueRetryOptions | undefined> = [];
  for (const message of batch.messages) {
    const retry = message.retry.bind(message);
    Object.defineProperty(message, "retry", {
      value: (options?: QueueRetryOptions) => {
        retries.push(options);
        retry(options);
      },
    });
  }
  const ctx = createExecutionContext();
  await edge.worker.queue!(batch, env as Env & EdgeEnv, ctx);
  const result = await getQueueResult(batch, ctx);
  return { id, result, delay: retries[0]?.delaySeconds };
}

async function pendingWithCallback(tag: string, extra: Record<string, unknown> = {}) {
  const url = callbackUrl(tag);
  const started = await startPending(REFUND, { callbackUrl: url, ...extra });
  const message: NotifyMessage = {
    threadId: started.threadId,
    runId: started.runId,
    requestId: started.request.id,
  };
  return { ...started, url, message };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("notify consumer", { timeout: 30_000 }, () => {
  it("POSTs a signed run.pending notification whose links work, and acks", async () => {
    const { calls, edge } = fakeCallback(() => new Response("ok", { status: 200 }));
    const { runId, threadId, request, run, url, message } = await pendingWithCallback("success", {
      metadata: { ticket: "T-1" },
    });

    const { id, result } = await deliver(edge, message);
    expect(result.explicitAcks).toEqual([id]);
    expect(result.retryMessages).toEqual([]);

    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call!.url).toBe(url);
    expect(call!.method).toBe("POST");
    expect(call!.headers.get("content-type")).toMatch(/^application\/json/);
    expect(call!.headers.get("webhook-id")).toBe(notificationId({ runId, request }));
    const verified = await verifyWebhook(NOTIFY_SECRET, call!.headers, call!.body);
    expect(verified.id).toBe(notificationId({ runId, request }));
    await expect(
      verifyWebhook(`whsec_${btoa("another secret entirely")}`, call!.headers, call!.body),
    ).rejects.toThrow();
    // Signed with NOTIFY_SECRET only: the decision key does not verify it.
    await expect(verifyWebhook(WEBHOOK_SECRET, call!.headers, call!.body)).rejects.toThrow();

    const body = JSON.parse(call!.body) as Notification;
    expect(body).toEqual({
      type: "run.pending",
      runId,
      threadId,
      agent: "support",
      request,
      decisionUrl: `${BASE}/v1/decisions`,
      approvalUrl: expect.stringMatching(
        new RegExp(`^${BASE}/approve/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`),
      ),
      expiresAt: run.expiresAt,
      metadata: { ticket: "T-1" },
      requestedBy: null,
    });

    const page = await SELF.fetch(body.approvalUrl!);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Refund $80 on order 42?");
    expect(html).toContain(request.id);
    expect((await getRun(runId)).status).toBe("pending"); // opening the link did not decide

    // A retry of the same message carries the same webhook-id, so receivers can deduplicate.
    await deliver(edge, message, { attempts: 2 });
    expect(calls).toHaveLength(2);
    expect(calls[1]!.headers.get("webhook-id")).toBe(notificationId({ runId, request }));
    expect((await verifyWebhook(NOTIFY_SECRET, calls[1]!.headers, calls[1]!.body)).id).toBe(
      notificationId({ runId, request }),
    );

    // The decision URL from the notification decides the run.
    const decided = await signedDecision({ runId, requestId: request.id, decision: "approve" });
    expect(decided.status).toBe(202);
    expect(body.decisionUrl).toBe(new URL("/v1/decisions", BASE).toString());
    expect((await waitForStatus(runId, ["done"])).text).toBe("Done: Refunded $80 on order 42");
  });

  it("a captured notification replayed to /v1/decisions is 401: it is signed with NOTIFY_SECRET", async () => {
    const { calls, edge } = fakeCallback(() => new Response("ok", { status: 200 }));
    const { runId, request, message } = await pendingWithCallback("replay");
    await deliver(edge, message);
    const [call] = calls;
    // The receiver turns the notification into a decision body, keeping the signed headers.
    const forged = JSON.stringify({ runId, requestId: request.id, decision: "approve" });
    for (const body of [call!.body, forged]) {
      const replayed = await SELF.fetch(`${BASE}/v1/decisions`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "webhook-id": call!.headers.get("webhook-id")!,
          "webhook-timestamp": call!.headers.get("webhook-timestamp")!,
          "webhook-signature": call!.headers.get("webhook-signature")!,
        },
        body,
      });
      expect(replayed.status).toBe(401);
    }
    // Even signed by the notification key over the decision body itself: still 401.
    const withNotifyKey = await signedDecision(
      { runId, requestId: request.id, decision: "approve" },
      { secret: NOTIFY_SECRET },
    );
    expect(withNotifyKey.status).toBe(401);
    expect((await getRun(runId)).status).toBe("pending");
  });

  it("without NOTIFY_SECRET a queued notification is retried, never signed with WEBHOOK_SECRET", async () => {
    const { calls, edge } = fakeCallback(() => new Response("ok", { status: 200 }));
    const { message } = await pendingWithCallback("no-notify-secret");
    const id = crypto.randomUUID();
    const batch = createMessageBatch<NotifyMessage>("toolnexus-notify", [
      { id, timestamp: new Date(), attempts: 1, body: message },
    ]);
    const ctx = createExecutionContext();
    const withoutKey = { ...env, NOTIFY_SECRET: undefined } as unknown as Env & EdgeEnv;
    vi.spyOn(console, "error").mockImplementation(() => {});
    await edge.worker.queue!(batch, withoutKey, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.retryMessages).toEqual([{ msgId: id }]);
    expect(calls).toEqual([]);
  });

  it("checks the callbackUrl again before sending: no longer allowed ⇒ not sent, recorded, acked", async () => {
    const { calls, edge } = fakeCallback(() => new Response("ok", { status: 200 }));
    const { runId, message } = await pendingWithCallback("no-longer-allowed");
    const id = crypto.randomUUID();
    const batch = createMessageBatch<NotifyMessage>("toolnexus-notify", [
      { id, timestamp: new Date(), attempts: 1, body: message },
    ]);
    const ctx = createExecutionContext();
    const stricter = { ...env, CALLBACK_ALLOW: "" } as unknown as Env & EdgeEnv;
    await edge.worker.queue!(batch, stricter, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual([id]);
    expect(calls).toEqual([]);
    const errors = (await eventsOf(runId)).filter((e) => e.type === "error");
    expect(errors.map((e) => e.data.message)).toEqual([
      expect.stringMatching(/callbackUrl must use https .*not sent/),
    ]);
    expect((await getRun(runId)).status).toBe("pending");
  });

  it("never follows a redirect: a 3xx is a failed delivery, retried", async () => {
    const { calls, edge } = fakeCallback(
      () => new Response(null, { status: 302, headers: { location: "http://169.254.169.254/" } }),
    );
    const { url, message } = await pendingWithCallback("redirect");
    const { id, result } = await deliver(edge, message);
    expect(result.retryMessages).toEqual([{ msgId: id }]);
    expect(calls.map((c) => [c.url, c.redirect])).toEqual([[url, "manual"]]);
  });

  it("delivers a batch concurrently: a hanging receiver does not hold up a healthy one", async () => {
    const hanging = await pendingWithCallback("hanging");
    const healthy = await pendingWithCallback("healthy");
    let release: (response: Response) => void = () => {};
    const held = new Promise<Response>((resolve) => {
      release = resolve;
    });
    let releasedHanging = false;
    const { calls, edge } = fakeCallback(async () => {
      const url = calls[calls.length - 1]!.url;
      return url === hanging.url ? held : new Response("ok");
    });
    const ids = [crypto.randomUUID(), crypto.randomUUID()];
    // The hanging receiver's message comes first: one at a time, the healthy one would wait.
    const batch = createMessageBatch<NotifyMessage>("toolnexus-notify", [
      { id: ids[0]!, timestamp: new Date(), attempts: 1, body: hanging.message },
      { id: ids[1]!, timestamp: new Date(), attempts: 1, body: healthy.message },
    ]);
    const ctx = createExecutionContext();
    let settled = false;
    const handled = Promise.resolve(edge.worker.queue!(batch, env as Env & EdgeEnv, ctx)).then(
      () => {
        settled = true;
      },
    );
    await until(() => calls.some((c) => c.url === healthy.url), "the healthy receiver's delivery");
    expect(calls.some((c) => c.url === hanging.url)).toBe(true);
    expect(releasedHanging).toBe(false);
    expect(settled).toBe(false); // the hanging delivery is still being held
    releasedHanging = true;
    release(new Response("late but fine"));
    await handled;
    const result = await getQueueResult(batch, ctx);
    expect(new Set(result.explicitAcks)).toEqual(new Set(ids));
  });

  it("bounds each delivery: a receiver that never answers is given up on and retried", async () => {
    const calls: string[] = [];
    // Never settles, and ignores the abort signal: the bound must not rely on the fetcher.
    const edge = createEdge({
      agents: [supportAgent],
      notifyTimeoutMs: 20,
      fetch: (async (input: RequestInfo | URL) => {
        calls.push(String(input));
        return new Promise<Response>(() => {});
      }) as typeof fetch,
    });
    const { message } = await pendingWithCallback("never-answers");
    const { id, result } = await deliver(edge, message);
    expect(calls).toHaveLength(1);
    expect(result.retryMessages).toEqual([{ msgId: id }]);
    expect(result.explicitAcks).toEqual([]);
  });

  it("retries a failing callback (HTTP 500) with a growing delay and the same webhook-id", async () => {
    const { calls, edge } = fakeCallback(() => new Response("boom", { status: 500 }));
    const { request, message, runId } = await pendingWithCallback("fail-500");

    const delays: number[] = [];
    for (let attempts = 1; attempts <= 4; attempts += 1) {
      const { id, result, delay } = await deliver(edge, message, { attempts });
      expect(result.explicitAcks).toEqual([]);
      expect(result.retryMessages).toEqual([{ msgId: id }]);
      expect(delay).toBeTypeOf("number");
      delays.push(delay!);
    }
    expect(delays[0]).toBeGreaterThan(0);
    for (let i = 1; i < delays.length; i += 1) {
      expect(delays[i]).toBeGreaterThan(delays[i - 1]!);
    }
    expect(calls).toHaveLength(4);
    expect(new Set(calls.map((c) => c.headers.get("webhook-id")))).toEqual(
      new Set([notificationId({ runId, request })]),
    );
  });

  it("retries when the callback cannot be reached (fetch throws)", async () => {
    const { calls, edge } = fakeCallback(() => {
      throw new TypeError("Network connection lost.");
    });
    const { message } = await pendingWithCallback("fail-throw");
    const first = await deliver(edge, message, { attempts: 1 });
    const second = await deliver(edge, message, { attempts: 2 });
    expect(calls).toHaveLength(2);
    for (const { id, result, delay } of [first, second]) {
      expect(result.explicitAcks).toEqual([]);
      expect(result.retryMessages).toEqual([{ msgId: id }]);
      expect(delay).toBeGreaterThan(0);
    }
    expect(second.delay!).toBeGreaterThan(first.delay!);
  });

  it("a dead-lettered notification is recorded on the run, which stays pending and decidable", async () => {
    const { edge } = fakeCallback(() => new Response("boom", { status: 503 }));
    const { runId, request, message } = await pendingWithCallback("dead-letter");

    const { id, result } = await deliver(edge, message, {
      attempts: 1, // the first delivery from the dead-letter queue
      queue: "toolnexus-notify-dlq",
    });
    expect(result.explicitAcks).toEqual([id]);
    expect(result.retryMessages).toEqual([]);

    const errors = (await eventsOf(runId)).filter((e) => e.type === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]!.data).toMatchObject({ requestId: request.id, recoverable: true });
    expect(errors[0]!.data.message).toMatch(new RegExp(`notification for ${request.id} failed`));
    // The count is the sends (1 + max_retries), not this dead-letter delivery's attempts.
    expect(errors[0]!.data.message).toMatch(/gave up after 5 deliveries/);

    const run = await getRun(runId);
    expect(run.status).toBe("pending");
    expect(run.pending).toEqual(request);
    expect(run.error).toBeNull();

    // The event stream treats it as recoverable: a live SSE connection stays open.
    const controller = new AbortController();
    const stream = await SELF.fetch(`${BASE}/v1/runs/${runId}/events`, {
      headers: { authorization: `Bearer test-token` },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    let seen = "";
    while (!seen.includes("event: error")) {
      const chunk = await reader.read();
      if (chunk.done) {
        break;
      }
      seen += new TextDecoder().decode(chunk.value);
    }
    expect(seen).toContain("event: error");

    expect(
      (await signedDecision({ runId, requestId: request.id, decision: "approve" })).status,
    ).toBe(202);
    const done = await waitForStatus(runId, ["done"]);
    expect(done.text).toBe("Done: Refunded $80 on order 42");
    // The stream then ends with the run's done event.
    while (!seen.includes("event: done")) {
      const chunk = await reader.read();
      if (chunk.done) {
        break;
      }
      seen += new TextDecoder().decode(chunk.value);
    }
    expect(seen).toContain("event: done");
    controller.abort();
  });

  it("sends nothing when the request was decided before the message is processed", async () => {
    const { calls, edge } = fakeCallback(() => new Response("ok"));
    const { runId, request, stub, message } = await pendingWithCallback("decided");

    expect(
      await stub.decide({ runId, requestId: request.id, decision: "decline", channel: "webhook" }),
    ).toMatchObject({ ok: true, duplicate: false });
    const early = await deliver(edge, message); // decided, not yet applied
    expect(early.result.explicitAcks).toEqual([early.id]);
    expect(early.result.retryMessages).toEqual([]);

    await waitForStatus(runId, ["done"]);
    const late = await deliver(edge, message); // decided and applied
    expect(late.result.explicitAcks).toEqual([late.id]);
    expect(calls).toEqual([]);
  });

  it("sends nothing for a run without a callbackUrl, or one that is gone", async () => {
    const { calls, edge } = fakeCallback(() => new Response("ok"));
    const { threadId, runId, request } = await startPending(REFUND);
    for (const body of [
      { threadId, runId, requestId: request.id },
      { threadId, runId, requestId: "apr_does_not_exist" },
      { threadId, runId: `${threadId}.run_00000000000000000000`, requestId: request.id },
    ]) {
      const { id, result } = await deliver(edge, body);
      expect(result.explicitAcks).toEqual([id]);
    }
    expect(calls).toEqual([]);
  });
});

/** Records every message the worker (or its objects) sends to NOTIFY_QUEUE; they share this isolate. */
function recordNotifySends(): NotifyMessage[] {
  const sends: NotifyMessage[] = [];
  const queueProto = Object.getPrototypeOf(env.NOTIFY_QUEUE) as Queue;
  const send = queueProto.send;
  vi.spyOn(queueProto, "send").mockImplementation(function (
    this: Queue,
    body: unknown,
    options?: QueueSendOptions,
  ) {
    if (typeof body === "object" && body !== null && "requestId" in body) {
      sends.push(body as NotifyMessage);
    }
    return send.call(this, body, options);
  });
  return sends;
}

describe("the real notify queue", { timeout: 30_000 }, () => {
  it("notifies each suspended call of one turn once, when it is surfaced", async () => {
    const sends = recordNotifySends();
    const threadId = newThreadId();
    const runId = newRunId(threadId);
    const url = callbackUrl("siblings");
    const refund: ToolCall = {
      id: "call_0_0_sib",
      name: "refund_order",
      arguments: JSON.stringify({ orderId: "42", amount: 80 }),
    };
    const remove: ToolCall = { id: "call_0_1_sib", name: "delete_account", arguments: "{}" };
    await inThread(threadId, async (instance, state) => {
      const now = Date.now();
      state.storage.transactionSync(() => {
        instance.store.insertRun({
          runId,
          threadId,
          agent: "support",
          input: "Refund $80 on order 42 and delete my account",
          callbackUrl: url,
          publicUrl: BASE,
          now,
          systemPrompt: supportAgent.systemPrompt,
        });
        instance.store.appendMessages(runId, [
          { role: "assistant", content: null, toolCalls: [refund, remove] },
        ]);
        instance.store.update(runId, { turns: 1, model: "demo" }, now);
      });
      await state.storage.setAlarm(now + 60_000);
    });
    expect(await runDurableObjectAlarm(threadStub(threadId))).toBe(true);
    expect((await getRun(runId)).pending?.id).toBe(`apr_${refund.id}`);
    expect(sends.filter((m) => m.runId === runId)).toEqual([
      { threadId, runId, requestId: `apr_${refund.id}` },
    ]);

    expect(
      (await signedDecision({ runId, requestId: `apr_${refund.id}`, decision: "approve" })).status,
    ).toBe(202);
    await until(
      async () => (await getRun(runId)).pending?.id === `apr_${remove.id}`,
      "the second request to be surfaced",
    );
    expect(sends.filter((m) => m.runId === runId)).toEqual([
      { threadId, runId, requestId: `apr_${refund.id}` },
      { threadId, runId, requestId: `apr_${remove.id}` },
    ]);

    // The notification for the second request is built from the surfaced state and opens its page.
    const { calls, edge } = fakeCallback(() => new Response("ok"));
    const { result } = await deliver(edge, { threadId, runId, requestId: `apr_${remove.id}` });
    expect(result.explicitAcks).toHaveLength(1);
    expect(calls).toHaveLength(1);
    const body = JSON.parse(calls[0]!.body) as Notification;
    expect(body.request).toMatchObject({
      id: `apr_${remove.id}`,
      prompt: "Delete this account? This cannot be undone.",
    });
    // A request with approver rules gets no anonymous link: approvers ask for a personal one.
    expect(body.approvalUrl).toBeUndefined();
    expect(body.linksUrl).toBe(`${BASE}/v1/runs/${runId}/links`);

    expect(
      (
        await signedDecision({
          runId,
          requestId: `apr_${remove.id}`,
          decision: "decline",
          decidedBy: "lead@example.com",
        })
      ).status,
    ).toBe(202);
    await waitForStatus(runId, ["done"]);
    expect(sends.filter((m) => m.runId === runId)).toHaveLength(2);
  });

  it("enqueues exactly one notification per surfaced request; the real consumer tries to deliver it; the run stays decidable", async () => {
    // Both the test and the worker under test share this isolate, so these spies see the worker's own calls.
    const sends = recordNotifySends();
    const realFetch = globalThis.fetch;
    const attempts: Array<{ url: string; webhookId: string | null }> = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(
      (input: RequestInfo | URL, init?: RequestInit) => {
        const request = new Request(input, init);
        attempts.push({ url: request.url, webhookId: request.headers.get("webhook-id") });
        return realFetch(input, init);
      },
    );

    const url = callbackUrl("real");
    const first = await startRun({ agent: "support", input: REFUND, callbackUrl: url });
    const pending = await waitForStatus(first.runId, ["pending"]);
    const requestId = pending.pending!.id;
    const notifies = () => sends.filter((s) => s.runId === first.runId);

    await until(
      () => attempts.some((a) => a.url === url),
      "the real consumer's delivery attempt",
      8_000,
    );
    expect(attempts.filter((a) => a.url === url).map((a) => a.webhookId)).toContain(
      notificationId({ runId: first.runId, request: pending.pending! }),
    );
    expect(notifies()).toEqual([{ threadId: first.threadId, runId: first.runId, requestId }]);

    // Delivery failed (unreachable host): the run is untouched and still decidable.
    const still = await getRun(first.runId);
    expect(still.status).toBe("pending");
    expect(still.pending?.id).toBe(requestId);
    expect(
      (await signedDecision({ runId: first.runId, requestId, decision: "approve" })).status,
    ).toBe(202);
    await waitForStatus(first.runId, ["done"]);

    // A second run in the thread surfaces a second request: one more notification, for it only.
    const second = await startRun({
      agent: "support",
      input: "Please delete my account",
      threadId: first.threadId,
      callbackUrl: url,
    });
    const secondPending = await waitForStatus(second.runId, ["pending"]);
    await sleep(500);
    expect(notifies()).toHaveLength(1);
    const secondNotifies = sends.filter((s) => s.runId === second.runId);
    expect(secondNotifies).toEqual([
      { threadId: first.threadId, runId: second.runId, requestId: secondPending.pending!.id },
    ]);
    expect(
      (
        await signedDecision({
          runId: second.runId,
          requestId: secondPending.pending!.id,
          decision: "decline",
          decidedBy: "lead@example.com",
        })
      ).status,
    ).toBe(202);
    await waitForStatus(second.runId, ["done"]);
  });
});
