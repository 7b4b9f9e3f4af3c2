/**
 * What the run timeline page draws from (src/edge/timeline): the run's view and its whole
 * event log, each event with the time it was stored — the one clock the waterfall is drawn
 * on. Read-only: an unknown run (or an id nobody created) writes nothing.
 */
import type { TimelineInput } from "../../src/edge/timeline/model";
import { decodeEventData } from "../storage/decode";
import { runView } from "../storage/run-view";
import type { ThreadContext } from "./context";

/** The run and its events with their stored times, or undefined for no such run. */
export function runTimeline(
  t: ThreadContext,
  runId: string,
): Required<Pick<TimelineInput, "run" | "events">> | undefined {
  const run = t.store.run(runId);
  if (!run) {
    return undefined;
  }
  return {
    run: runView(t, run, false),
    events: t.store.eventsAfter(runId, 0).map((row) => ({
      id: row.id,
      type: row.type,
      data: decodeEventData(row.data),
      at: row.at,
    })),
  };
}
