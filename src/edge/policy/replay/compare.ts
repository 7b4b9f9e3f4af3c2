/**
 * Replay (docs/policy.md, "Replay before switching"): a candidate policy evaluated against
 * recorded decisions. Each receipt that carries what an evaluation needs (`args`, written
 * with `policy` since issue 43) becomes the same AuthZEN evaluation the call was, at the time
 * it was made; the candidate's answer is compared with the recorded one and every change
 * (allow→ask, ask→deny, quorum 1→2, group finance→legal …) is counted per tool and group.
 */
import { argsHash } from "../../../core/approvers/args-hash";
import { isRecord } from "../../../core/approvers/rules";
import { accessEvaluation } from "../../../core/policy/evaluation";
import { askVerdict } from "../../../core/policy/ask";
import type { PolicyAnswer, ToolPolicy } from "../../../core/policy/types";

/** One side of a comparison: a decision, and for an ask who and how many. */
export interface Outcome {
  decision: "allow" | "deny" | "ask";
  group?: string;
  quorum?: number;
}

export interface ReplayRow {
  tool: string;
  /** The recorded rule's group, or "-" without one. */
  group: string;
  /** e.g. "allow→ask", "ask→deny", "quorum 1→2", "group finance→legal". */
  change: string;
  count: number;
}

export interface ReplayReport {
  receipts: number;
  /** Receipts that carry args (the others were recorded before policies, or by no policy). */
  replayable: number;
  unchanged: number;
  /** Calls the candidate could not answer (PDP down, …): not counted as changes. */
  failed: number;
  rows: ReplayRow[];
}

/** Compares the candidate with every replayable receipt; `receipts` are decoded payloads. */
export async function replay(
  receipts: readonly Record<string, unknown>[],
  candidate: ToolPolicy,
): Promise<ReplayReport> {
  const counts = new Map<string, ReplayRow>();
  const report: ReplayReport = {
    receipts: receipts.length,
    replayable: 0,
    unchanged: 0,
    failed: 0,
    rows: [],
  };
  for (const receipt of receipts) {
    const input = replayable(receipt);
    if (!input) {
      continue;
    }
    report.replayable += 1;
    let answer: PolicyAnswer;
    try {
      answer = await candidate.evaluate(input.evaluation, { at: input.at });
    } catch {
      report.failed += 1;
      continue;
    }
    const change = changeOf(input.recorded, outcomeOf(answer));
    if (!change) {
      report.unchanged += 1;
      continue;
    }
    const group = input.recorded.group ?? "-";
    const key = `${input.tool}\0${group}\0${change}`;
    const row = counts.get(key) ?? { tool: input.tool, group, change, count: 0 };
    row.count += 1;
    counts.set(key, row);
  }
  report.rows = [...counts.values()].sort(
    (a, b) => b.count - a.count || a.tool.localeCompare(b.tool) || a.change.localeCompare(b.change),
  );
  return report;
}

/** What a change looks like in words, or undefined for the same outcome. */
export function changeOf(from: Outcome, to: Outcome): string | undefined {
  if (from.decision !== to.decision) {
    return `${from.decision}→${to.decision}`;
  }
  if (from.decision !== "ask") {
    return undefined;
  }
  if ((from.group ?? "-") !== (to.group ?? "-")) {
    return `group ${from.group ?? "anyone"}→${to.group ?? "anyone"}`;
  }
  if ((from.quorum ?? 1) !== (to.quorum ?? 1)) {
    return `quorum ${from.quorum ?? 1}→${to.quorum ?? 1}`;
  }
  return undefined;
}

function outcomeOf(answer: PolicyAnswer): Outcome {
  if (answer.decision !== "ask") {
    return { decision: answer.decision };
  }
  const rules = askVerdict(answer.ask ?? {}).rules;
  return {
    decision: "ask",
    ...(rules?.group ? { group: rules.group } : {}),
    ...(rules ? { quorum: rules.quorum ?? 1 } : {}),
  };
}

/** The evaluation a receipt records, or undefined when it lacks what one needs. */
function replayable(receipt: Record<string, unknown>) {
  const { policy, args, tool, rule } = receipt;
  if (!isRecord(policy) || !isRecord(args) || typeof tool !== "string") {
    return undefined;
  }
  if (typeof receipt.argsHash === "string" && argsHash(args) !== receipt.argsHash) {
    return undefined; // not the arguments that were decided on
  }
  const decision = policy.decision;
  if (decision !== "allow" && decision !== "deny" && decision !== "ask") {
    return undefined;
  }
  const recordedRule = isRecord(rule) ? rule : undefined;
  const recorded: Outcome = { decision };
  if (decision === "ask" && recordedRule) {
    if (typeof recordedRule.group === "string") {
      recorded.group = recordedRule.group;
    }
    recorded.quorum = typeof recordedRule.quorum === "number" ? recordedRule.quorum : 1;
  }
  const text = (key: string) => (typeof receipt[key] === "string" ? (receipt[key] as string) : "");
  const requestedBy = text("requestedBy");
  const evaluation = accessEvaluation({
    agent: text("agent") || "unknown",
    tool,
    args,
    ...(requestedBy ? { requestedBy } : {}),
    context: {
      runId: text("runId"),
      threadId: text("threadId"),
      agentVersion: text("agentVersion"),
    },
  });
  const at = Date.parse(text("at"));
  return { tool, recorded, evaluation, at: Number.isFinite(at) ? new Date(at) : new Date() };
}
