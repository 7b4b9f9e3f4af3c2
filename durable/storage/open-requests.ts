/** The requests a run waits on, read from its rows: the surfaced one, its halted siblings, an inline wait. */
import type { Request } from "../../src/core/types";
import type { RunRow, RunStore } from "./run-store";
import { requestsOf } from "../../src/core/suspension";

/**
 * Every request the run is suspended on: the surfaced one and its halted siblings (other
 * suspended calls of the turn, and a call's other open requests: `alsoPending`).
 */
export function openRequests(store: RunStore, run: RunRow): Request[] {
  const inline = run.inlineRequest;
  const active = run.status === "pending" || run.status === "running";
  const inlineOpen = inline && active && !store.decision(inline.id) ? [inline] : [];
  if (run.status !== "pending") {
    return inlineOpen;
  }
  const surfaced = run.pending ?? undefined;
  const siblings = store.slots(run.runId).flatMap((s) => requestsOf(s));
  const all = surfaced ? [surfaced, ...siblings.filter((r) => r.id !== surfaced.id)] : siblings;
  return [...all, ...inlineOpen.filter((r) => !all.some((a) => a.id === r.id))];
}
