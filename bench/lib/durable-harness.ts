/**
 * Scenario 3's harness: the thread object's storage work without the object.
 * It wires the product's own modules (durable/schema.ts, sql.ts, run-store.ts,
 * driver.ts, decisions.ts, event-hub.ts, vote-store.ts, inbox-outbox.ts, reminders.ts and
 * the demo `support` agent with the demo's approver groups) the way
 * durable/thread-object.ts does, over any `SqlStorage`-shaped object, so Node can
 * replay the exact writes against SQLite (the inbox rows included; their delivery to the
 * inbox object is I/O after the commit and not replayed). Bundled by esbuild; not part of
 * the product.
 */
import { createSql } from "../../durable/storage/sql";
import { migrate } from "../../durable/storage/schema";
import { RunStore } from "../../durable/storage/run-store";
import { EventHub } from "../../durable/thread/event-hub";
import { driveOnce, type DriverDeps } from "../../durable/thread/drive/driver";
import { recordDecisionInInbox } from "../../durable/ledger/decisions";
import { VoteStore } from "../../durable/storage/vote-store";
import { InboxOutbox, inboxHooks } from "../../durable/outbox/inbox";
import { startTimers } from "../../durable/thread/reminders";
import { InlineWaiters } from "../../durable/thread/drive/elicitation";
import { parseApproverDirectory } from "../../src/edge/approvals/groups";
import { supportAgent } from "../../src/edge/demo/agent";
import { HandleStore } from "../../durable/storage/handle-store";
import type { AgentDefinition } from "../../src/edge/agent";
import type { EdgeBindings } from "../../src/edge/settings/core";
import type { Message } from "../../src/core/types";
import { ReceiptOutbox, deliverReceipts } from "../../durable/outbox/receipts";
import { PendingVersionOutbox } from "../../durable/outbox/pending-version";
import { receiptRecorder } from "../../durable/receipts/record";
import { receiptKeys } from "../../src/edge/receipts/receipt-keys";

/** A receipt key for the bench only (base64 of a 32-byte Ed25519 seed). */
const BENCH_RECEIPT_KEY = btoa(String.fromCharCode(...Array.from({ length: 32 }, (_, i) => i + 1)));

/** The demo's approver groups, as in .dev.vars.example: deleting an account needs a support lead. */
const DEMO_GROUPS = JSON.stringify({
  finance: ["ann@example.com", { id: "bob", identities: ["bob@example.com"] }],
  "support-leads": ["lead@example.com"],
  managers: ["max@example.com"],
});

export interface Thread {
  store: RunStore;
  /** ThreadObject.start: one transaction inserting the run (the queue send is not storage). */
  start(runId: string, threadId: string, input: string, agent?: string): void;
  /** ThreadObject.drive for one run: drives until no work is left. */
  drive(runId: string): Promise<void>;
  /** ThreadObject.decide: one transaction recording the decision (and its inbox row). */
  decide(
    runId: string,
    requestId: string,
    decision: "approve" | "decline",
    decidedBy?: string,
  ): { ok: boolean };
  /** Seeds a finished earlier run holding `messages` (what earlier runs of the thread left). */
  seed(threadId: string, messages: Message[]): void;
  /**
   * With receipts: what the object's delivery round writes after a commit — the receipt
   * signed and acknowledged by the store; the pending version it reads and sends (no write:
   * the store's side is another object, not replayed). Without: nothing.
   */
  deliver(): Promise<void>;
}

export interface ThreadOptions {
  /** Wire the receipts as the object does (durable/thread/context.ts); off = the object before issue 30's receipts. */
  receipts?: boolean;
  /** What createEdge is given (the demo `support` agent by default); the first runs. */
  agents?: AgentDefinition[];
}

export function createThread(
  storage: SqlStorage,
  transaction: <T>(fn: () => T) => T,
  options: ThreadOptions = {},
): Thread {
  const { agents = [supportAgent] } = options;
  const sql = createSql(storage);
  migrate(sql);
  const store = new RunStore(sql);
  const events = new EventHub(store);
  const votes = new VoteStore(sql);
  const threadId = () => store.runs()[0]?.threadId;
  const receipts = new ReceiptOutbox(sql, threadId);
  const pendingVersion = new PendingVersionOutbox(sql, threadId);
  if (options.receipts) {
    store.onDecision = receiptRecorder({ store, votes, outbox: receipts });
  }
  const outbox = new InboxOutbox(sql);
  const directory = parseApproverDirectory({ APPROVER_GROUPS: DEMO_GROUPS });
  const deps: DriverDeps = {
    store,
    agents: new Map(agents.map((a) => [a.name, a])),
    config: {
      apiToken: "bench",
      webhookSecrets: ["whsec_YmVuY2gtc2VjcmV0LWJlbmNoLXNlY3JldA=="],
      notifySecrets: [],
      callbackAllow: { hosts: [], origins: [] },
      bindings: unboundBindings(),
    },
    env: {},
    now: () => Date.now(),
    transaction,
    record: (runId, type, data) => void events.record(runId, type, data),
    halted: async (run, request) => startTimers(votes, { run, request }, Date.now()),
    waiters: new InlineWaiters(),
    elicitationWindowMs: 0,
    inbox: inboxHooks(outbox, votes),
    // The sub-agent tree of an agent with a team (durable/agents/), as the object has it.
    handles: new HandleStore(sql),
  };
  const signal = new AbortController().signal;
  return {
    store,
    async deliver() {
      if (!options.receipts) {
        return;
      }
      await deliverReceipts({
        outbox: receipts,
        key: async () => (await receiptKeys(BENCH_RECEIPT_KEY))[0]!,
        send: async (batch) => ({ stored: batch.length, repeated: 0, gaps: [], conflicts: [] }),
        transaction,
        now: () => Date.now(),
      });
      const pending = pendingVersion.due(); // what the round reads; the store is not modelled
      if (pending) {
        pendingVersion.sent(pending);
      }
    },
    start(runId, threadId, input, agent = agents[0]?.name ?? supportAgent.name) {
      transaction(() =>
        store.insertRun({
          runId,
          threadId,
          agent,
          input,
          publicUrl: "http://127.0.0.1",
          now: Date.now(),
        }),
      );
    },
    async drive(runId) {
      for (let guard = 0; guard < 100; guard += 1) {
        if (!(await driveOnce(deps, runId, signal))) {
          return;
        }
      }
    },
    decide(runId, requestId, decision, decidedBy) {
      const input = {
        runId,
        requestId,
        decision,
        channel: "webhook" as const,
        webhookId: `msg_${requestId}`,
        ...(decidedBy ? { decidedBy } : {}),
      };
      const outcome = transaction(() =>
        recordDecisionInInbox({ store, outbox, votes, directory }, input, Date.now()),
      );
      if ("checkEdit" in outcome) {
        return { ok: false, status: 400 };
      }
      // The route's statuses: 202 recorded, else the refusal's (409 for most, the bench's concern).
      return outcome.ok ? { ok: true, status: 202 } : { ok: false, status: 409 };
    },
    seed(threadId, messages) {
      const runId = `${threadId}.run_seed${String(Math.random()).slice(2, 18).padEnd(16, "0")}`;
      transaction(() => {
        // insertRun stores the run's input as its first (user) message.
        const [first, ...rest] = messages;
        store.insertRun({
          runId,
          threadId,
          agent: supportAgent.name,
          input: first && first.role === "user" ? first.content : "",
          publicUrl: "http://127.0.0.1",
          now: Date.now(),
        });
        store.appendMessages(runId, rest);
        store.update(runId, { status: "done" }, Date.now());
      });
    },
  };
}

/** The harness drives one object in Node: no queue or namespace is bound, and using one is a bug here. */
function unboundBindings(): EdgeBindings {
  const unbound = (name: string): never => {
    throw new Error(`${name} is not bound in the bench harness`);
  };
  return {
    get threads() {
      return unbound("THREADS");
    },
    get resumeQueue() {
      return unbound("RESUME_QUEUE");
    },
    get notifyQueue() {
      return unbound("NOTIFY_QUEUE");
    },
  };
}
