/**
 * The starter's source: `<dir>/src/index.ts` (the worker), `<dir>/src/agents.ts` (`desk`, which
 * hands refunds to its sub-agent `billing`, whose refund_order tool waits for a person's
 * approval) and `<dir>/src/demo-models.ts` (offline stand-ins for a model, so `wrangler dev`
 * needs no keys).
 * The starter check (scripts/starter-check.mjs) type-checks and runs exactly this.
 */
export function workerIndex(name: string): string {
  return `/**
 * ${name}: a worker on toolnexus-edge. \`desk\` answers customers and hands refunds to its
 * sub-agent \`billing\`, whose refund_order tool waits for a person's approval (src/agents.ts).
 */
import { createEdge } from "toolnexus-edge";
import { billing, desk } from "./agents";

const edge = createEdge<Env>({
  agents: [desk, billing],
  // The queue names in wrangler.toml (unique per Cloudflare account).
  queues: {
    resume: "${name}-resume",
    notify: "${name}-notify",
    resumeDeadLetter: "${name}-resume-dlq",
    notifyDeadLetter: "${name}-notify-dlq",
  },
  onError: (error, info) => console.error(\`[${name}] \${info.source}\`, info, error),
});

// The Durable Object classes wrangler.toml binds (THREADS, INBOXES, RECEIPTS, …).
export class ThreadObject extends edge.ThreadObject {}
export class InboxObject extends edge.InboxObject {}
export class ReceiptObject extends edge.ReceiptObject {}
export class McpSessionObject extends edge.McpSessionObject {}
export class TokenObject extends edge.TokenObject {}
export default edge.worker;
`;
}

export const WORKER_AGENTS = `/**
 * Two agents. \`desk\` is the one people talk to; its team is \`billing\`, which it calls with
 * the \`task\` tool. Every refund billing makes waits for a person's approval: the run
 * suspends in its Durable Object until a signed decision arrives (POST /v1/decisions).
 * With LLM_BASE_URL (and LLM_STYLE, LLM_MODEL, LLM_API_KEY) in .dev.vars a real model drives
 * both; without, the demo models in src/demo-models.ts do.
 */
import { defineAgent, defineTool, requireApproval } from "toolnexus-edge";
import { billingModel, deskModel } from "./demo-models";

const refundOrder = requireApproval(
  defineTool({
    name: "refund_order",
    description: "Refund an order",
    inputSchema: {
      type: "object",
      properties: { orderId: { type: "string" }, amount: { type: "number" } },
      required: ["orderId", "amount"],
    },
    run: ({ orderId, amount }) => \`Refunded $\${Number(amount)} on order \${String(orderId)}\`,
  }),
  {
    prompt: (args) => \`Refund $\${Number(args.amount)} on order \${String(args.orderId)}?\`,
    expiresIn: 60 * 60 * 1000,
  },
);

/** The sub-agent: refunds orders, each after a person approved it. */
export const billing = defineAgent<Env>({
  name: "billing",
  description: "Refunds orders; each refund waits for a person's approval",
  systemPrompt: "You refund orders with refund_order and report the outcome in one sentence.",
  tools: [refundOrder],
  demoModel: billingModel,
});

/** The agent people talk to: it hands refunds to billing. */
export const desk = defineAgent<Env>({
  name: "desk",
  description: "Answers customers and hands refunds to billing",
  systemPrompt:
    "You answer customers. For a refund, use task with agent billing, then answer in one sentence.",
  tools: [],
  team: ["billing"],
  demoModel: deskModel,
});
`;

export const WORKER_DEMO_MODELS = `/**
 * Offline stand-ins for a model (used when LLM_BASE_URL is not set): pure functions of the
 * transcript, so a run takes the same path every time.
 */
import type { GeneratedMessage, ModelRequest } from "toolnexus-edge";

const REFUND = /refund\\s+\\$?(\\d+(?:\\.\\d+)?)\\s+on\\s+order\\s+#?(\\w+)/i;

/** desk: a refund goes to billing (the task tool); billing's answer becomes the reply. */
export function deskModel(request: ModelRequest): GeneratedMessage {
  const last = request.messages.at(-1);
  if (last?.role === "user") {
    const refund = REFUND.exec(last.content);
    if (!refund) {
      return { content: 'I hand refunds to billing: try "Refund $120 on order 42".' };
    }
    const prompt = \`Refund $\${refund[1]} on order \${refund[2]}\`;
    return {
      content: null,
      toolCalls: [{ id: \`task_\${turnOf(request)}\`, name: "task", arguments: { agent: "billing", prompt } }],
    };
  }
  if (last?.role === "tool") {
    return { content: \`billing says: \${last.content}\` };
  }
  return { content: "How can I help?" };
}

/** billing: asks for the refund (which waits for approval), then reports the outcome. */
export function billingModel(request: ModelRequest): GeneratedMessage {
  const last = request.messages.at(-1);
  if (last?.role === "user") {
    const refund = REFUND.exec(last.content);
    if (!refund) {
      return { content: "Which order, and how much?" };
    }
    const args = { orderId: refund[2], amount: Number(refund[1]) };
    return {
      content: null,
      toolCalls: [{ id: \`refund_\${turnOf(request)}\`, name: "refund_order", arguments: args }],
    };
  }
  if (last?.role === "tool") {
    return { content: last.isError ? \`Not done: \${last.content}\` : last.content };
  }
  return { content: "Which order, and how much?" };
}

function turnOf(request: ModelRequest): number {
  return request.messages.filter((m) => m.role === "assistant").length;
}
`;
