/**
 * Suspension escalation (SPEC §7D): a request raised inside a handle goes to the nearest
 * interpreter — the handle's own `waitFor`, else its parent's, … up to the runtime's (the
 * root's). With one, the answer comes back into the live run (inline: the handle traces
 * `running→suspended→running`, the run never ends, the levels in between stay `running`).
 * With none, the run halts and the request climbs as the `task` tool's pending result, one
 * hop per level, until the root returns `pending`. Either way the request leaving its
 * handle carries `data.path`: the path of the handle that asked.
 */
import type { Request, WaitFor } from "../../types";
import { raceAbort } from "../limits/gates";
import { ROOT_ID, type Live } from "./handle";
import { chainOf, transition, type RuntimeCore } from "../core";

/** The request with `data.path` naming the handle that asked (a deeper path already set wins). */
export function withPath(request: Request, path: string): Request {
  if (typeof request.data?.path === "string") {
    return request;
  }
  return { ...request, data: { ...(request.data ?? {}), path } };
}

function interpreterOf(
  core: RuntimeCore,
  live: Live,
): { id: string; waitFor: WaitFor } | undefined {
  for (const record of chainOf(core, live.record)) {
    const waitFor =
      record.id === ROOT_ID ? core.options.waitFor : core.live.get(record.id)?.def?.waitFor;
    if (waitFor) {
      return { id: record.id, waitFor };
    }
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
    const asked = withPath(request, record.id);
    record.pending = asked;
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
