/**
 * A delivery round with receipts to deliver carries the thread's pending agent version on the
 * same `accept` call (issue 46: one call fewer per decision); a round without receipts sends
 * it alone, and a state the store has is not sent again.
 */
import { describe, expect, it } from "vitest";
import { env, runInDurableObject } from "cloudflare:test";
import { supportAgent } from "../../../src/edge/demo/agent";
import type { EdgeEnv } from "../../../src/edge/settings";
import type { SignedReceipt } from "../../../src/edge/receipts/receipt";
import type { PendingVersionState } from "../../../src/edge/versions/pending-versions";
import { createThreadContext } from "../../../durable/thread/context";
import { OutboxDelivery } from "../../../durable/outbox/delivery";
import { startPending } from "../../helpers/durable";
import { draft } from "./helpers";

type Call = ["accept", number[], PendingVersionState | undefined] | ["put", PendingVersionState];

/** The worker's env with a receipts store that records what it is sent. */
function recordingEnv(calls: Call[]): EdgeEnv {
  const store = {
    accept: async (receipts: SignedReceipt[], pending?: PendingVersionState) => {
      calls.push(["accept", receipts.map((r) => r.seq), pending]);
      return { stored: receipts.length, repeated: 0, gaps: [], conflicts: [] };
    },
    putPendingVersion: async (state: PendingVersionState) => {
      calls.push(["put", state]);
    },
  };
  return {
    ...env,
    RECEIPTS: { idFromName: (name: string) => env.RECEIPTS.idFromName(name), get: () => store },
  } as unknown as EdgeEnv;
}

describe("the pending agent version", () => {
  it("rides on the receipts' call when a round has both, and goes alone otherwise", async () => {
    const { runId, threadId, stub } = await startPending("refund $80 on order 42");
    await runInDurableObject(stub, async (_instance, state) => {
      const calls: Call[] = [];
      const t = createThreadContext(state, recordingEnv(calls), {
        options: { agents: [supportAgent] },
        agents: new Map([[supportAgent.name, supportAgent]]),
        report: () => {},
      });
      const delivery = new OutboxDelivery(t);
      const acked = t.receipts.acked();
      state.storage.transactionSync(() =>
        t.receipts.receipts?.append(
          draft({ threadId, runId, requestId: "apr_extra" }),
          new Date("2026-07-01T10:02:00.000Z"),
        ),
      );
      await delivery.deliver();
      // One call: the new receipt, with the state this object has not sent yet.
      expect(calls).toHaveLength(1);
      const [kind, seqs, pending] = calls[0] as ["accept", number[], PendingVersionState];
      expect([kind, seqs]).toEqual(["accept", [acked + 1]]);
      expect(pending).toMatchObject({ threadId, agent: supportAgent.name });
      expect(pending.version).toEqual(expect.any(String));

      await delivery.deliver(); // nothing new: no call at all
      expect(calls).toHaveLength(1);

      // The run stops waiting; no receipt to deliver: the state goes on its own.
      state.storage.transactionSync(() =>
        t.store.update(runId, { status: "cancelled" }, Date.now()),
      );
      await delivery.deliver();
      expect(calls.slice(1)).toEqual([
        ["put", expect.objectContaining({ threadId, agent: null, version: null })],
      ]);
    });
  });
});
