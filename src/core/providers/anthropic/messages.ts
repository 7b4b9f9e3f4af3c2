import type { Message } from "../../types";

export type AnthropicBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "tool_result"; tool_use_id: string; content: string; is_error?: boolean };

export interface AnthropicMessage {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

/** Arguments travel as objects on this wire; text that is not a JSON object becomes `{}`. */
export function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text || "{}");
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/**
 * Converts the neutral transcript. System messages are hoisted into `system`;
 * consecutive tool results (and any user text right after them) merge into one
 * user turn, because the API wants roles to alternate.
 */
export function toAnthropicMessages(messages: Message[]): {
  system?: string;
  messages: AnthropicMessage[];
} {
  const system: string[] = [];
  const out: AnthropicMessage[] = [];
  const push = (role: AnthropicMessage["role"], blocks: AnthropicBlock[]) => {
    const last = out[out.length - 1];
    if (last && last.role === role) {
      last.content.push(...blocks);
    } else {
      out.push({ role, content: blocks });
    }
  };
  for (const m of messages) {
    switch (m.role) {
      case "system":
        system.push(m.content);
        break;
      case "user":
        push("user", [{ type: "text", text: m.content }]);
        break;
      case "assistant": {
        const blocks: AnthropicBlock[] = [];
        if (m.content) {
          blocks.push({ type: "text", text: m.content });
        }
        for (const c of m.toolCalls ?? []) {
          blocks.push({
            type: "tool_use",
            id: c.id,
            name: c.name,
            input: parseArguments(c.arguments),
          });
        }
        // An empty assistant turn is not accepted by the API; keep the slot with an empty text.
        push("assistant", blocks.length ? blocks : [{ type: "text", text: "" }]);
        break;
      }
      case "tool":
        push("user", [
          {
            type: "tool_result",
            tool_use_id: m.toolCallId,
            content: m.content,
            ...(m.isError ? { is_error: true } : {}),
          },
        ]);
        break;
      default: {
        const never: never = m;
        throw new TypeError(`unknown message role in ${JSON.stringify(never)}`);
      }
    }
  }
  return { ...(system.length ? { system: system.join("\n\n") } : {}), messages: out };
}
