/**
 * Warn before expiry (issue 42 item 3): a request whose rule has `warnBefore` tells its groups
 * once, at `expiresAt - warnBefore`, that it expires soon — the `request.expiring` webhook
 * (notify queue, webhook-id `msg_<run>_<req>_warn`), the inbox item's `expiring` badge (and
 * with it the Slack message, which follows the item), and the SSE event `expiring`.
 *
 * Exactly once, across restarts, on the thread's one alarm (like reminders): each request has
 * one row in `expiry_warnings`. Firing marks it warned in the same commit as the event and the
 * inbox row, so a second alarm (or a restart after the commit) finds nothing left to warn; the
 * webhook is handed to the queue after that commit from `send_due`, cleared once the queue took
 * it (a crash between the send and the clear sends it again under the same webhook-id, which
 * receivers deduplicate; the queue is at-least-once anyway).
 */
import type { Request } from "../../src/core/types";
import { parseDuration } from "../../src/core/approvers/duration";
import { quorumOf, rulesOf } from "../../src/core/approvers/rules";
import type { NotifyMessage } from "../../src/edge/protocol";
import { openRequests } from "../storage/open-requests";
import type { RunRow } from "../storage/run-store";
import type { ExpiryWarnings } from "./expiry-warning-store";
import type { ThreadContext } from "../thread/context";

/** A request surfaced: arm its warning when its rule has `warnBefore` and it expires. */
export function armExpiryWarning(
  warnings: ExpiryWarnings,
  { run, request }: { run: RunRow; request: Request },
): void {
  const warnBefore = rulesOf(request)?.warnBefore;
  const expiresAt = expiryOf(run, request);
  if (warnBefore === undefined || expiresAt === undefined) {
    return;
  }
  warnings.arm(run.runId, request.id, expiresAt - parseDuration(warnBefore));
}

/** Fires due warnings (from the alarm), then hands waiting webhooks to the notify queue. */
export async function fireExpiryWarnings(t: ThreadContext): Promise<void> {
  const now = Date.now();
  for (const row of t.warnings.due(now)) {
    const run = t.store.run(row.runId);
    const request = run && openRequest(t, run, { requestId: row.requestId, now });
    if (!run || !request) {
      t.warnings.warned(row.requestId, { now, send: false }); // decided, expired, gone: disarmed
      continue;
    }
    // One commit (no await in between): the mark, the event and the inbox's badge.
    t.warnings.warned(row.requestId, { now, send: Boolean(run.callbackUrl) });
    const expiresAt = expiryOf(run, request);
    t.events.record(run.runId, "expiring", {
      requestId: request.id,
      ...(expiresAt === undefined ? {} : { expiresAt: new Date(expiresAt).toISOString() }),
    });
    t.outbox.record(
      { run, request },
      {
        event: "expiring",
        expiring: true,
        votes: t.votes.votes(request.id),
        needed: rulesOf(request) ? quorumOf(rulesOf(request)) : null,
      },
      now,
    );
  }
  for (const row of t.warnings.unsent(now)) {
    const run = t.store.run(row.runId);
    if (!run) {
      t.warnings.sent(row.requestId);
      continue;
    }
    const message: NotifyMessage = {
      threadId: run.threadId,
      runId: run.runId,
      requestId: row.requestId,
      expiring: true,
    };
    try {
      await t.config().bindings.notifyQueue.send(message);
      t.warnings.sent(row.requestId);
    } catch (error) {
      t.warnings.failed(row.requestId, Date.now());
      t.report(error, {
        source: "notify",
        runId: run.runId,
        threadId: run.threadId,
        requestId: row.requestId,
        recoverable: true,
      });
    }
  }
}

function openRequest(
  t: ThreadContext,
  run: RunRow,
  { requestId, now }: { requestId: string; now: number },
): Request | undefined {
  if (run.status !== "pending" || t.store.decision(requestId)) {
    return undefined;
  }
  const request = openRequests(t.store, run).find((r) => r.id === requestId);
  const expiresAt = request && expiryOf(run, request);
  return request && (expiresAt === undefined || expiresAt > now) ? request : undefined;
}

/** The request's own expiry, else the run's for the surfaced request (ms), or undefined. */
function expiryOf(run: RunRow, request: Request): number | undefined {
  const own = request.expiresAt === undefined ? Number.NaN : Date.parse(request.expiresAt);
  if (!Number.isNaN(own)) {
    return own;
  }
  return run.expiresAt !== null && run.pending?.id === request.id ? run.expiresAt : undefined;
}
