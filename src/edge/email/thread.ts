/**
 * The thread's side of approval emails, as the notify consumer sees it (part of ThreadRpc;
 * durable/outbox/email-sends.ts keeps the records). Its own file, so the RPC surface
 * (protocol.ts) does not import the consumer and what it imports.
 */
import type { InboxItem } from "../inbox/item";

/** What the thread knows for email: the request's latest inbox item and its run's public URL. */
export interface EmailSource {
  item: InboxItem;
  publicUrl: string;
}

/** One email: the request, the member, and which email (`first`, or `r<n>` for a reminder). */
export interface EmailSendKey {
  runId: string;
  requestId: string;
  kind: string;
}

/** The thread's side, as the consumer sees it (ThreadRpc). */
export interface EmailThread {
  emailSource(runId: string, requestId: string): Promise<EmailSource | undefined>;
  /** The members (of those given) this caller must send to now; others were sent or are being sent. */
  emailClaim(key: EmailSendKey, members: string[]): Promise<string[]>;
  emailSent(key: EmailSendKey, member: string): Promise<void>;
  /** The send failed: the next delivery may claim the member at once. */
  emailRelease(key: EmailSendKey, member: string): Promise<void>;
}
