/**
 * Keeps a group's Slack channel in step with its approvals: one message per request,
 * posted when the request surfaces (or is escalated to the group), updated on every
 * later change (votes so far, the outcome, expiry, cancellation). Runs in the `notify`
 * queue consumer, so Slack outages retry with backoff and end in the dead-letter queue.
 *
 * The queue message only names the request: the state posted is read from the thread
 * when the message is handled, so a late or repeated delivery never shows stale news.
 */
import type { InboxItem } from "../inbox/item";
import {
  approvalMessage,
  escapeText,
  type SlackRequestState,
  type SlackRequestView,
} from "./blocks";
import type { SlackApi } from "./api";

/** `notify` queue body for Slack (a callback notification has no `slack` member). */
export interface SlackSyncMessage {
  threadId: string;
  runId: string;
  requestId: string;
  /** `reminder`: the request's rules re-notify (the n-th time) while it waits. */
  slack: { group: string; reminder?: number };
}

export function isSlackSync(body: unknown): body is SlackSyncMessage {
  return typeof body === "object" && body !== null && "slack" in body;
}

/** What the thread knows for Slack: the request's latest inbox item and the messages posted. */
export interface SlackSource {
  item: InboxItem;
  messages: Array<{ channel: string; ts: string }>;
}

/** The thread's side, as the consumer sees it (ThreadRpc). */
export interface SlackThread {
  slackSource(runId: string, requestId: string): Promise<SlackSource | undefined>;
  /** First caller gets true (and must post); a claim older than a minute may be taken over. */
  slackClaim(runId: string, requestId: string, channel: string): Promise<boolean>;
  slackPosted(
    request: { runId: string; requestId: string },
    posted: { channel: string; ts: string },
  ): Promise<void>;
  /** The post failed: the next delivery may claim at once. */
  slackRelease(runId: string, requestId: string, channel: string): Promise<void>;
}

/** Posts or updates the request's message in `channel` (one of its groups' channels). */
export async function syncSlack(
  { thread, api }: { thread: SlackThread; api: SlackApi },
  message: SlackSyncMessage,
  channel: string,
): Promise<"posted" | "updated" | "reminded" | "nothing"> {
  const source = await thread.slackSource(message.runId, message.requestId);
  if (!source) {
    return "nothing";
  }
  const text = approvalMessage(slackView(source.item), slackState(source.item));
  const posted = source.messages.find((m) => m.channel === channel);
  if (posted && message.slack.reminder !== undefined) {
    if (source.item.status === "open") {
      // In the message's thread, broadcast to the channel: the buttons stay on the original.
      await api.reply(posted.channel, posted.ts, reminderText(source.item, message.slack.reminder));
      return "reminded";
    }
    return "nothing";
  }
  if (posted) {
    await api.update(posted.channel, posted.ts, text);
    return "updated";
  }
  // Settled before it was ever posted: nobody needs a message about it.
  if (source.item.status !== "open") {
    return "nothing";
  }
  if (!(await thread.slackClaim(message.runId, message.requestId, channel))) {
    return "nothing"; // another delivery is posting it; its update follows
  }
  let ts: string;
  try {
    ({ ts } = await api.post(channel, text));
  } catch (error) {
    await thread.slackRelease(message.runId, message.requestId, channel);
    throw error; // the queue retries with backoff
  }
  await thread.slackPosted({ runId: message.runId, requestId: message.requestId }, { channel, ts });
  return "posted";
}

function reminderText(item: InboxItem, n: number): string {
  return `Reminder ${n}: still waiting for a decision: ${escapeText(item.prompt)}`;
}

export function slackView(item: InboxItem): SlackRequestView {
  return {
    runId: item.runId,
    requestId: item.requestId,
    agent: item.askedBy ?? item.agent, // a sub-agent: "refunds, for coordinator"
    prompt: item.prompt,
    ...(item.tool ? { tool: item.tool } : {}),
    args: item.args,
    argsHash: item.argsHash,
    requestedBy: item.requestedBy,
    expiresAt: item.expiresAt ? Date.parse(item.expiresAt) : null,
  };
}

export function slackState(item: InboxItem): SlackRequestState {
  if (item.status === "open" || !item.decision) {
    const live = item.votes.filter((v) => !v.reset && v.decision === "approve");
    return {
      status: "open",
      ...(item.needed !== null ? { needed: item.needed, votes: live.length } : {}),
      voters: live.map((v) => v.decidedBy),
      ...(item.expiring ? { expiring: true } : {}),
    };
  }
  const d = item.decision;
  const held = d.outcome === "approved" && item.heldUntil ? Date.parse(item.heldUntil) : Number.NaN;
  return {
    status: d.outcome,
    by: d.decidedBy,
    via: d.channel,
    reason: d.reason,
    ...(Number.isNaN(held) ? {} : { heldUntil: held }),
  };
}
