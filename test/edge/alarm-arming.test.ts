/**
 * When a thread object arms its alarm, and when it does not (issue 46: full armings per
 * approval cycle). An arming "by a time" (a drive's watchdog, a decision's backstop) keeps an
 * earlier alarm and otherwise sets exactly that time, reading no timer; a drive with nothing
 * to do arms nothing; a delivery that fails arms for its retry. Alarm times are read from
 * storage, never timed.
 */
import { describe, expect, it } from "vitest";
import { env, runInDurableObject } from "cloudflare:test";
import { supportAgent } from "../../src/edge/demo/agent";
import type { EdgeEnv } from "../../src/edge/settings";
import { createThreadContext } from "../../durable/thread/context";
import { OutboxDelivery } from "../../durable/outbox/delivery";
import { armAlarm } from "../../durable/thread/alarms";
import { drive } from "../../durable/thread/drive";
import { startPending, threadStub } from "../helpers/durable";

/** The object's modules over its real storage, with `envOf` in place of the worker's env. */
function threadContext(state: DurableObjectState, envOf: EdgeEnv = env as EdgeEnv) {
  const t = createThreadContext(state, envOf, {
    options: { agents: [supportAgent] },
    agents: new Map([[supportAgent.name, supportAgent]]),
    report: () => {},
  });
  return { t, delivery: new OutboxDelivery(t) };
}

const HOUR = 3_600_000;

describe("arming by a time", () => {
  it("sets that time when no alarm is earlier, and keeps an earlier one", async () => {
    const stub = threadStub(`th_arm_${crypto.randomUUID().replaceAll("-", "")}`);
    await runInDurableObject(stub, async (_instance, state) => {
      const { t } = threadContext(state);
      const by = Date.now() + HOUR;
      await armAlarm(t, by);
      expect(await state.storage.getAlarm()).toBe(by); // none before: exactly the time asked
      await armAlarm(t, by + 1_000);
      expect(await state.storage.getAlarm()).toBe(by); // an earlier one is kept
      await state.storage.setAlarm(by + HOUR);
      await armAlarm(t, by);
      expect(await state.storage.getAlarm()).toBe(by); // a later one is brought forward
    });
  });
});

describe("a drive with nothing to do", () => {
  it("neither delivers nor arms: the alarm stays where it was", async () => {
    const { runId, stub } = await startPending("refund $80 on order 42");
    await runInDurableObject(stub, async (_instance, state) => {
      const { t, delivery } = threadContext(state);
      const sentinel = Date.now() + 5 * HOUR;
      await state.storage.setAlarm(sentinel);
      await drive(t, delivery, runId); // pending: its request waits for a person
      await delivery.deliver(); // after any round the drive had started
      expect(await state.storage.getAlarm()).toBe(sentinel);
    });
  });
});

describe("a delivery that fails", () => {
  it("arms the alarm for its retry", async () => {
    const { run, request, stub } = await startPending("refund $80 on order 42");
    const failing = {
      ...env,
      INBOXES: {
        idFromName: (name: string) => env.INBOXES.idFromName(name),
        get: () => ({
          apply: async () => {
            throw new Error("the inbox is down");
          },
        }),
      },
    } as unknown as EdgeEnv;
    await runInDurableObject(stub, async (_instance, state) => {
      const { t, delivery } = threadContext(state, failing);
      await delivery.deliver(); // whatever the start left is delivered by the real inbox first
      const stored = t.store.requireRun(run.runId);
      state.storage.transactionSync(() =>
        t.outbox.record({ run: stored, request }, { event: "surfaced" }, Date.now()),
      );
      await state.storage.deleteAlarm();
      const before = Date.now();
      await delivery.deliver();
      const alarm = await state.storage.getAlarm();
      expect(alarm).not.toBeNull();
      // The first retry waits 2 s (attempt 1); the request's expiry, if any, is later still.
      expect(alarm!).toBeGreaterThan(before);
      expect(alarm!).toBeLessThanOrEqual(Date.now() + 2_000);
      expect(t.outbox.due()).toHaveLength(1); // kept for the retry
    });
  });
});
