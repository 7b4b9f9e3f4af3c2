/**
 * The built-in offline "model" of the demo `support` agent: a pure, deterministic
 * function of the transcript, so `wrangler dev` and tests run without an LLM.
 */
import type { Message, ToolCall } from "../../core/types";
import type { GeneratedMessage } from "../../core/client";
import type { ModelRequest } from "../../core/providers/model";
import { reasonOf } from "../approvals/refusal";

type ToolMessage = Extract<Message, { role: "tool" }>;
type Call = { name: string; arguments: Record<string, unknown> };

const HELP =
  'I can look up an order ("where is order 42"), refund an order ("refund $20 on order 42"), ' +
  "delete your account, or update your shipping address.";

/**
 * Reacts to the last user message by calling one tool (or answering in text), and to
 * tool results with a final text that differs per outcome (done, declined, expired, policy, error).
 * @example createInProcessClient({ model: "demo", generate: demoSupportModel })
 */
export function demoSupportModel(request: ModelRequest): GeneratedMessage {
  const { messages } = request;
  const last = messages[messages.length - 1];
  let reply: { content: string | null; calls: Call[] };
  if (last?.role === "tool") {
    reply = { content: summarize(messages), calls: [] };
  } else if (last?.role === "user") {
    reply = understand(last.content, (name) => request.tools.some((t) => t.name === name));
  } else {
    reply = { content: HELP, calls: [] };
  }

  // Ids are unique within a transcript (the turn index grows) and differ across transcripts (the hash).
  const turn = messages.filter((m) => m.role === "assistant").length;
  const tag = fnv1a(JSON.stringify(messages));
  const toolCalls = reply.calls.map((c, n) => ({
    id: `call_${turn}_${n}_${tag}`,
    name: c.name,
    arguments: JSON.stringify(c.arguments),
  }));

  const promptChars = messages.reduce((sum, m) => sum + charsOf(m), 0);
  const completionChars =
    (reply.content ?? "").length +
    toolCalls.reduce((sum, c) => sum + c.name.length + c.arguments.length, 0);
  const promptTokens = Math.max(1, Math.round(promptChars / 4));
  const completionTokens = Math.max(1, Math.round(completionChars / 4));
  return {
    content: reply.content,
    ...(toolCalls.length ? { toolCalls } : {}),
    usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
  };
}

/** Intent from English text. Order: delete account, refund, address, order lookup, shipping, help. */
function understand(
  text: string,
  available: (name: string) => boolean,
): { content: string | null; calls: Call[] } {
  const t = text.toLowerCase();
  const call = (name: string, args: Record<string, unknown>) =>
    available(name)
      ? { content: null, calls: [{ name, arguments: args }] }
      : { content: HELP, calls: [] };
  const orderId = /(?:\border\s*(?:number|no\.?|id)?\s*[#:]?\s*|#)(\d+)\b/.exec(t)?.[1];

  if (/\bdelete\b/.test(t) && /\baccount\b/.test(t)) {
    return call("delete_account", {});
  }
  if (/\brefund/.test(t)) {
    const amount = parseAmount(t);
    if (!orderId) {
      return {
        content: "Which order should I refund? Please give the order number (e.g. order 42).",
        calls: [],
      };
    }
    if (amount === undefined) {
      return { content: `Which amount should I refund on order ${orderId}?`, calls: [] };
    }
    return call("refund_order", { orderId, amount });
  }
  if (/\baddress\b|\bask me\b/.test(t)) {
    return call("ask_user", { question: "What is your new shipping address?" });
  }
  const anyNumber = orderId ?? /\b(\d+)\b/.exec(t)?.[1];
  if (/\border\b|\bstatus\b|\bwhere(?: is|'s)\b/.test(t) && anyNumber) {
    return call("lookup_order", { orderId: anyNumber });
  }
  if (/\bshipping\b/.test(t)) {
    return call("ask_user", { question: "What is your new shipping address?" });
  }
  return { content: HELP, calls: [] };
}

function parseAmount(t: string): number | undefined {
  const match =
    /\$\s*(\d[\d,]*(?:\.\d+)?)/.exec(t) ??
    /(\d[\d,]*(?:\.\d+)?)\s*(?:dollars?|usd|bucks)\b/.exec(t) ??
    /\bamount\s*(?:of|:|=)?\s*\$?\s*(\d[\d,]*(?:\.\d+)?)/.exec(t);
  const value = match?.[1] ? Number(match[1].replace(/,/g, "")) : NaN;
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

/** The final text for the tool results that follow the last assistant message. */
function summarize(messages: Message[]): string {
  let index = messages.length - 1;
  while (index >= 0 && messages[index]?.role === "tool") {
    index -= 1;
  }
  const assistant = messages[index];
  const calls = assistant?.role === "assistant" ? (assistant.toolCalls ?? []) : [];
  const results = messages.slice(index + 1) as ToolMessage[];
  return results
    .map((r) => outcome(r, argsOf(calls.find((c) => c.id === r.toolCallId))))
    .join("\n");
}

/** Reads only what a real model gets over the wire: the tool message's text and error flag. */
function outcome(result: ToolMessage, args: Record<string, unknown>): string {
  const refused = result.content.startsWith("declined/expired: ");
  if (!result.isError) {
    const edited = /^the approver changed the arguments to (.*)\n([\s\S]*)$/.exec(result.content);
    if (edited) {
      return `Done, with the approver's changes (${edited[1]}): ${edited[2]}`;
    }
    const migrated =
      /^the arguments were migrated to the tool's current version: (.*)\n([\s\S]*)$/.exec(
        result.content,
      );
    if (migrated) {
      return `Done, with the arguments migrated to the tool's current version (${migrated[1]}): ${migrated[2]}`;
    }
    return result.name === "lookup_order" ? reportOrder(result.content) : `Done: ${result.content}`;
  }
  if (!refused) {
    return `Something went wrong: ${result.content}`;
  }
  const what = action(result.name, args);
  const reason = reasonOf(result.content) ?? "declined";
  if (reason === "expired") {
    return `The approval request expired, so I did not ${what}.`;
  }
  if (reason.startsWith("policy:")) {
    return `A policy blocked this: ${reason.slice("policy:".length).trim()}. I did not ${what}.`;
  }
  const how = reason === "declined" || reason === "cancelled" ? reason : `declined (${reason})`;
  return `Understood — I did not ${what} because it was ${how}.`;
}

function action(tool: string, args: Record<string, unknown>): string {
  switch (tool) {
    case "refund_order":
      return `refund $${String(args.amount)} on order ${String(args.orderId)}`;
    case "delete_account":
      return "delete your account";
    case "lookup_order":
      return `look up order ${String(args.orderId)}`;
    case "ask_user":
      return "record an answer";
    default:
      return `run ${tool}`;
  }
}

function reportOrder(output: string): string {
  try {
    const order = JSON.parse(output) as {
      orderId: string;
      status: string;
      items: Array<{ name: string; quantity: number }>;
      total: number;
    };
    const items = order.items.map((i) => `${i.quantity} × ${i.name}`).join(", ");
    return `Order ${order.orderId} is ${order.status}: ${items} (total $${order.total.toFixed(2)}).`;
  } catch {
    return `Done: ${output}`;
  }
}

function argsOf(call: ToolCall | undefined): Record<string, unknown> {
  try {
    const parsed: unknown = call ? JSON.parse(call.arguments) : {};
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function charsOf(message: Message): number {
  const calls = message.role === "assistant" ? (message.toolCalls ?? []) : [];
  return (
    (message.content ?? "").length +
    calls.reduce((sum, c) => sum + c.name.length + c.arguments.length, 0)
  );
}

/** A short, stable hash (FNV-1a, 32 bit) in base 36. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  }
  return (hash >>> 0).toString(36);
}
