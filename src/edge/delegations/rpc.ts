/**
 * Where delegations live (issue 42): one `InboxObject` under a name no approver group can have
 * (`~delegations`; group names start with a letter or digit), reached through the `INBOXES`
 * binding. One object, because every thread's decisions read the same small directory — who
 * stands in for whom until when — and its writes are rare; the inbox objects are already the
 * approvers' side of the worker, so a deployment needs no new binding or migration for it.
 */
import type { ActiveDelegation } from "../protocol";
import { inboxNamespace } from "../inbox/rpc";

export const DELEGATIONS_OBJECT = "~delegations";

/** A delegation as stored and listed. */
export interface Delegation extends ActiveDelegation {
  createdAt: string;
  /** Set when `DELETE` ended it before `until`. */
  endedAt: string | null;
}

export interface DelegationRpc {
  addDelegation(delegation: ActiveDelegation & { createdAt: string }): Promise<Delegation>;
  /** Running delegations (not ended, `until` ahead), optionally only those `member` is in. */
  listDelegations(query: { now: number; member?: string }): Promise<Delegation[]>;
  getDelegation(id: string): Promise<Delegation | undefined>;
  /** Ends it now (idempotent); undefined when there is no such delegation. */
  endDelegation(id: string, now: number): Promise<Delegation | undefined>;
  /** The running delegations `to` holds: what the ledger is handed with their decisions. */
  delegationsTo(to: string, now: number): Promise<ActiveDelegation[]>;
}

export function delegationStub(env: object): DelegationRpc {
  const namespace = inboxNamespace(env);
  return namespace.get(namespace.idFromName(DELEGATIONS_OBJECT)) as unknown as DelegationRpc;
}
