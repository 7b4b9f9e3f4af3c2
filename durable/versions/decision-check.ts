/**
 * A decision arriving for a request suspended under another version of its agent
 * (src/edge/versions/version-check.ts decides what happens): a request the current version
 * declines is refused `409 agent_changed` and nothing is recorded; migrated arguments become
 * the answer's `data.args` (so the receipt's `argsHash` and the tool's arguments are the
 * migrated ones), also under approver rules. Migrated arguments that need other approvers
 * are refused the same way. Asked before the
 * ledger's synchronous pass.
 */
import { currentArgs } from "../../src/core/approvers/vote";
import { agentTools } from "../../src/edge/agent";
import type { DecisionInput, DecisionOutcome } from "../../src/edge/protocol";
import { agentVersion } from "../../src/edge/versions/agent-version";
import { AGENT_CHANGED, checkVersionChange } from "../../src/edge/versions/version-check";
import { openRequests } from "../storage/open-requests";
import { pathOf } from "../agents/tree";
import type { ThreadContext } from "../thread/context";

/**
 * A refusal to answer, or the input to record (changed only by a migration) and the agent
 * version it was checked under: stored with the decision, so the driver that applies it checks
 * again only when another deploy came in between (./resume-check.ts).
 */
export type VersionGate = { refused: DecisionOutcome } | { input: DecisionInput; version?: string };

export async function versionGate(t: ThreadContext, input: DecisionInput): Promise<VersionGate> {
  const run = t.store.run(input.runId);
  const agent = run && t.agents.get(run.agent);
  const request = run && openRequests(t.store, run).find((r) => r.id === input.requestId);
  // Unknown run or request, an already decided one: the ledger answers as always.
  if (!run || !agent || !request || t.store.decision(request.id)) {
    return { input };
  }
  const version = await agentVersion(agent, t.env);
  // A run from before versions were recorded: nothing to compare with.
  if (!run.agentVersion) {
    return { input, version };
  }
  const tool = request.data?.tool;
  // Only an approval lets a tool run (a refusal is always let through); a sub-agent's request
  // is about its own agent's tool, not one of this agent's.
  if (typeof tool !== "string" || input.decision !== "approve" || pathOf(request)) {
    return { input, version };
  }
  const votes = t.votes.votes(request.id);
  const args = (input.args as Record<string, unknown> | undefined) ?? currentArgs(request, votes);
  const check = await checkVersionChange({
    agent,
    currentVersion: version,
    tools: await agentTools(agent, t.env),
    request,
    requestVersion: run.agentVersion,
    tool,
    args,
  });
  if (check.kind === "decline" || check.kind === "reask") {
    return { refused: { ok: false, code: AGENT_CHANGED, message: check.reason } };
  }
  if (check.kind === "migrate") {
    // The answer carries the migrated arguments; under approver rules the settling vote's
    // data is the answer's (core/approvers/vote.ts), so every vote carries them.
    const data = typeof input.data === "object" && input.data !== null ? input.data : {};
    return { input: { ...input, data: { ...data, args: check.args } }, version };
  }
  return { input, version }; // `continue`, `same`
}
