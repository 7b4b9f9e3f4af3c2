/**
 * A decision arriving for a request suspended under another version of its agent
 * (src/edge/versions/version-check.ts decides what happens): a request the current version
 * declines is refused `409 agent_changed` and nothing is recorded; migrated arguments become
 * the answer's `data.args` (so the receipt's `argsHash` and the tool's arguments are the
 * migrated ones): at once for a plain approval, with the settling vote under approver rules.
 * Migrated arguments that need other approvers are refused the same way. Asked before the
 * ledger's synchronous pass.
 */
import { currentArgs } from "../../src/core/approvers/vote";
import { rulesOf, type Rules } from "../../src/core/approvers/rules";
import { receiptRule } from "../../src/edge/receipts/receipt";
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
export type VersionGate =
  | { refused: DecisionOutcome }
  | { input: DecisionInput; version?: string; migrated?: Record<string, unknown> };

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
  if (!run.agent_version) {
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
    requestVersion: run.agent_version,
    tool,
    args,
  });
  if (check.kind === "decline") {
    return { refused: { ok: false, code: AGENT_CHANGED, message: check.reason } };
  }
  if (check.kind === "reask") {
    // The approvers the request asked are not the ones the migrated arguments need: their
    // approval cannot stand for them. Refused like a decline (nothing recorded, no tool runs).
    return {
      refused: {
        ok: false,
        code: AGENT_CHANGED,
        message: `${AGENT_CHANGED}: the migrated arguments of ${tool} need other approvers than request ${request.id} asked (${describeRules(check.rules)}); decline it, and the model may ask again`,
      },
    };
  }
  if (check.kind === "migrate") {
    if (rulesOf(request)) {
      // Votes decide it: the approval that settles it carries the migrated arguments (ledger/votes.ts).
      return { input, version, migrated: check.args };
    }
    const data = typeof input.data === "object" && input.data !== null ? input.data : {};
    return { input: { ...input, data: { ...data, args: check.args } }, version };
  }
  return { input, version }; // `continue`, `same`
}

function describeRules(rules: Rules | undefined): string {
  return rules ? `now ${JSON.stringify(receiptRule(rules))}` : "now none: one approval";
}
