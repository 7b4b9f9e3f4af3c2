/**
 * What a notification about a pending request says, read from storage when the notify
 * consumer sends it (never stale): the run's context, the request with the version of the
 * arguments now up for approval, and where the count stands for a request with rules.
 * Undefined when there is nothing to tell any more (decided, gone, or already delivered).
 */
import { quorumOf, rulesOf } from "../../src/core/approvers/rules";
import { currentArgs, liveApprovals } from "../../src/core/approvers/vote";
import { argsHash } from "../../src/core/approvers/args-hash";
import type { NotificationSource, NotifyMessage } from "../../src/edge/protocol";
import { openRequests } from "../storage/open-requests";
import { policyFields } from "../../src/edge/policy/view";
import type { ThreadContext } from "../thread/context";

export async function notificationSource(
  t: ThreadContext,
  message: NotifyMessage,
): Promise<NotificationSource | undefined> {
  const run = t.store.run(message.runId);
  const request = run && openRequests(t.store, run).find((r) => r.id === message.requestId);
  if (!run || !request || t.store.decision(request.id)) {
    return undefined;
  }
  if (await t.delivered.has(message)) {
    return undefined; // a late attempt got through after its batch handed it back
  }
  const rules = rulesOf(request);
  const votes = rules ? t.votes.votes(request.id) : [];
  return {
    run: {
      runId: run.runId,
      threadId: run.threadId,
      agent: run.agent,
      callbackUrl: run.callbackUrl,
      publicUrl: run.publicUrl,
      metadata: run.metadata,
      requestedBy: run.requestedBy ?? null,
    },
    // The version of the arguments now up for approval: what the approver's decision carries.
    // As the run view shows it: its arguments' version and which policy asked (issue 43).
    request: {
      ...request,
      argsHash: argsHash(currentArgs(request, votes)),
      ...policyFields(request),
    },
    expiresAt: run.expiresAt,
    ...(rules ? { votes: { votes: liveApprovals(votes), needed: quorumOf(rules) } } : {}),
  };
}

/**
 * Records that a notification could not be delivered (from the dead-letter consumer) as a
 * recoverable `error` event; false when a late attempt got through after all, and nothing is
 * recorded.
 */
export async function notificationFailed(
  t: ThreadContext,
  message: NotifyMessage,
  reason: string,
): Promise<boolean> {
  if (await t.delivered.has(message)) {
    return false;
  }
  if (t.store.run(message.runId)) {
    t.events.record(message.runId, "error", {
      message: `notification for ${message.requestId} failed: ${reason}`,
      requestId: message.requestId,
      recoverable: true,
    });
  }
  return true;
}
