/**
 * OpenAI chat-completions format as `translate()` accepts it: the lingua franca
 * callers already speak. The openai style sends it verbatim; other styles convert
 * from it. Unknown keys are kept, so nothing a caller adds is lost on the way.
 */
import * as z from "zod";
import type { Message, Tool, ToolCall } from "../types";

const ContentSchema = z
  .union([
    z.string(),
    z.array(z.looseObject({ type: z.string().optional(), text: z.string().optional() })),
  ])
  .nullish();

const ChatToolCallSchema = z.looseObject({
  id: z.string(),
  type: z.string().optional(),
  function: z.looseObject({
    name: z.string(),
    // A JSON string on the wire; an object is accepted too (and serialised where a string is needed).
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
  }),
});

export const ChatMessageSchema = z.discriminatedUnion("role", [
  z.looseObject({ role: z.enum(["system", "developer"]), content: ContentSchema }),
  z.looseObject({ role: z.literal("user"), content: ContentSchema }),
  z.looseObject({
    role: z.literal("assistant"),
    content: ContentSchema,
    tool_calls: z.array(ChatToolCallSchema).nullish(),
  }),
  z.looseObject({ role: z.literal("tool"), tool_call_id: z.string(), content: ContentSchema }),
]);

export const ChatToolSchema = z.looseObject({
  type: z.literal("function"),
  function: z.looseObject({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});

export const ChatToolChoiceSchema = z.union([
  z.enum(["auto", "none", "required"]),
  z.looseObject({
    type: z.literal("function"),
    function: z.looseObject({ name: z.string().min(1) }),
  }),
]);

export type ChatContent = z.infer<typeof ContentSchema>;
export type ChatMessage = z.infer<typeof ChatMessageSchema>;
export type ChatToolCall = z.infer<typeof ChatToolCallSchema>;
export type ChatTool = z.infer<typeof ChatToolSchema>;
export type ChatToolChoice = z.infer<typeof ChatToolChoiceSchema>;

/** One single-turn request in OpenAI chat format, as a style turns it into a body. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools: ChatTool[];
  toolChoice?: ChatToolChoice;
  /** Replaces every system/developer message. */
  system?: string;
  maxTokens?: number;
  /** The client's `requestParams`; explicit fields above win over them. */
  params?: Record<string, unknown>;
}

/**
 * Array contents become text: the text parts joined with nothing between them, as the
 * upstream ports do (a client that splits a sentence across parts gets it back whole).
 * Parts without text (images, audio) have no text form and are left out.
 */
export function flattenContent(content: ChatContent): string {
  if (content == null) {
    return "";
  }
  if (typeof content === "string") {
    return content;
  }
  return content
    .filter((part) => typeof part.text === "string")
    .map((part) => part.text)
    .join("");
}

/** Arguments as the JSON text `ToolCall.arguments` holds. */
export function argumentsText(value: string | Record<string, unknown> | null | undefined): string {
  if (typeof value === "string") {
    return value;
  }
  return JSON.stringify(value ?? {});
}

/** The explicit `system` if given, else the hoisted system/developer messages; `undefined` when there are none. */
export function systemText(request: Pick<ChatRequest, "messages" | "system">): string | undefined {
  if (request.system !== undefined) {
    return request.system;
  }
  const parts = request.messages
    .filter((m) => m.role === "system" || m.role === "developer")
    .map((m) => flattenContent(m.content));
  return parts.length ? parts.join("\n\n") : undefined;
}

/** The provider-neutral view of a chat request (what hooks and in-process models see). */
export function chatToMessages(request: Pick<ChatRequest, "messages" | "system">): Message[] {
  const out: Message[] = [];
  const names = new Map<string, string>();
  const system = systemText(request);
  if (system !== undefined) {
    out.push({ role: "system", content: system });
  }
  for (const m of request.messages) {
    switch (m.role) {
      case "system":
      case "developer":
        break;
      case "user":
        out.push({ role: "user", content: flattenContent(m.content) });
        break;
      case "assistant": {
        const toolCalls: ToolCall[] = (m.tool_calls ?? []).map((c) => ({
          id: c.id,
          name: c.function.name,
          arguments: argumentsText(c.function.arguments),
        }));
        for (const c of toolCalls) {
          names.set(c.id, c.name);
        }
        const text = flattenContent(m.content);
        out.push({
          role: "assistant",
          content: text || null,
          ...(toolCalls.length ? { toolCalls } : {}),
        });
        break;
      }
      case "tool":
        out.push({
          role: "tool",
          toolCallId: m.tool_call_id,
          name: names.get(m.tool_call_id) ?? "",
          content: flattenContent(m.content),
        });
        break;
      default: {
        const never: never = m;
        throw new TypeError(`unknown message role in ${JSON.stringify(never)}`);
      }
    }
  }
  return out;
}

/** A declared tool: its schema reaches the model, and it is never executed here. */
export function declaredTool(tool: ChatTool): Tool {
  const { name, description = "", parameters = { type: "object", properties: {} } } = tool.function;
  return {
    name,
    description,
    inputSchema: parameters,
    source: "declared",
    execute: async () => ({
      output: `${name} is declared only; the caller executes it`,
      isError: true,
    }),
  };
}

/** A `Tool` as an OpenAI function tool (what a hook's replacement tool list becomes). */
export function toolToChat(tool: Tool): ChatTool {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  };
}
