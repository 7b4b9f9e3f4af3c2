/**
 * Suspension escalation (SPEC §7D): a request raised inside a handle goes to the nearest
 * interpreter — the handle's own `waitFor`, else its parent's, … up to the runtime's (the
 * root's). With one, the answer comes back into the live run (inline: the handle traces
 * `running→suspended→running`, the run never ends, the levels in between stay `running`).
 * With none, the run halts and the request climbs as the `task` tool's pending result, one
 * hop per level, until the root returns `pending`. Either way the request leaving its
 * handle carries `data.path`: the path of the level that relays it, as segments.
 */
import type { Request, WaitFor } from "../../types";
import { raceAbort } from "../limits/gates";
import { ROOT_ID, type Live } from "./handle";
import { chainOf, transition, type RuntimeCore } from "../core";

/**
 * The request as `handle` relays it: `data.path` is the handle's id as an array of segments
 * (SPEC §7D escalation addendum). Each relaying level stamps its own path over the one below,
 * so the value names the suspended SUBTREE as seen from where it is read (`["root",
 * "coordinator.1"]` at the root); the answer is routed to the deepest handle suspended on the
 * request within it (resume.ts).
 */
export function withPath(request: Request, handle: string): Request {
  return { ...request, data: { ...(request.data ?? {}), path: handle.split("/") } };
}

/** A `data.path` as one handle id: the array of segments, or the string older runs stored. */
export function pathId(path: unknown): string | undefined {
  if (typeof path === "string") {
    return path;
  }
  if (Array.isArray(path) && path.length > 0 && path.every((s) => typeof s === "string")) {
    return path.join("/");
  }
  return undefined;
}

/** The nearest level that can answer, and the level just below it (the one that relays to it). */
function interpreterOf(
  core: RuntimeCore,
  live: Live,
): { id: string; waitFor: WaitFor; relay: string } | undefined {
  let relay = live.record.id;
  for (const record of chainOf(core, live.record)) {
    const waitFor =
      record.id === ROOT_ID ? core.options.waitFor : core.live.get(record.id)?.def?.waitFor;
    if (waitFor) {
      return { id: record.id, waitFor, relay };
    }
    relay = record.id;
  }
  return undefined;
}

/** The `waitFor` a handle's client gets, or undefined when no level can answer (durable halt). */
export function escalatingWaitFor(core: RuntimeCore, live: Live): WaitFor | undefined {
  const interpreter = interpreterOf(core, live);
  if (!interpreter) {
    return undefined;
  }
  const record = live.record;
  return async (request) => {
    record.pending = withPath(request, record.id);
    // One hop per level (§7D): an interpreter above hears the request as the level just
    // below it relays it; the handle's own waitFor hears it unchanged.
    const asked = withPath(request, interpreter.relay);
    transition(core, record, "suspended");
    if (interpreter.id !== record.id) {
      core.note(`${record.id}: request ${request.id} escalated to ${interpreter.id}`);
    }
    const answer = await raceAbort(
      Promise.resolve(interpreter.waitFor(interpreter.id === record.id ? request : asked)),
      live.controller?.signal,
    );
    delete record.pending;
    transition(core, record, "running");
    return answer;
  };
}
