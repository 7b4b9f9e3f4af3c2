// The approvals inbox: a projection of each thread's requests, fed by a transactional
// outbox, listed by GET /v1/approvals without reading any thread.
import { describe, expect, it } from "vitest";
import {
  createExecutionContext,
  env,
  runDurableObjectAlarm,
  runInDurableObject,
  SELF,
} from "cloudflare:test";
import worker from "../../src/worker";
import { api, BASE, signedDecision, waitForStatus } from "../helpers/edge";
import { inThread, sqlIn, startPending, until } from "../helpers/durable";
import type { InboxRpc } from "../../src/edge/inbox/rpc";
import { decodeCursor, type InboxItem } from "../../src/edge/inbox/item";
import { deliverOutbox } from "../../durable/outbox/inbox";
import type { RunRow } from "../../durable/storage/run-store";

const DELETE = "Please delete my account";
const REFUND = "Refund order 42, $80";
const LEADS = "support-leads";

/** The interrupted deliveries these tests cause on purpose: kept, not logged. */
const failedDeliveries: unknown[] = [];
const failedDelivery = (_group: string, _items: InboxItem[], error: unknown) => {
  failedDeliveries.push(error);
};

function inbox(group: string): InboxRpc & DurableObjectStub {
  return env.INBOXES.get(env.INBOXES.idFromName(group)) as unknown as InboxRpc & DurableObjectStub;
}

async function approvals(
  query: string,
): Promise<{ items: InboxItem[]; nextCursor: string | null }> {
  const response = await api(`/v1/approvals?${query}`);
  expect(response.status).toBe(200);
  return response.json();
}

async function itemOf(
  runId: string,
  requestId: string,
  status = "open",
  group = "default",
): Promise<InboxItem> {
  return until(async () => {
    // Every page: other tests of this file fill the default inbox (1,000 items in one).
    let cursor: string | null = null;
    do {
      const page = await approvals(
        `group=${group}&status=${status}&limit=200${cursor ? `&cursor=${cursor}` : ""}`,
      );
      const found = page.items.find((i) => i.requestId === requestId && i.runId === runId);
      if (found) {
        return found;
      }
      cursor = page.nextCursor;
    } while (cursor);
    return undefined;
  }, `${requestId} ${status} in the inbox`);
}

describe("GET /v1/approvals", () => {
  it("lists a surfaced request with what an approver needs, then shows who decided, when and how", async () => {
    // delete_account's rules name support-leads: its requests land in that group's inbox.
    const { runId, threadId, request } = await startPending(DELETE, {
      metadata: { ticket: "T-1" },
    });
    const open = await itemOf(runId, request.id, "open", LEADS);
    expect(open).toMatchObject({
      requestId: request.id,
      runId,
      threadId,
      agent: "support",
      input: DELETE,
      requestedBy: null,
      tool: "delete_account",
      args: {},
      metadata: { ticket: "T-1" },
      prompt: request.prompt,
      kind: "approval",
      groups: [LEADS],
      status: "open",
      event: "surfaced",
      votes: [],
      decision: null,
    });
    expect(Date.parse(open.expiresAt!)).toBeGreaterThan(Date.now());

    const decided = await signedDecision({
      runId,
      requestId: request.id,
      decision: "decline",
      reason: "not today",
      decidedBy: "lead@example.com",
    });
    expect(decided.status).toBe(202);
    const item = await itemOf(runId, request.id, "decided", LEADS);
    expect(item).toMatchObject({
      status: "decided",
      event: "decided",
      decision: {
        outcome: "declined",
        decidedBy: "lead@example.com",
        channel: "webhook",
        reason: "not today",
      },
    });
    expect(item.version).toBeGreaterThan(open.version);
    const { items: stillOpen } = await approvals(`group=${LEADS}&limit=200`);
    expect(stillOpen.some((i) => i.requestId === request.id)).toBe(false);
    await waitForStatus(runId, ["done"]);
  });

  it("a cancelled run's request leaves the open list as cancelled", async () => {
    const { runId, request } = await startPending(DELETE);
    await itemOf(runId, request.id, "open", LEADS);
    expect((await api(`/v1/runs/${runId}/cancel`, { method: "POST" })).status).toBe(200);
    const item = await itemOf(runId, request.id, "decided", LEADS);
    expect(item).toMatchObject({
      event: "cancelled",
      decision: { outcome: "cancelled", channel: "run", reason: "run cancelled" },
    });
  });

  it("an expired request is projected as expired by the expiry alarm", async () => {
    const { runId, threadId, request, stub } = await startPending(REFUND);
    await itemOf(runId, request.id);
    await sqlIn(threadId, "UPDATE runs SET expires_at = ? WHERE run_id = ?", Date.now() - 1, runId);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const item = await itemOf(runId, request.id, "decided");
    expect(item).toMatchObject({
      event: "expired",
      decision: { outcome: "expired", decidedBy: "expiry", channel: "expiry", reason: "expired" },
    });
  });

  it("validates the query, names the field, and needs the bearer token", async () => {
    const problems: Array<[string, string]> = [
      ["", "group"],
      ["group=default&status=all", "status"],
      ["group=default&limit=0", "limit"],
      ["group=default&limit=201", "limit"],
      ["group=default&limit=ten", "limit"],
      ["group=default&cursor=%21%21", "cursor"],
      ["group=default&cursor=bm90LWEtY3Vyc29y", "cursor"],
      ["group=default&page=2", "(root)"],
    ];
    for (const [query, path] of problems) {
      const response = await api(`/v1/approvals?${query}`);
      expect(response.status, query).toBe(400);
      const body = await response.json<any>();
      expect(body.error.code).toBe("invalid_query");
      expect(
        body.error.issues.map((i: any) => i.path),
        query,
      ).toContain(path);
    }
    const anonymous = await api("/v1/approvals?group=default", {
      headers: { authorization: "Bearer nope" },
    });
    expect(anonymous.status).toBe(401);
  });

  it("is in the OpenAPI document", async () => {
    const doc = await (await SELF.fetch(`${BASE}/openapi.json`)).json<any>();
    expect(doc.paths["/v1/approvals"].get.responses[200]).toBeDefined();
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(["ApprovalsPage", "InboxItem"]),
    );
  });

  it("without the INBOXES binding every route is a 500 config_error naming it", async () => {
    const { INBOXES: _, ...withoutInboxes } = env as unknown as Record<string, unknown>;
    const response = await worker.fetch!(
      new Request(`${BASE}/v1/approvals?group=default`, {
        headers: { authorization: "Bearer test-token" },
      }) as never,
      withoutInboxes as never,
      createExecutionContext(),
    );
    expect(response.status).toBe(500);
    const body = await response.json<{ error: { code: string; message: string } }>();
    expect(body.error.code).toBe("config_error");
    expect(body.error.message).toMatch(/^INBOXES is not bound/);
  });

  it("an unknown group is 404 and creates no storage", async () => {
    const response = await api("/v1/approvals?group=nobody-here");
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: "group_not_found" } });
    const tables = await runInDurableObject(inbox("nobody-here"), (_i, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master").toArray(),
    );
    expect(tables).toEqual([]);
  });
});

/** An item as a thread would project it; only the fields listing depends on vary. */
function item(id: string, version: number, extra: Partial<InboxItem> = {}): InboxItem {
  const at = new Date(Date.UTC(2026, 0, 1) + Number(id.replace(/\D/g, "") || 0) * 1000);
  return {
    requestId: id,
    runId: `th_x.run_${id}`,
    threadId: "th_x",
    agent: "support",
    input: "in",
    requestedBy: null,
    tool: "t",
    args: { id },
    argsHash: "h",
    editedBy: null,
    metadata: null,
    prompt: `p ${id}`,
    kind: "approval",
    expiresAt: null,
    groups: ["g"],
    status: "open",
    event: "surfaced",
    votes: [],
    needed: null,
    decision: null,
    surfacedAt: at.toISOString(),
    updatedAt: at.toISOString(),
    version,
    ...extra,
  };
}

describe("InboxObject projection", () => {
  it("applies a version once, never lets an older one overwrite a newer one", async () => {
    const stub = inbox("versions");
    expect(await stub.apply([item("r1", 2, { prompt: "v2" })])).toEqual({ changed: 1 });
    expect(await stub.apply([item("r1", 2, { prompt: "v2" })])).toEqual({ changed: 0 });
    expect(await stub.apply([item("r1", 1, { prompt: "v1" })])).toEqual({ changed: 0 });
    expect((await stub.get("th_x.run_r1", "r1"))?.prompt).toBe("v2");
    expect(await stub.apply([item("r1", 3, { prompt: "v3" })])).toEqual({ changed: 1 });
    expect((await stub.get("th_x.run_r1", "r1"))?.prompt).toBe("v3");
  });

  it("pages open items oldest first and decided ones newest first, by cursor", async () => {
    const stub = inbox("paging");
    await stub.apply(
      [1, 2, 3, 4, 5]
        .map((n) => item(`r${n}`, 1))
        .concat([
          item("r6", 2, {
            status: "decided",
            decision: {
              outcome: "approved",
              decidedBy: "a",
              channel: "inbox",
              decidedAt: "2026-02-01T00:00:00.000Z",
              reason: null,
            },
          }),
          item("r7", 2, {
            status: "decided",
            decision: {
              outcome: "declined",
              decidedBy: "b",
              channel: "slack",
              decidedAt: "2026-03-01T00:00:00.000Z",
              reason: "no",
            },
          }),
        ]),
    );
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page += 1) {
      const result = await stub.list({
        status: "open",
        limit: 2,
        ...(cursor ? { cursor: decodeCursor(cursor)! } : {}),
      });
      seen.push(...result.items.map((i) => i.requestId));
      expect(result.rowsRead).toBeLessThanOrEqual(2 + 2); // the page, the look-ahead row, the cursor's own row
      if (!result.nextCursor) {
        break;
      }
      cursor = result.nextCursor;
    }
    expect(seen).toEqual(["r1", "r2", "r3", "r4", "r5"]);
    const decided = await stub.list({ status: "decided", limit: 10 });
    expect(decided.items.map((i) => i.requestId)).toEqual(["r7", "r6"]);
  });
});

describe("scale", () => {
  it("1,000 open requests in one group list page by page, each page reading its own rows only", async () => {
    // Projected straight into the inbox: these runs exist in no thread, so listing them
    // proves the API reads the inbox alone.
    const base = Date.UTC(2026, 5, 1);
    const all = Array.from({ length: 1000 }, (_, n) =>
      item(`q${n}`, 1, {
        runId: `th_scale${n % 7}.run_${String(n).padStart(20, "0")}`,
        groups: ["default"],
        surfacedAt: new Date(base + Math.floor(n / 3) * 1000).toISOString(), // ties on purpose
      }),
    );
    const stub = inbox("default");
    for (let i = 0; i < all.length; i += 250) {
      await stub.apply(all.slice(i, i + 250));
    }
    for (const limit of [50, 200]) {
      const seen = new Set<string>();
      let cursor: string | null = null;
      let pages = 0;
      do {
        const response = await api(
          `/v1/approvals?group=default&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`,
        );
        const page = await response.json<{ items: InboxItem[]; nextCursor: string | null }>();
        expect(Number(response.headers.get("x-rows-read"))).toBeLessThanOrEqual(limit + 2);
        for (const i of page.items.filter((i) => i.requestId.startsWith("q"))) {
          expect(seen.has(i.requestId)).toBe(false);
          seen.add(i.requestId);
        }
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor && pages < 100);
      expect(seen.size).toBe(1000);
    }
  });
});

describe("transactional outbox", () => {
  const run = (runId: string): RunRow => ({
    runId: runId,
    threadId: "th_outbox",
    agent: "support",
    status: "pending",
    input: "in",
    callbackUrl: null,
    metadata: null,
    publicUrl: "https://edge.test",
    pending: null,
    inlineRequest: null,
    expiresAt: null,
    text: null,
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    turns: 1,
    model: null,
    error: null,
    limitReason: null,
    createdAt: 0,
    updatedAt: 0,
    cancelledAt: null,
  });
  const request = (id: string, group?: string) => ({
    id,
    kind: "approval",
    prompt: `approve ${id}?`,
    data: { tool: "t", args: { id }, ...(group ? { approvers: { group } } : {}) },
  });
  const decision = (requestId: string, decision: "approve" | "decline", at: number) => ({
    requestId: requestId,
    runId: "th_outbox.run_1",
    decision,
    answer: JSON.stringify(
      decision === "approve"
        ? { id: requestId, ok: true }
        : { id: requestId, ok: false, reason: "no" },
    ),
    channel: "inbox" as const,
    decidedBy: "ann",
    webhookId: null,
    decidedAt: at,
    appliedAt: null,
  });

  it("converges whatever delivery step is interrupted (before the inbox applies, or after it but before the ack)", async () => {
    // Six changes to two requests in two groups, and a delivery attempt after each change.
    type Step = (thread: any, now: number) => void;
    const steps: Step[] = [
      (t, now) =>
        t.outbox.record(
          { run: run("th_outbox.run_1"), request: request("a") },
          { event: "surfaced" },
          now,
        ),
      (t, now) =>
        t.outbox.record(
          { run: run("th_outbox.run_1"), request: request("b", "ops") },
          { event: "surfaced" },
          now,
        ),
      (t, now) =>
        t.outbox.record(
          { run: run("th_outbox.run_1"), request: request("a") },
          { event: "vote", votes: [], needed: 2 },
          now,
        ),
      (t, now) =>
        t.outbox.record(
          { run: run("th_outbox.run_1"), request: request("b", "ops") },
          { event: "escalated", escalatedTo: "default" },
          now,
        ),
      (t, now) =>
        t.outbox.record(
          { run: run("th_outbox.run_1"), request: request("a") },
          { event: "decided", decision: decision("a", "approve", now) },
          now,
        ),
      (t, now) =>
        t.outbox.record(
          { run: run("th_outbox.run_1"), request: request("b", "ops") },
          { event: "decided", decision: decision("b", "decline", now) },
          now,
        ),
    ];
    // Every send of every attempt, interrupted in turn: k-th send fails before or after applying.
    for (const mode of ["before", "after"] as const) {
      for (let k = 0; k < 12; k += 1) {
        const tag = `${mode}${k}`;
        const groups = { default: `conv-${tag}-default`, ops: `conv-${tag}-ops` } as Record<
          string,
          string
        >;
        let sends = 0;
        const send = async (group: string, items: InboxItem[]) => {
          const target = inbox(groups[group]!);
          const n = sends++;
          if (n === k && mode === "before") {
            throw new Error("interrupted before the inbox applied");
          }
          await target.apply(items);
          if (n === k && mode === "after") {
            throw new Error("interrupted after the inbox applied, before the ack");
          }
        };
        await inThread(`outbox-${tag}`, async (instance: any, state) => {
          const tx = <T>(fn: () => T) => state.storage.transactionSync(fn);
          let now = Date.UTC(2026, 0, 1);
          for (const step of steps) {
            now += 1000;
            tx(() => step(instance, now));
            await deliverOutbox(instance.outbox, {
              send,
              transaction: tx,
              onFailure: failedDelivery,
            });
          }
          // The alarm's retries: until nothing is due.
          for (let i = 0; i < 5 && instance.outbox.due().length > 0; i += 1) {
            await deliverOutbox(instance.outbox, {
              send,
              transaction: tx,
              onFailure: failedDelivery,
            });
          }
          expect(instance.outbox.due(), tag).toEqual([]);
        });
        const a = await inbox(groups.default!).get("th_outbox.run_1", "a");
        const bDefault = await inbox(groups.default!).get("th_outbox.run_1", "b");
        const bOps = await inbox(groups.ops!).get("th_outbox.run_1", "b");
        expect(a, tag).toMatchObject({ status: "decided", event: "decided", version: 3 });
        expect(a?.decision?.outcome, tag).toBe("approved");
        for (const b of [bDefault, bOps]) {
          expect(b, tag).toMatchObject({
            status: "decided",
            version: 3,
            groups: ["ops", "default"],
          });
          expect(b?.decision?.outcome, tag).toBe("declined");
        }
      }
    }
  });

  it("rows written without a delivery (a crash right after the commit) are delivered by the alarm", async () => {
    const { runId, threadId, request } = await startPending(REFUND);
    await itemOf(runId, request.id);
    // A change whose commit is followed by nothing: no background delivery ran.
    await inThread(threadId, (instance: any, state) => {
      state.storage.transactionSync(() => {
        const row = instance.store.run(instance.store.activeRun().runId);
        instance.outbox.record(
          { run: row, request },
          { event: "vote", votes: [], needed: 3 },
          Date.now(),
        );
      });
    });
    expect(await inThread(threadId, (i: any) => i.outbox.due().length)).toBe(1);
    await inThread(threadId, (instance) => instance.alarm());
    expect(await inThread(threadId, (i: any) => i.outbox.due().length)).toBe(0);
    expect((await itemOf(runId, request.id)).needed).toBe(3);
  });
});
