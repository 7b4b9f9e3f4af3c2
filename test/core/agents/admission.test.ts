/**
 * The budget admission of issue 37 (src/core/agents/limits/admission.ts) on its own: calls in
 * flight hold back what they are expected to cost, a call whose agent has no estimate yet waits
 * to be alone, a chain without pools never waits, and an aborted waiter leaves the queue.
 */
import { describe, expect, it } from "vitest";
import { budgetAdmission } from "../../../src/core/agents/limits/admission";
import type { BudgetLevel } from "../../../src/core/agents/limits/budget";

const level = (tokens: number, maxTokens?: number): BudgetLevel => ({
  id: "root/a.1",
  budget: maxTokens === undefined ? {} : { maxTokens },
  tree: {
    turns: 0,
    toolCalls: 0,
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: tokens },
  },
});

const settled = async <T>(promise: Promise<T>) => {
  let done = false;
  promise.then(() => (done = true)).catch(() => (done = true));
  for (let i = 0; i < 5; i += 1) {
    await Promise.resolve();
  }
  return done;
};

describe("budget admission", () => {
  it("without an estimate a second call waits until the first is done; then the estimate lets calls share", async () => {
    const admission = budgetAdmission();
    let spent = 0;
    const levels = () => [level(spent, 100)];
    const first = await admission.admit({ agent: "a", levels });
    const second = admission.admit({ agent: "a", levels });
    expect(await settled(second)).toBe(false);
    spent = 20;
    first.release(20);
    const ticket = await second;
    expect(ticket.waited).toBe(true);
    // 20 spent + 20 held + 20 expected ≤ 100: a third shares the pool with the second.
    expect((await admission.admit({ agent: "a", levels })).waited).toBe(false);
    expect(admission.inFlight("root/a.1")).toBe(2);
  });

  it("a chain without pools is never held back, even behind a waiter", async () => {
    const admission = budgetAdmission();
    await admission.admit({ agent: "a", levels: () => [level(0, 100)] });
    const waiting = admission.admit({ agent: "a", levels: () => [level(0, 100)] });
    expect(await settled(waiting)).toBe(false);
    const free = await admission.admit({ agent: "b", levels: () => [level(0)] });
    expect(free.waited).toBe(false);
  });

  it("an aborted waiter rejects and leaves the queue", async () => {
    const admission = budgetAdmission();
    const first = await admission.admit({ agent: "a", levels: () => [level(0, 100)] });
    const controller = new AbortController();
    const aborted = admission.admit({
      agent: "a",
      levels: () => [level(0, 100)],
      signal: controller.signal,
    });
    const next = admission.admit({ agent: "a", levels: () => [level(0, 100)] });
    controller.abort();
    await expect(aborted).rejects.toThrow(/aborted/);
    first.release(10);
    expect((await next).waited).toBe(true);
  });
});
