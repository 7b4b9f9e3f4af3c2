/**
 * A decision recorded under one deploy and applied under another: a run decided just before a
 * redeploy is resumed by the new code. The driver puts the recorded approval through the same
 * check a decision arriving meets (src/edge/versions/version-check.ts), so no tool runs with
 * arguments its current schema rejects, whenever the deploy came in.
 *
 * When the check changes the answer (a decline, or migrated arguments), the decision's row keeps
 * who decided what and takes the answer the run is given and the version it was checked under, in
 * one transaction with a receipt that says so (channel `version`; the ledger writes both:
 * ../ledger/version-change.ts): the approval's receipt named other arguments, or none that may
 * run now. A second drive finds the row checked under the current version and applies its answer
 * as it is. When the migrated arguments need other approvers, the request is asked again
 * (./reask.ts) and nothing runs.
 */
import { answerDeclined, answerOutput } from "../../src/core/answers";
import { originalArgs } from "../../src/core/approvers/vote";
import { isRecord } from "../../src/core/approvers/rules";
import type { Answer, Request, Tool } from "../../src/core/types";
import type { AgentDefinition } from "../../src/edge/agent";
import type { ReceiptDraft } from "../../src/edge/receipts/receipt";
import { agentVersion } from "../../src/edge/versions/agent-version";
import { checkVersionChange } from "../../src/edge/versions/version-check";
import { pathOf } from "../agents/tree";
import { replaceAnswer } from "../ledger/version-change";
import { requestVersion } from "./request-version";
import type { DecisionRow, RunRow, RunStore } from "../storage/run-store";
import type { Reask } from "./reask";

export interface ResumeCheckDeps {
  store: RunStore;
  env: unknown;
  transaction<T>(fn: () => T): T;
  now(): number;
  /** Appends a receipt to the thread's chain (inside the caller's transaction). */
  appendReceipt?(draft: ReceiptDraft, at: Date): void;
}

export interface ResumeCheckInput {
  run: RunRow;
  agent: AgentDefinition;
  request: Request;
  decision: DecisionRow;
  /** The tools as built for this drive (the toolkit's: connected MCP tools' schemas count too). */
  tools: readonly Tool[];
  /** A cancelled run's last decision: nobody can be asked again, so a re-ask declines instead. */
  finalOnly?: boolean;
}

/**
 * The answer to resume the run with: the recorded one, or what the current agent version makes
 * of it (`agent_changed: …` refusal, or the approval with migrated `data.args`); or, when the
 * migrated arguments need other approvers, the request to ask instead (./reask.ts): the
 * approvers who decided were not the ones the arguments now need.
 * @example
 * const checked = await answerUnderCurrentVersion(deps, { run, agent, request, decision, tools: toolkit.tools() });
 * if ("reask" in checked) await reask(t, checked.reask); else resume(checked.answer);
 */
export async function answerUnderCurrentVersion(
  deps: ResumeCheckDeps,
  input: ResumeCheckInput,
): Promise<{ answer: Answer } | { reask: Reask }> {
  const { run, agent, request, decision } = input;
  const answer = decision.answer;
  const tool = request.data?.tool;
  const asked = requestVersion(deps.store, run, request);
  // Only an approval lets a tool run; a sub-agent's request is its own agent's (not this run's) tool.
  if (!answer.ok || typeof tool !== "string" || !asked || pathOf(request)) {
    return { answer };
  }
  const version = await agentVersion(agent, deps.env);
  if (decision.agentVersion === version) {
    return { answer }; // checked (or migrated) when it was recorded, under this very deploy
  }
  // An approval's `data.args` (an edit, or a migration) is what the tool would run with.
  const edited = dataOf(answer).args;
  const check = await checkVersionChange({
    agent,
    currentVersion: version,
    tools: input.tools,
    request,
    // Recorded under a deploy that already checked it: that deploy's version is where it comes from.
    requestVersion: decision.agentVersion ?? asked,
    tool,
    args: isRecord(edited) ? edited : originalArgs(request),
  });
  if (check.kind === "same" || check.kind === "continue") {
    return { answer };
  }
  if (check.kind === "reask" && !input.finalOnly) {
    const { reason } = check;
    return { reask: { run, request, next: check.request, reason, version, decided: decision } };
  }
  const changed =
    check.kind === "migrate"
      ? answerOutput(request.id, { ...dataOf(answer), args: check.args, argsMigrated: true })
      : answerDeclined(request.id, check.reason);
  const now = deps.now();
  // The row takes the answer and the version; its receipt records the change, atomically.
  deps.transaction(() =>
    replaceAnswer(deps, { run, request, decision, answer: changed, version, now }),
  );
  return { answer: changed };
}

const dataOf = (answer: Answer) => (isRecord(answer.data) ? answer.data : {});
