/**
 * A decision arriving at the thread, from any channel: recorded by the ledger in one
 * synchronous pass (with the request's inbox row), then applied: handed straight to a driver
 * waiting inline for it (an MCP elicitation), else driven at once by this object
 * (drive-now.ts), with the `resume` queue message and the backstop alarm as the durable
 * paths. The inbox is delivered before answering (so whoever decided reads the updated
 * inbox), but after the drive has begun: the approved tool does not wait for the inbox's
 * and the receipts store's round trips, nor for the queue's send (issue 26).
 */
import { canonicalJson } from "../../src/core/schema/canonical-json";
import type { DecisionInput, DecisionOutcome } from "../../src/edge/protocol";
import { checkEdit } from "../ledger/edit-check";
import { recordDecisionInInbox, type RuledDeps } from "../ledger/decisions";
import type { EditCheck } from "../ledger/votes";
import type { OutboxDelivery } from "../outbox/delivery";
import { armAlarm, DECISION_BACKSTOP_MS } from "./alarms";
import { sendResumeSoon, type ThreadContext } from "./context";
import { driveNow } from "./drive/drive-now";
import { configErrorOutcome } from "./config-error";
import { requireReceiptConfig } from "../outbox/receipt-delivery";
import { versionGate } from "../versions/decision-check";
import { reask } from "../versions/reask";
import { recordVersionDecline } from "../versions/decline";
import type { Answer } from "../../src/core/types";
import { supersededRefusal } from "../ledger/version-change";
import { isRemoteTaskRequest } from "../../src/core/a2a/remote-task";
import { revokeInInbox } from "../undo/revoke";
import { decideUndo, isUndoRequest } from "../undo/approval";

export async function decide(
  t: ThreadContext,
  delivery: OutboxDelivery,
  input: DecisionInput,
): Promise<DecisionOutcome> {
  const run = t.store.run(input.runId);
  const waiting = run ? (run.pending ?? undefined) : undefined;
  if (waiting?.id === input.requestId && isRemoteTaskRequest(waiting)) {
    return {
      ok: false,
      code: "request_not_decidable",
      message: `request ${input.requestId} waits on a remote A2A task: it is answered when that task finishes, not by a person`,
    };
  }
  return decideAny(t, delivery, input);
}

/** Records a decision without asking who may make it: also the alarm's answer to a remote task. */
export async function decideAny(
  t: ThreadContext,
  delivery: OutboxDelivery,
  input: DecisionInput,
): Promise<DecisionOutcome> {
  const outcome = await configErrorOutcome(() => record(t, delivery, input));
  if (!outcome.ok || outcome.duplicate) {
    return outcome;
  }
  // A vote that waits for more has nothing to apply yet.
  if (outcome.decision) {
    await apply(t, delivery, { runId: input.runId, answer: outcome.decision.answer });
  }
  await delivery.deliver();
  return outcome;
}

/** Applies a recorded decision: to the driver waiting inline for it, else by a drive now. */
async function apply(
  t: ThreadContext,
  delivery: OutboxDelivery,
  decided: { runId: string; answer: Answer },
): Promise<void> {
  // First, before anything a dying process could stop half-way (the inbox delivery, the
  // drive): a recorded decision is never left without something to apply it.
  await armAlarm(t, Date.now() + DECISION_BACKSTOP_MS);
  if (!t.waiters.deliver(decided.answer.id, decided.answer)) {
    driveNow(t, delivery, decided.runId);
    sendResumeSoon(t, t.store.requireRun(decided.runId));
  }
}

/**
 * Records in one synchronous pass; an edit is first checked against the tool (async,
 * nothing written), then the pass runs again on fresh state with the edit allowed. A request
 * the current agent version asks again of other approvers is superseded instead, and this
 * decision, of the old request, is answered as any later one for it is.
 */
async function record(
  t: ThreadContext,
  delivery: OutboxDelivery,
  arrived: DecisionInput,
): Promise<DecisionOutcome> {
  await requireReceiptConfig(t);
  if (isUndoRequest(arrived.requestId)) {
    return decideUndo(t, arrived); // an undo's own request (../undo/approval.ts)
  }
  if (arrived.decision === "revoke") {
    // An approval held in its undo window, taken back (../undo/revoke.ts).
    return t.state.storage.transactionSync(() =>
      revokeInInbox(
        { store: t.store, votes: t.votes, directory: t.directory(), outbox: t.outbox },
        arrived,
        Date.now(),
      ),
    );
  }
  const gate = await versionGate(t, arrived);
  if ("refused" in gate) {
    return gate.refused;
  }
  if ("decline" in gate) {
    // The current agent version declines the request: declined with its reason and applied
    // now; the approval is answered 409 agent_changed saying so.
    const declined = recordVersionDecline(t, gate.decline);
    if (!declined) {
      return record(t, delivery, arrived); // decided meanwhile: the ledger answers as always
    }
    await apply(t, delivery, { runId: arrived.runId, answer: declined.row.answer });
    await delivery.deliver();
    return declined.refusal;
  }
  if ("reask" in gate) {
    if (!(await reask(t, gate.reask))) {
      return record(t, delivery, arrived); // decided meanwhile: the ledger answers as always
    }
    await armAlarm(t); // the new request's expiry and timers
    await delivery.deliver(); // the inbox (and Slack) show the old request closed, the new one
    const superseded = t.store.decision(arrived.requestId);
    const refusal = superseded && supersededRefusal(superseded);
    if (!refusal) {
      throw new Error(`request ${arrived.requestId} was asked again, and its row does not say so`);
    }
    return refusal;
  }
  const { input, version, migrated } = gate;
  const deps: RuledDeps = {
    votes: t.votes,
    directory: t.directory(),
    ...(migrated === undefined ? {} : { migrated }),
  };
  const first = recordOnce(t, { input, deps, version });
  if (!("checkEdit" in first)) {
    return first;
  }
  const { request, args } = first.checkEdit;
  const run = t.store.run(input.runId);
  const agent = t.agents.get(run?.agent ?? "");
  const directory = t.directory();
  const refused = await checkEdit({
    agent,
    env: t.env,
    request,
    args,
    // The policy that gated the call judges the edit too (./../ledger/edit-policy.ts).
    ...(run
      ? {
          run: {
            runId: run.runId,
            threadId: run.threadId,
            agentVersion: run.agentVersion ?? "unversioned",
            ...(run.requestedBy ? { requestedBy: run.requestedBy } : {}),
          },
          groupExists: (group: string) => directory.membersOf(group) !== undefined,
        }
      : {}),
  });
  if (refused) {
    return refused;
  }
  const second = recordOnce(t, {
    input,
    deps: { ...deps, checked: canonicalJson(args) },
    version,
  });
  if ("checkEdit" in second) {
    throw new Error("an edit checked once asked to be checked again");
  }
  return second;
}

/**
 * One synchronous pass of the ledger; the inbox's outbox row commits with it, and so does the
 * agent version a new decision was checked under.
 */
function recordOnce(
  t: ThreadContext,
  pass: { input: DecisionInput; deps: RuledDeps; version: string | undefined },
): DecisionOutcome | EditCheck {
  const { input, deps, version } = pass;
  return t.state.storage.transactionSync(() => {
    const outcome = recordDecisionInInbox(
      { store: t.store, outbox: t.outbox, ...deps },
      input,
      Date.now(),
    );
    if (version && "ok" in outcome && outcome.ok && outcome.decision && !outcome.duplicate) {
      t.store.checkedUnder(input.requestId, version);
    }
    return outcome;
  });
}
