/**
 * Message contents in the GenAI conventions' JSON shape (`{ role, parts: [...] }`), for
 * `recordContent: true` only. Each attribute is capped: a span is not a transcript store.
 */
import type { Message } from "../types";
import type { ModelTurn } from "../providers/model";

/** Characters per content attribute; longer values end with "…". */
export const CONTENT_LIMIT = 16_384;

type Part =
  | { type: "text"; content: string }
  | { type: "tool_call"; id: string; name: string; arguments: string }
  | { type: "tool_call_response"; id: string; result: string };

export function inputMessages(messages: Message[]): string {
  return capped(
    JSON.stringify(
      messages.map((m) => {
        switch (m.role) {
          case "system":
          case "user":
            return { role: m.role, parts: [{ type: "text", content: m.content }] };
          case "assistant":
            return { role: m.role, parts: assistantParts(m.content, m.toolCalls ?? []) };
          case "tool":
            return {
              role: m.role,
              parts: [{ type: "tool_call_response", id: m.toolCallId, result: m.content }],
            };
          default: {
            const unknown: never = m;
            return unknown;
          }
        }
      }),
    ),
  );
}

export function outputMessages(turn: ModelTurn): string {
  return capped(
    JSON.stringify([
      {
        role: "assistant",
        parts: assistantParts(turn.content, turn.toolCalls),
        finish_reason: turn.finishReason,
      },
    ]),
  );
}

export function capped(text: string): string {
  return text.length > CONTENT_LIMIT ? `${text.slice(0, CONTENT_LIMIT)}…` : text;
}

function assistantParts(
  content: string | null,
  calls: Array<{ id: string; name: string; arguments: string }>,
): Part[] {
  const parts: Part[] = content ? [{ type: "text", content }] : [];
  for (const call of calls) {
    parts.push({ type: "tool_call", id: call.id, name: call.name, arguments: call.arguments });
  }
  return parts;
}
