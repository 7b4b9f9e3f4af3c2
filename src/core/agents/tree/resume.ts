/**
 * Durable resume (SPEC §7D): the answer routes to the DEEPEST handle suspended on its request,
 * which resumes at its checkpoint (its halted run continues with the answer: turns and usage
 * grow, never reset); then the cascade re-runs each suspended parent from its pre-turn
 * transcript (a replay), where the re-invoked `task` reattaches to the child by task key.
 * Both shapes trace `suspended→idle` (answer accepted, checkpoint restored) then
 * `idle→running` (the replay wake). If a level suspends again, the levels above stay parked
 * (zero tokens) and now wait on the new request.
 */
import type { Answer } from "../../types";
import { AnswerSchema, isPlainAnswer } from "../../wire";
import { ResumeError } from "../../errors";
import { ROOT_ID, type Live } from "./handle";
import { get, transition, type RuntimeCore } from "../core";
import { resultOf, runTurn, type TurnMode } from "./turn";
import { withPath } from "./escalation";
import type { AgentResult } from "../types";

export async function answerTree(
  core: RuntimeCore,
  top: string,
  answer: Answer,
): Promise<AgentResult> {
  const checked = isPlainAnswer(answer) ? undefined : AnswerSchema.safeParse(answer);
  if (checked && !checked.success) {
    throw new ResumeError(
      `answer is not a valid Answer: ${checked.error.message}`,
      "invalid_state",
    );
  }
  const within = (id: string) => top === ROOT_ID || id === top || id.startsWith(`${top}/`);
  const waiting = [...core.live.values()]
    .filter(
      (live) =>
        live.record.state === "suspended" &&
        !live.busy &&
        live.record.pending?.id === answer.id &&
        within(live.record.id),
    )
    .sort((a, b) => b.record.depth - a.record.depth || a.record.id.localeCompare(b.record.id));
  const deepest = waiting[0];
  if (!deepest) {
    throw new ResumeError(
      `request ${JSON.stringify(answer.id)} is not pending in ${top === ROOT_ID ? "this runtime" : top}`,
      "not_pending",
    );
  }

  const cascade: Live[] = [deepest];
  for (let id = deepest.record.parent; id !== null && id !== ROOT_ID; ) {
    const parent = get(core, id);
    if (!within(id) || parent.record.state !== "suspended" || parent.busy) {
      break;
    }
    if (parent.record.pending?.id !== answer.id) {
      break;
    }
    cascade.push(parent);
    id = parent.record.parent;
  }

  let result = await restart(core, deepest, { kind: "resume", answer });
  for (const live of cascade.slice(1)) {
    if (result.status === "pending" && result.pending) {
      // Parked: this level now waits on the new request, without spending a token; it
      // relays it, so it stamps its own path (the suspended subtree seen from above).
      const relayed = withPath(result.pending, live.record.id);
      live.record.pending = relayed;
      live.record.result = resultOf(live.record, "pending", { pending: relayed });
      result = live.record.result;
      continue;
    }
    core.note(`${live.record.id}: replaying its halted turn`);
    result = await restart(core, live, { kind: "replay" });
  }
  return result;
}

/** `suspended → idle → running`, then the turn (which records its own end). */
function restart(core: RuntimeCore, live: Live, mode: TurnMode): Promise<AgentResult> {
  transition(core, live.record, "idle");
  transition(core, live.record, "running");
  const parent = live.record.parent === null ? undefined : core.live.get(live.record.parent);
  if (parent) {
    parent.slots += 1;
  }
  const running = runTurn(core, live, mode);
  live.settled = running.then(() => undefined);
  return running;
}
