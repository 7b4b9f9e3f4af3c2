/**
 * The demo delegation tree: a `coordinator` whose team is `lookup` (reads orders) and
 * `refunds` (refunds with the support agent's approval rules: one approval above $50, two
 * members of `finance` above $1,000). "Refund $1200 on order 42" makes the coordinator hand
 * both jobs out in one turn; `lookup` finishes, `refunds` suspends on its four-eyes approval,
 * and the coordinator waits in the thread's Durable Object until finance has decided.
 * Offline models (no LLM_BASE_URL): demoSupportModel for the members, demoCoordinatorModel.
 */
import { defineAgent } from "../agent";
import { demoSupportModel } from "./model";
import { demoCoordinatorModel } from "./team-model";
import { demoApprovalTimeout, lookupOrder, refundOrder } from "./agent";
import type { Answer, Message, Request } from "../../core/types";
import { answerOutput } from "../../core/answers";

export const lookupAgent = defineAgent({
  name: "lookup",
  description: "Reads orders: status, items and total.",
  systemPrompt: "You look up orders with lookup_order and report what you found. Be brief.",
  tools: [lookupOrder],
  demoModel: demoSupportModel,
});

export const refundsAgent = defineAgent({
  name: "refunds",
  description: "Issues refunds (large ones need approval).",
  systemPrompt: "You issue refunds with refund_order and report the outcome. Be brief.",
  tools: [refundOrder],
  approvalTimeout: demoApprovalTimeout,
  demoModel: demoSupportModel,
});

/** A deterministic summary: the earlier user requests, so nothing is asked of a model. */
function summarizeRequests(older: Message[]): string {
  const asked = older.filter((m) => m.role === "user").map((m) => m.content);
  return `${older.length} earlier messages; the user asked: ${asked.join(" | ") || "nothing"}`;
}

/**
 * The coordinator's own authority (§7D escalation): it approves its team's refunds up to
 * $100 itself. Only requests without approver rules ever reach it; the rest surface.
 */
export function coordinatorApproves(request: Request): Answer | undefined {
  const args = request.data?.args as { amount?: unknown } | undefined;
  const small = typeof args?.amount === "number" && args.amount <= 100;
  return request.data?.tool === "refund_order" && small ? answerOutput(request.id) : undefined;
}

export const coordinatorAgent = defineAgent({
  name: "coordinator",
  description: "Handles support tickets by delegating to the lookup and refunds agents.",
  systemPrompt:
    "You route support work: use task with agent lookup to read orders and agent refunds to " +
    "refund them, at the same time when a ticket needs both. Then answer in one short message.",
  tools: [],
  team: ["lookup", "refunds"],
  budget: { maxChildren: 8, maxDepth: 1 },
  // Long threads: what is sent is compacted, what is stored stays whole.
  compaction: { maxTokens: 1500, summarize: summarizeRequests },
  waitFor: coordinatorApproves,
  approvalTimeout: demoApprovalTimeout,
  demoModel: demoCoordinatorModel,
});
