/**
 * The `task { agent, prompt }` tool (SPEC §7D): spawn → wake → wait → close fused, scoped to
 * the caller's team. The child runs on a fresh transcript and the caller gains exactly one
 * tool message per call; parallel calls in one turn run concurrently (the loop runs a turn's
 * calls together). A child that suspends presents exactly as a suspending tool: its request
 * (with `data.path`) is this call's pending result, and the child stays open.
 *
 * Reattachment: each call has a task key (agent + prompt, plus an ordinal when the same pair
 * is asked twice in one turn). A re-invoked `task` whose key is already recorded for the
 * current wake reattaches to that child — settled ⇒ its recorded result, suspended ⇒ its
 * pending, running ⇒ await it — and never spawns a duplicate.
 */
import type { Context, Request, Tool, ToolResult } from "../types";
import { errorMessage } from "../errors";
import type { AgentDef, AgentResult, CloseReason } from "./types";
import type { Live } from "./tree/handle";
import type { RuntimeCore } from "./core";
import { perTurnRefusal } from "./limits/budget";

export function taskTool(core: RuntimeCore, parent: Live, team: AgentDef[]): Tool {
  const names = team.map((def) => def.name);
  const roster = team.map((def) => `- ${def.name}: ${def.does}`).join("\n");
  return {
    name: "task",
    description:
      "Delegate a piece of work to an agent of your team. It starts on a fresh transcript, " +
      `sees only your prompt, and returns only its final answer.\nTeam:\n${roster}`,
    inputSchema: {
      type: "object",
      properties: {
        agent: { type: "string", enum: names, description: "The team member to delegate to" },
        prompt: { type: "string", description: "Everything the agent needs to do the work" },
      },
      required: ["agent", "prompt"],
    },
    source: "agent",
    execute: (args, ctx) => runTask({ core, parent, team: names }, args, ctx ?? {}),
  };
}

/** Who delegates: the runtime, the calling handle, and the names on its team. */
interface TaskCaller {
  core: RuntimeCore;
  parent: Live;
  team: string[];
}

async function runTask(
  { core, parent, team }: TaskCaller,
  args: unknown,
  ctx: Context,
): Promise<ToolResult> {
  const { agent, prompt } = (args ?? {}) as { agent?: unknown; prompt?: unknown };
  if (typeof agent !== "string" || typeof prompt !== "string") {
    return failure(`task needs { agent, prompt } as strings; team: ${team.join(", ")}`);
  }
  if (!team.includes(agent)) {
    return failure(`task: "${agent}" is not in this agent's team; team: ${team.join(", ")}`);
  }
  // Issue 37: the calls of one turn past the caller's cap never spawn (the same ones on a replay).
  const overTurn = perTurnRefusal(parent.record.budget, ctx.callOrdinal, parent.record.id);
  if (overTurn) {
    return failure(`task ${overTurn}`);
  }
  const key = taskKey(parent, agent, prompt);
  const known = parent.record.tasks[key];
  const attached = known === undefined ? undefined : core.live.get(known);

  let child: Live;
  let result: AgentResult;
  if (attached) {
    child = attached;
    core.note(`${parent.record.id}: task replay → REATTACH ${child.record.id}`);
    const record = child.record;
    if (ctx.answer && record.state === "suspended" && record.pending?.id === ctx.answer.id) {
      result = await core.answer(record.id, ctx.answer);
    } else if (record.state === "suspended" && !child.busy && record.pending) {
      return pendingResult(record.pending);
    } else {
      result = await waitOn(core, { id: record.id, by: parent.record.id }, ctx);
    }
  } else {
    try {
      child = core.spawn(parent.record.id, agent);
    } catch (error) {
      return failure(`task: ${errorMessage(error)}`);
    }
    parent.record.tasks[key] = child.record.id;
    const woke = core.wake(child.record.id, prompt);
    if (!woke.ok) {
      return failure(`task: ${woke.error}`);
    }
    result = await waitOn(core, { id: child.record.id, by: parent.record.id }, ctx);
  }

  if (result.status === "pending" && result.pending) {
    return pendingResult(result.pending);
  }
  if (child.record.state !== "closed") {
    await core.close(child.record.id, { reason: closeReason(result) });
  }
  return toTaskResult(result);
}

/** Waits for the child; if the caller's run is aborted meanwhile, the child is interrupted too. */
async function waitOn(
  core: RuntimeCore,
  { id, by }: { id: string; by: string },
  ctx: Context,
): Promise<AgentResult> {
  const signal = ctx.signal;
  const onAbort = () => void core.interrupt(id);
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    return await core.wait(id, { by });
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}

function taskKey(parent: Live, agent: string, prompt: string): string {
  const base = JSON.stringify([agent, prompt]);
  const n = (parent.taskOrdinals.get(base) ?? 0) + 1;
  parent.taskOrdinals.set(base, n);
  return n === 1 ? base : JSON.stringify([agent, prompt, n]);
}

function closeReason(result: AgentResult): CloseReason {
  switch (result.status) {
    case "incomplete":
      return "budget";
    case "error":
    case "timeout":
      return "error";
    case "interrupted":
      return "interrupted";
    default:
      return "closed";
  }
}

function pendingResult(request: Request): ToolResult {
  return { output: `pending: ${request.prompt}`, isError: true, metadata: { pending: request } };
}

function failure(output: string): ToolResult {
  return { output, isError: true };
}

/** A child's result as the caller's model sees it: the final text, or what stopped the child. */
export function toTaskResult(result: AgentResult): ToolResult {
  const metadata = {
    agent: result.agent,
    handle: result.handle,
    turns: result.turns,
    totalTokens: result.usage.totalTokens,
    status: result.status,
  };
  if (result.status === "done") {
    return { output: result.text, isError: false, metadata };
  }
  if (result.status === "incomplete") {
    const what = result.limit ? ` (${result.limit})` : "";
    const partial = result.text || result.error || "";
    return { output: `incomplete${what}: ${partial}`, isError: true, metadata };
  }
  return { output: `${result.status}: ${result.error ?? result.text}`, isError: true, metadata };
}
