/**
 * One step of one child handle, from storage: a fresh or interrupted handle carries on
 * from its stored transcript (`continueRun`: calls with no result run, suspended slots stay
 * suspended), a suspended one resumes with its answer (`runWithAnswer`). The outcome is
 * written to the handle's row: suspended on a request (with `data.path`: this handle, as
 * segments, the subtree that relays it), or closed with its result. A child's recorded result is final: it never runs again.
 */
import type { Answer, Request, RunResult, ToolResult } from "../../src/core/types";
import { createToolkit, type Toolkit } from "../../src/core/toolkit";
import { errorMessage } from "../../src/core/errors";
import { agentTools } from "../../src/edge/agent";
import { policyTools } from "../../src/edge/policy/run-tools";
import { runPolicy } from "../policy/run-policy";
import type { ToolMessage } from "../storage/run-store";
import { childClient } from "./child-client";
import { childCheckpointer } from "./child-checkpoint";
import { pendingOfHandle, storedRunOf, type HandleRow } from "../storage/handle-store";
import { callerOf } from "./callers";
import { liveLimit, spentLimit } from "./budget";
import { describeExhausted } from "../../src/core/agents/limits/budget";
import type { TreeContext } from "./tree";

export type Step = { kind: "continue" } | { kind: "answer"; request: Request; answer: Answer };

export async function stepHandle(
  tree: TreeContext,
  row: HandleRow,
  step: Step,
): Promise<HandleRow> {
  const { deps, handles, run } = tree;
  const caller = callerOf(tree, row.handle);
  if (!caller) {
    return settle(tree, row, {
      status: "failed",
      text: `agent ${row.agent} is not deployed any more`,
    });
  }
  // The live walk before the step (SPEC §7D): a spent limit on the chain stops it unrun.
  const spent = spentLimit(tree, row.handle);
  if (spent) {
    return settle(tree, row, { status: "incomplete", text: "", limit: describeExhausted(spent) });
  }
  // Admitted (SPEC §7D: the state flips with the slot): idle after its spawn, or suspended
  // until this answer. Only the state: `status` still says what a crash here must resume.
  if (row.state !== "running") {
    handles.update({ runId: run.runId, handle: row.handle }, { state: "running" });
  }
  const { messages, committed } = handles.transcript(run.runId, row.handle);
  const budget = row.budget;
  const maxTurns = Math.min(
    caller.agent.maxTurns ?? 10,
    budget.maxTurns ?? Number.POSITIVE_INFINITY,
  );
  const stored = { runId: run.runId, ...storedRunOf(row) };
  let result: RunResult;
  let toolkit: Toolkit | undefined;
  const live = liveLimit(tree, row.handle, caller.agent.name);
  try {
    const client = childClient(tree, caller.agent, {
      maxTurns,
      limitBefore: live.limitBefore,
      persister: childCheckpointer(tree, row.handle, { committed, afterTurn: live.spent }),
    });
    toolkit = await createToolkit({
      tools: [
        // A sub-agent's calls are decided through the policy interface too (issue 43).
        ...policyTools(
          await agentTools(caller.agent, deps.env),
          runPolicy(deps, { agent: caller.agent, run }),
        ),
        ...tree.teamTools(caller),
      ],
      env: deps.env,
      ...(caller.agent.builtins ? { builtins: caller.agent.builtins } : {}),
    });
    result =
      step.kind === "answer"
        ? await client.runWithAnswer({
            ...stored,
            toolkit,
            history: messages,
            pending: step.request,
            answer: step.answer,
            signal: tree.signal,
          })
        : await client.continueRun({ ...stored, toolkit, history: messages, signal: tree.signal });
  } catch (error) {
    if (tree.signal.aborted) {
      throw error;
    }
    return settle(tree, row, { status: "failed", text: errorMessage(error) });
  } finally {
    live.release();
    await toolkit?.close();
  }
  if (result.status === "pending" && result.pending) {
    return suspend(tree, row, result.pending);
  }
  return settle(tree, row, {
    status: result.status === "incomplete" ? "incomplete" : "done",
    text: result.text,
    ...(result.limit ? { limit: live.described() ?? result.limit } : {}),
  });
}

/**
 * The request as this child relays it: `data.path` is its own handle as segments, stamped over
 * the path of the level below (SPEC §7D addendum, issue 40): at the run it names the suspended
 * subtree under the run's agent, and cascade.ts routes the answer to the deepest handle in it.
 */
export function withPath(request: Request, handle: string): Request {
  return { ...request, data: { ...(request.data ?? {}), path: handle.split("/") } };
}

function suspend(tree: TreeContext, row: HandleRow, raw: Request): HandleRow {
  const request = withPath(raw, row.handle);
  const key = { runId: tree.run.runId, handle: row.handle };
  tree.deps.transaction(() => {
    tree.handles.update(key, {
      state: "suspended",
      status: "pending",
      pending: request,
      updatedAt: tree.deps.now(),
    });
    tree.deps.record(tree.run.runId, "subagent_finished", {
      handle: row.handle,
      status: "pending",
      requestIds: [request.id],
    });
  });
  return tree.handles.handle(key.runId, key.handle) as HandleRow;
}

function settle(
  tree: TreeContext,
  row: HandleRow,
  outcome: { status: "done" | "incomplete" | "failed"; text: string; limit?: string },
): HandleRow {
  const key = { runId: tree.run.runId, handle: row.handle };
  tree.deps.transaction(() => {
    tree.handles.update(key, {
      state: "closed",
      status: outcome.status,
      text: outcome.text,
      limitReason: outcome.limit ?? null,
      pending: null,
      slots: null,
      updatedAt: tree.deps.now(),
    });
    tree.deps.record(tree.run.runId, "subagent_finished", {
      handle: row.handle,
      status: outcome.status,
      text: outcome.text,
    });
  });
  return tree.handles.handle(key.runId, key.handle) as HandleRow;
}

/** What the caller's `task` slot gets from a settled or suspended child. */
export function taskResultOf(row: HandleRow): ToolResult {
  const metadata = { agent: row.agent, handle: row.handle, turns: row.turns, status: row.status };
  const request = pendingOfHandle(row);
  if (row.status === "pending" && request) {
    return { output: `pending: ${request.prompt}`, isError: true, metadata: { pending: request } };
  }
  if (row.status === "done") {
    return { output: row.text ?? "", isError: false, metadata };
  }
  if (row.status === "incomplete") {
    const what = row.limitReason ? ` (${row.limitReason})` : "";
    return { output: `incomplete${what}: ${row.text ?? ""}`, isError: true, metadata };
  }
  return { output: `${row.status}: ${row.text ?? ""}`, isError: true, metadata };
}

/** The same as the tool message that fills (or holds open) the caller's slot. */
export function slotMessageOf(row: HandleRow): ToolMessage {
  const result = taskResultOf(row);
  const request = pendingOfHandle(row);
  const base = {
    role: "tool" as const,
    toolCallId: row.callId,
    name: "task",
    content: result.output,
  };
  if (row.status === "pending" && request) {
    return { ...base, pending: request }; // the loop's placeholder shape
  }
  return result.isError ? { ...base, isError: true } : base;
}
