/**
 * `translate()`: one provider call for a caller that runs its own loop. OpenAI-format
 * messages and tools in; one assistant reply out, in OpenAI terms. No loop, no tool
 * execution, no state: a toolkit given here is only declared to the model.
 */
import * as z from "zod";
import type { Tool, Usage } from "../types";
import type { Toolkit } from "../toolkit";
import type { Hooks } from "../hooks";
import type { ModelRequest, ModelTurn } from "../providers/model";
import { toOpenAIMessages } from "../providers/openai/messages";
import {
  ChatMessageSchema,
  ChatToolChoiceSchema,
  ChatToolSchema,
  chatToMessages,
  declaredTool,
  toolToChat,
  type ChatMessage,
  type ChatRequest,
  type ChatTool,
  type ChatToolChoice,
} from "../providers/chat";

export type { ChatMessage, ChatTool, ChatToolChoice };

export interface TranslateRequest {
  /** OpenAI chat messages; `tool_calls[].function.arguments` may be a JSON string or an object. */
  messages: ChatMessage[];
  /** OpenAI function tools, declared to the model as given. */
  tools?: ChatTool[];
  /** Declared too (its tools' schemas); never executed. A tool in `tools` wins over a toolkit tool of the same name. */
  toolkit?: Toolkit;
  toolChoice?: ChatToolChoice;
  /** Replaces every system/developer message. */
  system?: string;
  maxTokens?: number;
  signal?: AbortSignal;
}

export interface TranslateResult {
  text: string;
  /** In the order the provider gave them; `arguments` is JSON text. */
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  /** Any tool call ⇒ "tool_calls"; otherwise "length", "content_filter" or "stop". */
  finishReason: "stop" | "tool_calls" | "length" | "content_filter";
  usage: Usage;
  model: string;
  /** The provider's reply as it came (wire clients only). */
  raw?: unknown;
}

/** How a client produces the one turn: the chat request for a wire, the neutral one for an in-process model. */
export type TranslateSend = (
  chat: ChatRequest,
  neutral: ModelRequest,
  signal: AbortSignal | undefined,
) => Promise<ModelTurn>;

const InputSchema = z.object({
  messages: z.array(ChatMessageSchema),
  tools: z.array(ChatToolSchema).optional(),
  toolChoice: ChatToolChoiceSchema.optional(),
  system: z.string().optional(),
  maxTokens: z.number().int().positive().optional(),
});

/** Checks the shape first: a bad request names the field and never reaches the provider. */
function validate(input: TranslateRequest): void {
  const checked = InputSchema.safeParse(input);
  if (checked.success) {
    return;
  }
  const issue = checked.error.issues[0];
  const where =
    issue?.path
      .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
      .join("")
      .replace(/^\./, "") || "request";
  throw new TypeError(`translate: ${where}: ${issue?.message ?? "invalid"}`);
}

export async function translateOnce(
  config: {
    model: string;
    hooks: Hooks;
    requestParams?: Record<string, unknown>;
    send: TranslateSend;
  },
  input: TranslateRequest,
  signal: AbortSignal | undefined,
): Promise<TranslateResult> {
  validate(input);
  const declared = new Set((input.tools ?? []).map((t) => t.function.name));
  const kit = (input.toolkit?.tools() ?? []).filter((t) => !declared.has(t.name));
  const chat: ChatRequest = {
    model: config.model,
    messages: input.messages,
    tools: [...(input.tools ?? []), ...kit.map(toolToChat)],
    ...(input.toolChoice === undefined ? {} : { toolChoice: input.toolChoice }),
    ...(input.system === undefined ? {} : { system: input.system }),
    ...(input.maxTokens === undefined ? {} : { maxTokens: input.maxTokens }),
    ...(config.requestParams ? { params: config.requestParams } : {}),
  };

  // Hooks see the neutral transcript; what they replace is sent in its place.
  let messages = chatToMessages(chat);
  let tools: Tool[] = [...(input.tools ?? []).map(declaredTool), ...kit];
  const changed = await config.hooks.beforeLLM?.({ messages, tools, model: config.model, turn: 0 });
  if (changed?.messages) {
    messages = changed.messages;
    chat.messages = toOpenAIMessages(messages);
    delete chat.system; // already applied to the view the hook rewrote
  }
  if (changed?.tools) {
    tools = changed.tools;
    chat.tools = tools.map(toolToChat);
  }

  const params = {
    ...chat.params,
    ...(chat.maxTokens === undefined ? {} : { max_tokens: chat.maxTokens }),
    ...(chat.toolChoice === undefined ? {} : { tool_choice: chat.toolChoice }),
  };
  const turn = await config.send(chat, { model: config.model, messages, tools, params }, signal);
  await config.hooks.afterLLM?.({ response: turn, model: config.model, turn: 0 });
  return {
    text: turn.content ?? "",
    toolCalls: turn.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
    finishReason: translateFinish(turn),
    usage: turn.usage,
    model: turn.model,
    ...(turn.raw === undefined ? {} : { raw: turn.raw }),
  };
}

function translateFinish(turn: ModelTurn): TranslateResult["finishReason"] {
  if (turn.toolCalls.length) {
    return "tool_calls";
  }
  switch (turn.finishReason) {
    case "length":
      return "length";
    case "content_filter":
      return "content_filter";
    default:
      return "stop";
  }
}
