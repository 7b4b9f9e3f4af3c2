/**
 * The state a thread object leaves when its process dies right after recording a decision
 * and before driving it (issue 26's fault "between the record and the drive"): the ledger's
 * row and its inbox item committed, the backstop alarm armed, no drive and no queue message.
 * Tests that need a recorded, not yet applied decision use this, since the object itself
 * drives a decision at once.
 */
import { env } from "cloudflare:test";
import type { DecisionInput, DecisionOutcome } from "../../src/edge/protocol";
import { type EdgeEnv, settings } from "../../src/edge/settings";
import { recordDecisionInInbox } from "../../durable/ledger/decisions";
import { DECISION_BACKSTOP_MS } from "../../durable/thread/alarms";
import { inThread, threadOfRun } from "./durable";

/** `alongside` runs in the decision's transaction (e.g. to rewrite what it stored). */
export function recordOnly(
  input: DecisionInput,
  alongside?: (state: DurableObjectState) => void,
): Promise<DecisionOutcome> {
  return inThread(threadOfRun(input.runId), async (instance, state) => {
    const deps = {
      store: instance.store,
      votes: instance.votes,
      outbox: instance.outbox,
      directory: settings(env as EdgeEnv).approvers(undefined),
    };
    const outcome = state.storage.transactionSync(() => {
      const recorded = recordDecisionInInbox(deps, input, Date.now());
      alongside?.(state);
      return recorded;
    });
    if ("checkEdit" in outcome) {
      throw new Error("recordOnly does not check edits");
    }
    if (outcome.ok && !outcome.duplicate && outcome.decision) {
      await state.storage.setAlarm(Date.now() + DECISION_BACKSTOP_MS);
    }
    return outcome;
  });
}
