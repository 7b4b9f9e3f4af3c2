/**
 * A worker of your own: one agent whose `close_account` tool needs a person's approval.
 * With LLM_BASE_URL (and LLM_STYLE, LLM_MODEL, LLM_API_KEY) set, a real model drives it;
 * without, the small deterministic `demoModel` below does, so `wrangler dev` works offline.
 */
import {
  createEdge,
  defineAgent,
  defineTool,
  requireApproval,
  type GeneratedMessage,
  type ModelRequest,
} from "toolnexus-edge";

const lookupAccount = defineTool({
  name: "lookup_account",
  description: "Look up an account by email",
  inputSchema: {
    type: "object",
    properties: { email: { type: "string" } },
    required: ["email"],
  },
  run: ({ email }) => JSON.stringify({ email, plan: "pro", openInvoices: 0 }),
});

const closeAccount = requireApproval(
  defineTool({
    name: "close_account",
    description: "Close an account for good",
    inputSchema: {
      type: "object",
      properties: { email: { type: "string" } },
      required: ["email"],
    },
    run: ({ email }) => `Account ${String(email)} closed.`,
  }),
  { prompt: (args) => `Close the account of ${String(args.email)}?`, expiresIn: 60 * 60 * 1000 },
);

/** Offline stand-in for an LLM: asks to close the account named in the message, then reports. */
function demoModel(request: ModelRequest): GeneratedMessage {
  const last = request.messages.at(-1);
  if (last?.role === "user") {
    const email = /[\w.+-]+@[\w.-]+/.exec(last.content)?.[0] ?? "unknown@example.com";
    const turn = request.messages.filter((m) => m.role === "assistant").length;
    return {
      content: null,
      toolCalls: [{ id: `call_${turn}`, name: "close_account", arguments: { email } }],
    };
  }
  if (last?.role === "tool") {
    return { content: last.isError ? `Not done: ${last.content}` : last.content };
  }
  return { content: "Tell me which account to close." };
}

const accounts = defineAgent<Env>({
  name: "accounts",
  description: "Closes customer accounts, with a person's approval",
  systemPrompt: "You manage customer accounts. Closing one needs approval.",
  tools: [lookupAccount, closeAccount],
  demoModel,
  approvalTimeout: 24 * 60 * 60 * 1000,
});

const edge = createEdge<Env>({
  agents: [accounts],
  // The names in wrangler.toml (queue names are unique per Cloudflare account).
  queues: {
    resume: "my-agents-resume",
    notify: "my-agents-notify",
    resumeDeadLetter: "my-agents-resume-dlq",
    notifyDeadLetter: "my-agents-notify-dlq",
  },
  onError: (error, info) => console.error(`[my-agents] ${info.source}`, info, error),
});

export class ThreadObject extends edge.ThreadObject {}
export class InboxObject extends edge.InboxObject {}
export class ReceiptObject extends edge.ReceiptObject {}
export class McpSessionObject extends edge.McpSessionObject {}
export class TokenObject extends edge.TokenObject {}
export default edge.worker;
