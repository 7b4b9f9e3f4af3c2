/**
 * The edge's `task { agent, prompt }` tool (SPEC §7D) for an agent with a `team`. Its task
 * key is the caller's tool call id: a call re-invoked after a crash or on resume reattaches
 * to the child that call spawned (settled ⇒ its recorded result, suspended ⇒ its pending
 * request, interrupted ⇒ carried on from its checkpoint) and never spawns a duplicate.
 * A child's request without approver rules is offered to the `waitFor` of the agents
 * above it, nearest first, before it surfaces as the run's pending request.
 */
import type { Answer, Context, Request, Tool, ToolResult } from "../../src/core/types";
import { rulesOf } from "../../src/core/approvers/rules";
import type { AgentDefinition } from "../../src/edge/agent";
import { pendingOfHandle, type HandleRow } from "../storage/handle-store";
import { budgetOf, childSlots } from "./budget";
import { stepHandle, taskResultOf } from "./child-step";
import { rootHandleOf, type Caller, type TreeContext } from "./tree";
import {
  perTurnRefusal,
  treeRefusal,
  type TreeCapLevel,
} from "../../src/core/agents/limits/budget";

export function teamTools(tree: TreeContext | undefined, caller: Caller): Tool[] {
  const team = caller.agent.team ?? [];
  if (!tree || team.length === 0) {
    return [];
  }
  const members = team.map((name) => tree.deps.agents.get(name));
  const roster = team
    .map((name, i) => `- ${name}: ${members[i]?.description ?? "(not deployed)"}`)
    .join("\n");
  return [
    {
      name: "task",
      description:
        "Delegate a piece of work to an agent of your team. It starts on a fresh transcript, " +
        `sees only your prompt, and returns only its final answer.\nTeam:\n${roster}`,
      inputSchema: {
        type: "object",
        properties: {
          agent: { type: "string", enum: [...team], description: "The team member to delegate to" },
          prompt: { type: "string", description: "Everything the agent needs to do the work" },
        },
        required: ["agent", "prompt"],
      },
      source: "agent",
      execute: (args, ctx) => runTask({ tree, caller }, args, ctx ?? {}),
    },
  ];
}

/** Who delegates: the run's handle tree and the calling handle. */
interface Delegation {
  tree: TreeContext;
  caller: Caller;
}

async function runTask(
  { tree, caller }: Delegation,
  args: unknown,
  ctx: Context,
): Promise<ToolResult> {
  const team = caller.agent.team ?? [];
  const { agent, prompt } = (args ?? {}) as { agent?: unknown; prompt?: unknown };
  if (typeof agent !== "string" || typeof prompt !== "string" || prompt.trim() === "") {
    return failure(`task needs { agent, prompt } as non-empty strings; team: ${team.join(", ")}`);
  }
  if (!team.includes(agent)) {
    return failure(`task: "${agent}" is not in this agent's team; team: ${team.join(", ")}`);
  }
  const definition = tree.deps.agents.get(agent);
  if (!definition) {
    return failure(`task: agent "${agent}" is not deployed`);
  }
  if (!ctx.callId) {
    return failure("task: no call id (the edge keys each child by the call that spawned it)");
  }
  const known = tree.handles.byCall(tree.run.runId, caller.handle, ctx.callId);
  let row: HandleRow;
  if (known) {
    if (known.status !== "running") {
      return taskResultOf(known); // settled: its recorded result; suspended: its request
    }
    row = known;
  } else {
    // Issue 37: a turn's `task` calls past the caller's cap never spawn (the same ones after a crash).
    const overTurn = perTurnRefusal(budgetOf(tree, caller.handle), ctx.callOrdinal, caller.handle);
    if (overTurn) {
      return failure(`task ${overTurn}`);
    }
    const refused = spawnRefusal(tree, caller);
    if (refused) {
      return failure(`task ${refused.startsWith("refused:") ? refused : `refused: ${refused}`}`);
    }
    row = spawn({ tree, caller }, definition, { prompt, callId: ctx.callId });
  }
  // Gate 2: the child runs once its parent has a free slot (spawned already, so queued
  // children keep the order of the calls; a suspended child gives its slot back).
  const slots = concurrencyOf(tree, caller.handle);
  const settled = await slots(async () => {
    const stepped = await stepHandle(tree, row, { kind: "continue" });
    return offerToWaitFor(tree, caller, stepped);
  });
  return taskResultOf(settled);
}

/** A parent's `maxConcurrent` running children, shared by all its `task` calls of this drive. */
function concurrencyOf(tree: TreeContext, parent: string) {
  let gate = tree.concurrency.get(parent);
  if (!gate) {
    gate = childSlots(budgetOf(tree, parent).maxConcurrent);
    tree.concurrency.set(parent, gate);
  }
  return gate;
}

/** A new child: its row and its first two messages (system prompt, the caller's prompt) in one commit. */
function spawn(
  { tree, caller }: Delegation,
  definition: AgentDefinition,
  task: { prompt: string; callId: string },
): HandleRow {
  const { deps, handles, run } = tree;
  const ledger = tree.ledger();
  const n = ledger.childrenNamed(caller.handle, definition.name) + 1;
  const handle = `${caller.handle}/${definition.name}.${n}`;
  const budget = definition.budget ?? {};
  const now = deps.now();
  deps.transaction(() => {
    handles.insert({
      runId: run.runId,
      handle,
      parent: caller.handle,
      agent: definition.name,
      depth: caller.depth + 1,
      callId: task.callId,
      prompt: task.prompt,
      budget,
      now,
    });
    handles.checkpoint(
      { runId: run.runId, handle },
      [
        { role: "system", content: definition.systemPrompt },
        { role: "user", content: task.prompt },
      ],
      {},
    );
    deps.record(run.runId, "subagent_started", {
      handle,
      name: definition.name,
      description: definition.description,
      parentToolCallId: task.callId,
    });
  });
  ledger.added({ handle, parent: caller.handle, agent: definition.name, budget, createdAt: now });
  return handles.handle(run.runId, handle) as HandleRow;
}

/**
 * `maxChildren` of the caller, `maxDepth` of every agent above the new child (levels below
 * it), `maxDescendants` of every level (200 at the top by default, issue 37).
 */
function spawnRefusal(tree: TreeContext, caller: Caller): string | undefined {
  const maxChildren = caller.agent.budget?.maxChildren;
  const ledger = tree.ledger();
  const children = ledger.children(caller.handle);
  if (maxChildren !== undefined && children >= maxChildren) {
    return `maxChildren of ${caller.agent.name} (${children} of ${maxChildren})`;
  }
  const chain = [caller.agent, ...caller.above];
  for (const [i, agent] of chain.entries()) {
    const maxDepth = agent.budget?.maxDepth;
    const below = i + 1; // the new child's depth below this agent
    if (maxDepth !== undefined && below > maxDepth) {
      return `maxDepth of ${agent.name} (${below} of ${maxDepth})`;
    }
  }
  const top = rootHandleOf(tree.run);
  const levels: TreeCapLevel[] = [];
  for (let id = caller.handle; id.startsWith(top); id = id.slice(0, id.lastIndexOf("/"))) {
    levels.push({
      id,
      budget: budgetOf(tree, id),
      descendants: ledger.descendants(id),
      top: id === top,
    });
  }
  return treeRefusal(levels);
}

/**
 * The §7D escalation at the edge: a request with no approver rules goes to the nearest
 * `waitFor` above the child that answers it. The decision is written to the ledger
 * (channel `policy`, decided by `agent:<name>`) so the audit trail shows it.
 */
async function offerToWaitFor(
  tree: TreeContext,
  caller: Caller,
  start: HandleRow,
): Promise<HandleRow> {
  let row = start;
  // Each answer lets the child run on; a child asking again and again is bounded by its maxTurns.
  for (let asked = 0; asked < 32; asked += 1) {
    const request = row.status === "pending" ? pendingOfHandle(row) : undefined;
    if (!request || rulesOf(request) || tree.deps.store.decision(request.id)) {
      return row;
    }
    const answered = await askAbove(caller, request);
    if (!answered) {
      return row;
    }
    recordDecision(tree, request, answered);
    row = await stepHandle(tree, row, { kind: "answer", request, answer: answered.answer });
  }
  return row;
}

async function askAbove(
  caller: Caller,
  request: Request,
): Promise<{ answer: Answer; by: string } | undefined> {
  for (const agent of [caller.agent, ...caller.above]) {
    const answer = agent.waitFor ? await agent.waitFor(request) : undefined;
    if (answer) {
      return { answer: { ...answer, id: request.id }, by: agent.name };
    }
  }
  return undefined;
}

function recordDecision(
  tree: TreeContext,
  request: Request,
  answered: { answer: Answer; by: string },
) {
  const { deps, run } = tree;
  const now = deps.now();
  deps.transaction(() => {
    deps.store.insertDecision(
      {
        requestId: request.id,
        runId: run.runId,
        decision: answered.answer.ok ? "approve" : "decline",
        answer: answered.answer,
        channel: "policy",
        decidedBy: `agent:${answered.by}`,
        webhookId: null,
        decidedAt: now,
      },
      request,
    );
    deps.store.markApplied(request.id, now);
  });
}

function failure(output: string): ToolResult {
  return { output, isError: true };
}
