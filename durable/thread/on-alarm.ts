/**
 * What the thread's one alarm does when it fires: drive whatever storage says is due (a
 * watchdog retry, a backstop decision, an expiry) unless a drive already runs here, fire due reminders and escalations,
 * retry both outboxes, and arm itself for the next timer.
 */
import { quorumOf, rulesOf } from "../../src/core/approvers/rules";
import { openRequests } from "../storage/open-requests";
import type { OutboxDelivery } from "../outbox/delivery";
import { fireTimers } from "./reminders";
import { drive } from "./drive";
import { decideAny } from "./decide";
import { armAlarm } from "./alarms";
import type { ThreadContext } from "./context";
import { mcpTaskTools } from "./remote/mcp-task-tools";
import { fireExpiryWarnings } from "../approvers/expiry-warnings";

export async function onAlarm(t: ThreadContext, delivery: OutboxDelivery): Promise<void> {
  // A drive running in this object is alive (the watchdog fired during a long step): it
  // re-reads storage before it stops and arms the alarm for what is left, so the alarm
  // does not wait for it; `armAlarm` below moves the watchdog on.
  if (!t.lock.busy) {
    await drive(t, delivery);
  }
  await fireTimers({
    store: t.store,
    votes: t.votes,
    now: () => Date.now(),
    record: (runId, type, data) => t.events.record(runId, type, data),
    notify: async (message) => {
      await t.config().bindings.notifyQueue.send(message);
    },
    escalatedTo: (run, requestId, to) => {
      const request = openRequests(t.store, run).find((r) => r.id === requestId);
      if (request) {
        const votes = t.votes.votes(requestId);
        const needed = quorumOf(rulesOf(request));
        t.outbox.record(
          { run, request },
          { event: "escalated", escalatedTo: to, votes, needed },
          Date.now(),
        );
      }
    },
    reminded: async (run, requestId, n) => {
      // Both run: a Slack that refuses the reminder does not keep it from the inboxes.
      await Promise.all([
        t.sends.slackReminder(run.runId, requestId, n),
        t.sends.emailReminder(run.runId, requestId, n),
      ]);
    },
  });
  await fireExpiryWarnings(t); // issue 42: warnBefore
  await t.remoteWaits.pollDue(t.store.runsWithWork(), {
    agents: t.agents,
    env: t.env,
    now: () => Date.now(),
    report: t.report,
    mcpTools: mcpTaskTools(t),
    // Each poll is on the run's timeline: the task's state as the remote reported it.
    polled: (run, request, task) =>
      t.events.record(run.runId, "task_polled", {
        requestId: request.id,
        taskId: task.id,
        state: task.state,
        ...(task.statusText ? { statusText: task.statusText } : {}),
      }),
    answer: async (run, request, outcome) => {
      await decideAny(t, delivery, {
        runId: run.runId,
        requestId: request.id,
        decision: "approve",
        data: outcome,
        channel: "a2a",
        // No person: the remote agent whose task it was.
        // (An MCP task's `agent` is already `mcp:<server>`.)
        decidedBy: String(request.data?.agent ?? "a2a:remote").replace(/^(?!mcp:|a2a:)/, "a2a:"),
      });
    },
  });
  await delivery.deliver();
  await t.sends.notifications();
  await armAlarm(t);
}
