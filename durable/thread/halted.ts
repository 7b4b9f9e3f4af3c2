/**
 * A request surfacing to its approvers, after the suspension that raised it is stored: its
 * reminder and escalation timers start, its groups are checked, and a run with a callback
 * notifies it (through the notify outbox, retried by the alarm).
 */
import type { Request as AgentRequest } from "../../src/core/types";
import { errorMessage } from "../../src/core/errors";
import { rulesOf } from "../../src/core/approvers/rules";
import type { NotifyMessage } from "../../src/edge/protocol";
import { askingAgentOf } from "../../src/edge/agents/asked-by";
import { isRemoteTaskRequest } from "../../src/core/a2a/remote-task";
import type { RunRow } from "../storage/run-store";
import { toolOf } from "../ledger/votes";
import { startTimers } from "./reminders";
import { armAlarm } from "./alarms";
import { armExpiryWarning } from "../approvers/expiry-warnings";
import type { ThreadContext } from "./context";

/** A run halted on `request`: its timers start, its groups are checked, its callback notified. */
export async function halted(t: ThreadContext, run: RunRow, request: AgentRequest): Promise<void> {
  if (isRemoteTaskRequest(request)) {
    // Nobody is told: the alarm polls the remote task (thread/remote/remote-tasks.ts).
    await armAlarm(t, Date.now());
    return;
  }
  // Before any await: stored in the same batch as the suspension.
  if (surfaceWrites(t, run, request)) {
    await t.sends.notifications();
  }
}

/**
 * The writes of a request surfacing, synchronous so they commit with the change that surfaced
 * it (call inside its transaction, or with no await before it): the timers, the group check,
 * and the callback's notify outbox row. True when a notification waits to be sent.
 */
export function surfaceWrites(t: ThreadContext, run: RunRow, request: AgentRequest): boolean {
  startTimers(t.votes, { run, request }, Date.now());
  armExpiryWarning(t.warnings, { run, request }); // issue 42
  checkApproverGroups(t, run, request);
  if (!run.callbackUrl) {
    return false;
  }
  const message: NotifyMessage = {
    threadId: run.threadId,
    runId: run.runId,
    requestId: request.id,
  };
  t.notifications.add(message, Date.now());
  return true;
}

/**
 * Rules that depend on the arguments are only known once a request surfaces: one that
 * names a group nobody defined could never be decided. The request stays pending (a
 * fixed APPROVER_GROUPS makes it decidable), and the run says why at once, as an
 * `error` event and a report, instead of at the first vote.
 */
function checkApproverGroups(t: ThreadContext, run: RunRow, request: AgentRequest): void {
  const rules = rulesOf(request);
  if (!rules) {
    return;
  }
  try {
    t.directory().checkRules(rules, {
      agent: askingAgentOf(request, run.agent),
      tool: toolOf(request),
    });
  } catch (error) {
    const message = `nobody can decide request ${request.id} yet: ${errorMessage(error)}`;
    // Two readers, two meanings: the event says the run is not lost (it stays pending, the
    // stream open, until the config is fixed); the report says nothing retries it by itself.
    t.events.record(run.runId, "error", { message, requestId: request.id, recoverable: true });
    t.report(new Error(message, { cause: error }), {
      source: "driver",
      runId: run.runId,
      threadId: run.threadId,
      requestId: request.id,
      recoverable: false,
    });
  }
}
