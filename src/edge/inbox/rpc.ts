/**
 * The approvals inbox as the worker and the threads see it: one `InboxObject` per group
 * behind the `INBOXES` binding, typed by its RPC surface.
 */
import { ConfigError } from "../settings";
import type { InboxItem } from "./item";
import type { InboxListQuery } from "./find/listing";
import type { InboxStats } from "./dashboard/stats";

export interface InboxPage {
  items: InboxItem[];
  nextCursor: string | null;
  rowsRead: number;
}

/** One group's totals, and how many of the listed status match the filters. */
export interface InboxCounts {
  open: number;
  decided: number;
  matching: number;
  rowsRead: number;
}

export interface InboxRpc {
  apply(items: InboxItem[]): Promise<{ changed: number }>;
  /** `fingerprint` goes into `nextCursor` (listing.ts `listingFingerprint`). */
  list(query: InboxListQuery & { fingerprint?: string }): Promise<InboxPage>;
  counts(query: InboxListQuery): Promise<InboxCounts>;
  /** The dashboard's numbers (stats.ts) as of `now`. */
  stats(now: number): Promise<InboxStats>;
  get(runId: string, requestId: string): Promise<InboxItem | undefined>;
}

/** Fails like a missing variable (`500 config_error` naming it) when the binding is absent. */
export function inboxNamespace(env: object): DurableObjectNamespace {
  const namespace = (env as { INBOXES?: unknown }).INBOXES;
  if (!namespace || typeof (namespace as DurableObjectNamespace).idFromName !== "function") {
    throw new ConfigError(
      'INBOXES is not bound: add a Durable Object binding INBOXES (class_name = "InboxObject") and its migration to wrangler.toml',
    );
  }
  return namespace as DurableObjectNamespace;
}

/** The inbox of one group. Callers check the group exists first: getting a stub creates nothing, a call would. */
export function inboxStub(env: object, group: string): InboxRpc {
  const namespace = inboxNamespace(env);
  return namespace.get(namespace.idFromName(group)) as unknown as InboxRpc;
}
