/**
 * The demo `support` agent: order lookup, refunds (one approval above $50; above
 * $1,000 two members of `finance`, who may edit the amount; a policy above $10,000),
 * account deletion (a member of `support-leads`, reminded every 10 minutes, escalated to
 * `managers` after 30, expiring after 2 hours) and a question to the user. Its tools are
 * fakes with deterministic data, so it runs offline. The groups come from
 * `APPROVER_GROUPS` (see .dev.vars.example).
 */
import * as z from "zod";
import { defineTool } from "../../core/tools/define";
import { requireApproval } from "../../core/tools/approval";
import { answerDeclined, pending } from "../../core/answers";
import { declinedResult } from "../../core/suspension";
import { parseDuration } from "../../core/approvers/duration";
import { defineAgent } from "../agent";
import { demoSupportModel } from "./model";

const CATALOG: ReadonlyArray<readonly [name: string, cents: number]> = [
  ["USB-C cable", 1299],
  ["Mechanical keyboard", 8900],
  ["Wireless mouse", 3450],
  ["Laptop stand", 4999],
  ["Noise-cancelling headphones", 19900],
];
const STATUSES = ["shipped", "processing", "delivered"] as const;

/** A fake order derived from its number: the same id always gives the same order ("42" is shipped). */
export function fakeOrder(orderId: string) {
  const n = Number(orderId);
  const status = STATUSES[n % STATUSES.length];
  if (!status) {
    throw new Error(`fakeOrder: order id ${JSON.stringify(orderId)} is not a number`);
  }
  const items = Array.from({ length: (n % 3) + 1 }, (_, i) => {
    const entry = CATALOG[(n + i * 2) % CATALOG.length];
    if (!entry) {
      throw new Error(`fakeOrder: no catalog entry for order ${JSON.stringify(orderId)}`);
    }
    const [name, cents] = entry;
    return { name, quantity: ((n + i) % 2) + 1, unitPrice: cents / 100 };
  });
  const totalCents = items.reduce(
    (sum, item) => sum + Math.round(item.unitPrice * 100) * item.quantity,
    0,
  );
  return {
    orderId,
    status,
    items,
    total: totalCents / 100,
    currency: "USD",
  };
}

export const lookupOrder = defineTool<{ orderId: string }>({
  name: "lookup_order",
  description: "Look up an order by its number: status, items and total.",
  inputSchema: z.object({ orderId: z.string().describe('The order number, e.g. "42"') }),
  run: ({ orderId }) => {
    const id = orderId.trim().replace(/^#/, "");
    if (!/^\d{1,9}$/.test(id)) {
      return { output: `order ${orderId} not found`, isError: true };
    }
    return JSON.stringify(fakeOrder(id));
  },
});

type RefundArgs = { orderId: string; amount: number };
export const refundOrder = requireApproval<RefundArgs>(
  defineTool<RefundArgs>({
    name: "refund_order",
    description: "Refund an amount (in dollars) on an order. Refunds over $50 need approval.",
    inputSchema: z.object({ orderId: z.string(), amount: z.number().positive() }),
    run: ({ orderId, amount }) => `Refunded $${amount} on order ${orderId}`,
    // An undo (POST /v1/runs/:runId/undo) reverses the refund it issued (docs/undo.md).
    compensate: ({ orderId, amount }) => `Reversed the refund of $${amount} on order ${orderId}`,
  }),
  {
    when: (a) => a.amount > 50,
    prompt: (a) => `Refund $${a.amount} on order ${a.orderId}?`,
    // Four eyes on large refunds; finance may lower (or correct) the amount.
    approvers: (a) =>
      a.amount > 1000 ? { group: "finance", quorum: 2, editable: ["amount"] } : undefined,
    policy: (a, req) =>
      a.amount > 10_000
        ? answerDeclined(req.id, "policy: refunds over $10,000 need finance review")
        : undefined,
  },
);

const deleteAccount = requireApproval(
  defineTool({
    name: "delete_account",
    description: "Permanently delete the user's account.",
    inputSchema: z.object({}),
    run: () => "Account deleted",
  }),
  {
    prompt: "Delete this account? This cannot be undone.",
    approvers: {
      group: "support-leads",
      remindEvery: "10m",
      escalate: { after: "30m", to: "managers" },
      warnBefore: "10m",
    },
    expiresIn: 2 * 60 * 60_000,
  },
);

const INPUT_SCHEMA = {
  type: "object",
  properties: { answer: { type: "string", title: "Your answer" } },
  required: ["answer"],
};

const askUser = defineTool<{ question: string }>({
  name: "ask_user",
  description: "Ask the user a question and wait for the answer.",
  inputSchema: z.object({ question: z.string().min(1) }),
  run: ({ question }, ctx) => {
    // Derived from the call id so a retried execution asks the same question.
    const id = ctx.callId ? `inp_${ctx.callId.replace(/[^A-Za-z0-9_-]/g, "_")}` : undefined;
    const ask = {
      kind: "input",
      prompt: question,
      data: { schema: INPUT_SCHEMA },
      ...(id ? { id } : {}),
    };
    if (!ctx.answer) {
      return pending(ask);
    }
    // The loop never re-executes on a refusal; a caller that does gets the refusal back.
    if (!ctx.answer.ok) {
      return declinedResult({ ...ask, id: ctx.answer.id }, ctx.answer.reason);
    }
    const data = ctx.answer.data;
    const answer =
      typeof data === "object" &&
      data !== null &&
      typeof (data as { answer?: unknown }).answer === "string"
        ? (data as { answer: string }).answer
        : typeof data === "string"
          ? data
          : JSON.stringify(data ?? null);
    return `The user answered: ${answer}`;
  },
});

/**
 * 15 minutes, or `DEMO_APPROVAL_TIMEOUT` ("90s", "2m" or milliseconds) to watch an expiry
 * without waiting that long. A malformed value fails the run with an error naming it.
 */
export function demoApprovalTimeout(env: unknown): number {
  const value = (env as { DEMO_APPROVAL_TIMEOUT?: unknown } | undefined)?.DEMO_APPROVAL_TIMEOUT;
  if (value === undefined || value === "") {
    return 15 * 60_000;
  }
  const text = String(value).trim();
  return parseDuration(/^\d+$/.test(text) ? Number(text) : text, "DEMO_APPROVAL_TIMEOUT");
}

/** The demo agent; with no `LLM_BASE_URL` it is driven by `demoSupportModel`. */
export const supportAgent = defineAgent({
  name: "support",
  description:
    "Order support: look up orders, refund (with approval), delete accounts, ask the user.",
  systemPrompt:
    "You are a customer support agent for an online shop. Use lookup_order for order questions, " +
    "refund_order for refunds, delete_account only when the user asks to delete their account, " +
    "and ask_user when you need information from the user. Be brief.",
  tools: [lookupOrder, refundOrder, deleteAccount, askUser],
  approvalTimeout: demoApprovalTimeout,
  demoModel: demoSupportModel,
});
