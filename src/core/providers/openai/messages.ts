import type { Message } from "../../types";

export type OpenAIMessage =
  | { role: "system" | "user"; content: string }
  | {
      role: "assistant";
      content: string | null;
      tool_calls?: Array<{
        id: string;
        type: "function";
        function: { name: string; arguments: string };
      }>;
    }
  | { role: "tool"; tool_call_id: string; content: string };

export function toOpenAIMessages(messages: Message[]): OpenAIMessage[] {
  return messages.map((m): OpenAIMessage => {
    switch (m.role) {
      case "system":
      case "user":
        return { role: m.role, content: m.content };
      case "assistant":
        return m.toolCalls?.length
          ? {
              role: "assistant",
              content: m.content,
              tool_calls: m.toolCalls.map((c) => ({
                id: c.id,
                type: "function",
                function: { name: c.name, arguments: c.arguments },
              })),
            }
          : { role: "assistant", content: m.content ?? "" };
      case "tool":
        return { role: "tool", tool_call_id: m.toolCallId, content: m.content };
      default: {
        const never: never = m;
        throw new TypeError(`unknown message role in ${JSON.stringify(never)}`);
      }
    }
  });
}
