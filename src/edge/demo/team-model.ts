/**
 * The offline "model" of the demo `coordinator` (src/edge/demo/team.ts): a pure function of
 * the transcript. A refund request fans out to both team members in one turn (`lookup`
 * reads the order while `refunds` asks for the refund's approval); an order question goes
 * to `lookup` alone; the tool results come back as one final text. When what it is sent
 * starts with a compactor's summary, it says so, so a reader (and a test) can see that the
 * model got a compacted transcript while the stored one stayed whole.
 */
import type { Message } from "../../core/types";
import type { GeneratedMessage } from "../../core/client";
import type { ModelRequest } from "../../core/providers/model";
import { SUMMARY_PREFIX } from "../../core/compaction";

type ToolMessage = Extract<Message, { role: "tool" }>;

export const COMPACTED_NOTE = "(I was sent a summary of the earlier conversation.)";

export function demoCoordinatorModel(request: ModelRequest): GeneratedMessage {
  const { messages } = request;
  const compacted = messages.some(
    (m) => m.role === "system" && (m.content ?? "").startsWith(SUMMARY_PREFIX),
  );
  const note = compacted ? `${COMPACTED_NOTE} ` : "";
  const noteAlone = compacted ? COMPACTED_NOTE : null;
  const last = messages[messages.length - 1];
  let content: string | null = null;
  let calls: Array<{ agent: string; prompt: string }> = [];
  if (last?.role === "tool") {
    content = `${note}${finalText(messages)}`;
  } else if (last?.role === "user") {
    calls = delegate(last.content);
    content = calls.length
      ? noteAlone
      : `${note}I route order questions and refunds: try "refund $1200 on order 42".`;
  } else {
    content = "I route order questions and refunds.";
  }
  const turn = messages.filter((m) => m.role === "assistant").length;
  const tag = shortHash(JSON.stringify(messages));
  const toolCalls = calls.map((c, n) => ({
    id: `task_${turn}_${n}_${tag}`,
    name: "task",
    arguments: JSON.stringify(c),
  }));
  const promptTokens = Math.max(1, Math.round(JSON.stringify(messages).length / 4));
  const completionTokens = Math.max(
    1,
    Math.round(((content ?? "").length + JSON.stringify(toolCalls).length) / 4),
  );
  return {
    content,
    ...(toolCalls.length ? { toolCalls } : {}),
    usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
  };
}

function delegate(text: string): Array<{ agent: string; prompt: string }> {
  const t = text.toLowerCase();
  const orderId = /(?:\border\s*#?\s*|#)(\d+)\b/.exec(t)?.[1];
  if (!orderId) {
    return [];
  }
  const amount = /\$\s*(\d[\d,]*(?:\.\d+)?)/.exec(t)?.[1]?.replace(/,/g, "");
  const lookup = { agent: "lookup", prompt: `Where is order ${orderId}?` };
  if (/\brefund/.test(t) && amount) {
    return [lookup, { agent: "refunds", prompt: `Refund $${amount} on order ${orderId}` }];
  }
  return [lookup];
}

/** One line per delegated task, from what each sub-agent returned. */
function finalText(messages: Message[]): string {
  let index = messages.length - 1;
  while (index >= 0 && messages[index]?.role === "tool") {
    index -= 1;
  }
  const results = messages.slice(index + 1) as ToolMessage[];
  return results
    .map((r) => (r.isError ? `A sub-agent could not finish: ${r.content}` : r.content))
    .join(" ");
}

function shortHash(text: string): string {
  let hash = 5381;
  for (let i = 0; i < text.length; i += 1) {
    hash = ((hash << 5) + hash + text.charCodeAt(i)) | 0;
  }
  return (hash >>> 0).toString(36);
}
