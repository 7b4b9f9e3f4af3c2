/**
 * A slow receiver does not hold the notify queue: a delivery still unanswered after its
 * batch's hold is handed back for redelivery and finished in the background, so the next
 * batch's healthy receiver is notified while the slow one still hangs; the slow one's late
 * answer counts (nothing is sent twice, nothing recorded as failed).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createExecutionContext,
  createMessageBatch,
  env,
  getQueueResult,
  waitOnExecutionContext,
} from "cloudflare:test";
import { createEdge } from "../../src/create-edge";
import { supportAgent } from "../../src/edge/demo/agent";
import type { EdgeEnv } from "../../src/edge/settings";
import type { NotifyMessage } from "../../src/edge/protocol";
import { retryDelaySeconds } from "../../src/edge/notify/notification";
import { eventsOf, startPending } from "../helpers/durable";

const REFUND = "Please refund $80 on order 42";

async function pendingFor(tag: string) {
  const url = `http://127.0.0.1:9/hooks/${tag}/${crypto.randomUUID()}`;
  const started = await startPending(REFUND, { callbackUrl: url });
  const message: NotifyMessage = {
    threadId: started.threadId,
    runId: started.runId,
    requestId: started.request.id,
  };
  return { ...started, url, message };
}

/**
 * Receivers by URL: `slow` ones hang until `release(url, response)`; the rest answer 204.
 * Records each POST's URL in order, and which hanging POSTs were aborted by their timeout.
 */
function receivers(slow: Set<string>) {
  const calls: string[] = [];
  const aborted = new Set<string>();
  const releases = new Map<string, (response: Response) => void>();
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    calls.push(url);
    if (!slow.has(url)) {
      return new Response(null, { status: 204 });
    }
    init?.signal?.addEventListener("abort", () => aborted.add(url));
    return new Promise<Response>((resolve) => releases.set(url, resolve));
  }) as typeof globalThis.fetch;
  const release = (url: string, response: Response) => releases.get(url)!(response);
  return { calls, aborted, release, fetch };
}

type Edge = ReturnType<typeof createEdge>;

/**
 * One batch of `message`, resolved when the handler returns. `result()` is what it answered;
 * it waits for the context's background work first (as getQueueResult does).
 */
async function handle(
  edge: Edge,
  message: NotifyMessage,
  attempts = 1,
  queue = "toolnexus-notify",
) {
  const id = crypto.randomUUID();
  const batch = createMessageBatch<NotifyMessage>(queue, [
    { id, timestamp: new Date(), attempts, body: message },
  ]);
  const delays: Array<number | undefined> = [];
  for (const m of batch.messages) {
    const retry = m.retry.bind(m);
    Object.defineProperty(m, "retry", {
      value: (options?: QueueRetryOptions) => {
        delays.push(options?.delaySeconds);
        retry(options);
      },
    });
  }
  const ctx = createExecutionContext();
  await edge.worker.queue!(batch, env as Env & EdgeEnv, ctx);
  return { id, ctx, delay: () => delays[0], result: () => getQueueResult(batch, ctx) };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a slow receiver and the notify queue", { timeout: 30_000 }, () => {
  it("a hanging receiver lets go of its batch: the next batch's healthy receiver is notified while it still hangs, and its late 2xx is not sent again", async () => {
    const slow = await pendingFor("slow");
    const healthy = await pendingFor("healthy");
    const peers = receivers(new Set([slow.url]));
    const reported: unknown[] = [];
    const edge = createEdge({
      agents: [supportAgent],
      fetch: peers.fetch,
      onError: (error) => reported.push(error),
    });

    // The slow receiver's batch returns with the attempt still open (the 10 s bound not reached).
    const first = await handle(edge, slow.message);
    expect(peers.calls).toEqual([slow.url]);
    expect(peers.aborted.has(slow.url)).toBe(false);
    // Handed back, to be redelivered after its usual backoff plus the attempt's bound.
    expect(first.delay()).toBe(retryDelaySeconds(1) + 10);

    // The following batch: the healthy receiver is notified while the slow one still hangs.
    const next = await handle(edge, healthy.message);
    expect((await next.result()).explicitAcks).toEqual([next.id]);
    expect(peers.calls).toEqual([slow.url, healthy.url]);
    expect(peers.aborted.has(slow.url)).toBe(false);

    // The slow receiver answers at last; the redelivery finds it delivered and sends nothing.
    peers.release(slow.url, new Response(null, { status: 200 }));
    const firstResult = await first.result();
    expect(firstResult.explicitAcks).toEqual([]);
    expect(firstResult.retryMessages).toEqual([{ msgId: first.id }]);
    const redelivery = await handle(edge, slow.message, 2);
    expect((await redelivery.result()).explicitAcks).toEqual([redelivery.id]);
    expect(peers.calls).toEqual([slow.url, healthy.url]);

    // Nor does its dead letter (had the queue given up meanwhile) record a failure.
    await handle(edge, slow.message, 1, "toolnexus-notify-dlq");
    expect((await eventsOf(slow.runId)).filter((e) => e.type === "error")).toEqual([]);
    expect(reported).toEqual([]);
  });

  it("a late failure is retried as a failure: the redelivery sends again, under the same webhook-id", async () => {
    const slow = await pendingFor("slow-then-fails");
    const peers = receivers(new Set([slow.url]));
    const edge = createEdge({ agents: [supportAgent], fetch: peers.fetch, onError: () => {} });

    const first = await handle(edge, slow.message);
    peers.release(slow.url, new Response("busy", { status: 503 }));
    expect((await first.result()).retryMessages).toEqual([{ msgId: first.id }]);

    // The receiver has recovered: the redelivery sends again and is acknowledged.
    const again = receivers(new Set());
    const recovered = createEdge({ agents: [supportAgent], fetch: again.fetch, onError: () => {} });
    const redelivery = await handle(recovered, slow.message, 2);
    expect(again.calls).toEqual([slow.url]);
    expect((await redelivery.result()).explicitAcks).toEqual([redelivery.id]);
  });

  it("on the last attempt the batch still lets go, and the late failure is recorded on the run itself", async () => {
    const slow = await pendingFor("slow-last");
    const peers = receivers(new Set([slow.url]));
    // Never answers: its own 200 ms bound ends it, after the 20 ms hold let go of the batch.
    const edge = createEdge({
      agents: [supportAgent],
      fetch: peers.fetch,
      notifyTimeoutMs: 200,
      notifyHoldMs: 20,
      onError: () => {},
    });

    const last = await handle(edge, slow.message, 5);
    expect(peers.aborted.has(slow.url)).toBe(false); // the batch let go before the bound
    // Acked, not retried: a retry would be dead-lettered before this attempt has its answer.
    const result = await last.result();
    expect(result.explicitAcks).toEqual([last.id]);
    expect(result.retryMessages).toEqual([]);
    await waitOnExecutionContext(last.ctx);
    expect(peers.aborted.has(slow.url)).toBe(true);
    const errors = (await eventsOf(slow.runId)).filter((e) => e.type === "error");
    expect(errors.map((e) => e.data.message)).toEqual([
      expect.stringMatching(/failed: gave up after 5 deliveries/),
    ]);
  });
});
