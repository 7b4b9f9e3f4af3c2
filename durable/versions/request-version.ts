/**
 * The agent version a request was asked under. A run records the version at each suspension,
 * which is its surfaced request's; a request asked again after a deploy (./reask.ts) is asked
 * under the version that superseded its predecessor, recorded on that one's decision row, even
 * while it waits beside the surfaced call as a sibling.
 */
import type { Request } from "../../src/core/types";
import type { RunRow, RunStore } from "../storage/run-store";

/** Null for a run stored before versions were recorded. */
export function requestVersion(store: RunStore, run: RunRow, request: Request): string | null {
  const before = request.data?.supersedes;
  const superseded = typeof before === "string" ? store.decision(before) : undefined;
  return superseded?.agentVersion ?? run.agentVersion ?? null;
}
