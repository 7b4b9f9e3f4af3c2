/**
 * One approval email per member per request: sent when a request of a group surfaces (or is
 * escalated to the group), and a reminder email per reminder the request's rules fire.
 * Runs in the `notify` queue consumer, so a failed send retries with backoff like Slack's.
 *
 * The thread keeps which member got which email (durable/outbox/email-sends.ts): a member is
 * claimed before their email goes out and marked sent after, so a redelivered queue message
 * sends only what is missing — an edit, a vote or a decision elsewhere sends nothing new.
 */
import type { ApproverGroup } from "../approvals/groups";
import type { InboxItem } from "../inbox/item";
import { emailLinks } from "./links";
import type { EmailSource, EmailThread } from "./thread";
import { approvalEmail } from "./message";
import { buildMime } from "./mime";

/** `notify` queue body for email (a callback notification has no `email` member). */
export interface EmailSyncMessage {
  threadId: string;
  runId: string;
  requestId: string;
  /** `reminder`: the request's rules re-notify (the n-th time) while it waits. */
  email: { group: string; reminder?: number };
}

export function isEmailSync(body: unknown): body is EmailSyncMessage {
  return typeof body === "object" && body !== null && "email" in body;
}

export interface EmailDeps {
  thread: EmailThread;
  send(mail: { from: string; to: string; raw: string }): Promise<void>;
  from: string;
  /** PUBLIC_URL, when set (else the run's own origin). */
  publicUrl: string | undefined;
  webhookSecrets: string[];
  /** Who is the requester (never asked to approve their own request), resolved to a member. */
  resolve(identity: string): string;
  now?: () => number;
}

/** Sends the emails still owed for this message; throws (so the queue retries) when one failed. */
export async function syncEmail(
  deps: EmailDeps,
  message: EmailSyncMessage,
  group: ApproverGroup,
): Promise<{ sent: string[] }> {
  const source = await deps.thread.emailSource(message.runId, message.requestId);
  // Settled before it was ever sent: nobody needs an email about it.
  if (source?.item.status !== "open") {
    return { sent: [] };
  }
  const { item } = source;
  const reminder = message.email.reminder;
  const voted = new Set(item.votes.filter((v) => !v.reset).map((v) => v.decidedBy));
  const requester = item.requestedBy ? deps.resolve(item.requestedBy) : undefined;
  const recipients = new Map<string, string>();
  for (const member of group.members) {
    const address = emailOf(member);
    // The requester cannot approve their own request; a reminder skips who already voted.
    if (address && member.id !== requester && !(reminder !== undefined && voted.has(member.id))) {
      recipients.set(member.id, address);
    }
  }
  if (recipients.size === 0) {
    return { sent: [] };
  }
  const key = {
    runId: message.runId,
    requestId: message.requestId,
    kind: reminder === undefined ? "first" : `r${reminder}`,
  };
  const claimed = await deps.thread.emailClaim(key, [...recipients.keys()]);
  const sent: string[] = [];
  let failure: unknown;
  for (const member of claimed) {
    const to = recipients.get(member);
    if (!to) {
      continue;
    }
    try {
      await deps.send({
        from: deps.from,
        to,
        raw: await emailFor(deps, { source, member, to, reminder }),
      });
      await deps.thread.emailSent(key, member);
      sent.push(member);
    } catch (error) {
      await deps.thread.emailRelease(key, member);
      failure ??= error;
    }
  }
  if (failure !== undefined) {
    throw failure; // the queue retries; the members sent to are not sent to again
  }
  return { sent };
}

async function emailFor(
  deps: EmailDeps,
  mail: { source: EmailSource; member: string; to: string; reminder: number | undefined },
): Promise<string> {
  const { source, member, to, reminder } = mail;
  const { item } = source;
  const now = deps.now?.() ?? Date.now();
  const links = await emailLinks(
    { base: deps.publicUrl ?? source.publicUrl, webhookSecrets: deps.webhookSecrets },
    {
      threadId: item.threadId,
      runId: item.runId,
      requestId: item.requestId,
      approver: member,
      expiresAt: item.expiresAt ? Date.parse(item.expiresAt) : null,
    },
  );
  const content = approvalEmail(item, { links, now, ...(reminder ? { reminder } : {}) });
  const domain = deps.from.slice(deps.from.lastIndexOf("@") + 1);
  const first = await messageId({ item, member, kind: "first" }, domain);
  return buildMime({
    from: deps.from,
    to,
    ...content,
    messageId:
      reminder === undefined
        ? first
        : await messageId({ item, member, kind: `r${reminder}` }, domain),
    ...(reminder === undefined ? {} : { inReplyTo: first }),
    date: new Date(now),
  });
}

/** The member's address: the first identity that is an email, else their id when it is one. */
export function emailOf(
  member: Pick<ApproverGroup["members"][number], "id" | "identities">,
): string | undefined {
  return [...member.identities, member.id].find((identity) => /^[^\s@:]+@[^\s@:]+$/.test(identity));
}

/**
 * Stable per request, member and email, so a resend after a failure is the same message to
 * the receiving server; hashed, because request ids and member ids may hold any character.
 */
async function messageId(
  { item, member, kind }: { item: InboxItem; member: string; kind: string },
  domain: string,
): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest(
      "SHA-256",
      new TextEncoder().encode(JSON.stringify([item.runId, item.requestId, member, kind])),
    ),
  );
  const hex = [...digest.subarray(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `approval.${hex}@${domain}`;
}
