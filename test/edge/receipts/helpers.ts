/** Shared by the receipt tests: fixed keys, a draft, and scratch SQLite storage. */
import { env, runInDurableObject } from "cloudflare:test";
import { createSql, type Sql } from "../../../durable/storage/sql";
import type { ReceiptDraft } from "../../../src/edge/receipts/receipt";

/** Two distinct test seeds (never real keys): base64 of bytes 1…32 and 101…132. */
export const SEED_A = btoa(String.fromCharCode(...Array.from({ length: 32 }, (_, i) => i + 1)));
export const SEED_B = btoa(String.fromCharCode(...Array.from({ length: 32 }, (_, i) => i + 101)));

export function draft(overrides: Partial<ReceiptDraft> = {}): ReceiptDraft {
  return {
    threadId: "th_1",
    runId: "th_1.run_00000000000000000001",
    requestId: "apr_call_1",
    tool: "refund",
    argsHash: "k0t0x8f3kW9w2bY0j2mIh8b7fV3lqP0e5P8n2aQ1xYc",
    agentVersion: "v1",
    rule: { group: "finance", quorum: 2 },
    decision: "approved",
    decidedBy: "bob",
    votes: [
      { decidedBy: "ann", decision: "approve", channel: "inbox", at: "2026-07-01T10:00:00.000Z" },
      { decidedBy: "bob", decision: "approve", channel: "webhook", at: "2026-07-01T10:01:00.000Z" },
    ],
    channel: "webhook",
    ...overrides,
  };
}

/**
 * Runs `fn` with SQLite storage of its own: a fresh object of the inbox class, used only as a
 * place to put tables (the inbox's code never runs on it).
 */
export function withScratchSql<R>(fn: (sql: Sql) => R | Promise<R>): Promise<R> {
  const stub = env.INBOXES.get(env.INBOXES.idFromName(`scratch-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_instance, state) => fn(createSql(state.storage.sql)));
}
