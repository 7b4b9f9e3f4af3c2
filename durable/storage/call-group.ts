/**
 * A call suspended on several requests at once (`alsoPending`, src/core/suspension.ts: an
 * MCP server's several input requests of one round), as the driver sees it. All of them
 * surface together, and a decision on any of them is applied as it lands, not when it becomes
 * the run's `pending`: the call then suspends again on the ones left (same ids), or ends (a
 * refusal is sent to the server at once, with `cancel` for the others).
 */
import type { Request } from "../../src/core/types";
import { requestsOf } from "../../src/core/suspension";
import type { DecisionRow, RunRow, RunStore } from "./run-store";

/** The requests of the call that is suspended on `requestId` (just it when alone), or none. */
export function callGroup(store: RunStore, runId: string, requestId: string): Request[] {
  const slot = store
    .slots(runId)
    .find((s) => requestsOf(s).some((request) => request.id === requestId));
  return requestsOf(slot);
}

/** A request beside the run's surfaced one, in the same call, decided and not yet applied. */
export function decidedBeside(
  store: RunStore,
  run: RunRow,
): { request: Request; decision: DecisionRow } | undefined {
  const surfaced = run.pending;
  if (!surfaced) {
    return undefined;
  }
  for (const request of callGroup(store, run.runId, surfaced.id)) {
    const decision = request.id === surfaced.id ? undefined : store.decision(request.id);
    if (decision && decision.appliedAt === null) {
      return { request, decision };
    }
  }
  return undefined;
}

/** What was surfaced when a drive began: a later halt does not surface these again. */
export interface SurfacedBefore {
  /** The run's `pending` then, and its expiry (kept while the same request stays surfaced). */
  pendingId: string | undefined;
  expiresAt: number | null;
  /** The surfaced request and the other requests of its call. */
  ids: Set<string>;
}

/** Only a call with several requests counts: a lone request surfaces as it always has. */
export function surfacedBefore(store: RunStore, run: RunRow): SurfacedBefore {
  const pending = run.status === "pending" ? (run.pending ?? undefined) : undefined;
  const group = pending ? callGroup(store, run.runId, pending.id) : [];
  if (!pending || group.length < 2) {
    return { pendingId: undefined, expiresAt: null, ids: new Set() };
  }
  return {
    pendingId: pending.id,
    expiresAt: run.expiresAt,
    ids: new Set(group.map((request) => request.id)),
  };
}

/**
 * Requests of the call surfaced when the drive began that are open no more and were never
 * decided: the call ended without them (a refusal of one of its requests). Their inbox rows close.
 */
export function withdrawnSince(store: RunStore, runId: string, before: SurfacedBefore): string[] {
  const open = new Set(store.slots(runId).flatMap((slot) => requestsOf(slot).map((r) => r.id)));
  return [...before.ids].filter((id) => !open.has(id) && !store.decision(id));
}
