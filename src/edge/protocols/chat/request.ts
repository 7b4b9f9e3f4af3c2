/**
 * What `POST /v1/chat/:agent` reads from `DefaultChatTransport`'s body (`{ id, messages,
 * trigger, messageId, … }`). The stored transcript is authoritative: of the client's
 * message list only the new user message (the last message, when it is the user's) and
 * the answers in the latest assistant message are read — approval responses
 * (`approval-responded` tool parts, with the version of the arguments the approval part
 * showed: `approval.descriptor.argsHash`, which `ai` keeps from the stream's
 * `approvalDescriptor`) and tool outputs (`addToolOutput`, the answer to an input
 * request); anything else the client changed in its history is ignored.
 */
import * as z from "zod";
import { MAX_CONVERSATION_ID_CHARS } from "../conversation";
import { editedArgsField } from "../../../core/approvers/edit-fields";

export const MAX_CHAT_BODY_BYTES = 1024 * 1024;

const PartSchema = z.looseObject({ type: z.string().min(1) });

const MessageSchema = z.looseObject({
  id: z.string().max(512),
  role: z.enum(["system", "user", "assistant"]),
  parts: z.array(PartSchema).max(10_000),
});

export const ChatBodySchema = z.looseObject({
  id: z
    .string()
    .min(1, "must not be empty")
    .max(MAX_CONVERSATION_ID_CHARS, `must be at most ${MAX_CONVERSATION_ID_CHARS} characters`),
  messages: z.array(MessageSchema).min(1, "must hold at least the new message").max(10_000),
  trigger: z.enum(["submit-message", "regenerate-message"]).optional(),
  messageId: z.string().max(512).optional(),
  /** Our extension: edited tool input per approval id, sent with an approval (`approved: true`). */
  edits: z.record(z.string(), editedArgsField()).optional(),
});

export type ChatBody = z.infer<typeof ChatBodySchema>;

export interface ApprovalResponse {
  approvalId: string;
  approved: boolean;
  reason?: string;
  /** The version of the arguments the approval part showed (`approval.descriptor.argsHash`). */
  argsHash?: string;
  /** Where in the body, for error messages. */
  path: string;
}

export interface ToolOutput {
  toolCallId: string;
  output: unknown;
}

export interface ChatTurn {
  /** The new user message, when the list ends with one. */
  user?: { messageId: string; text: string };
  responses: ApprovalResponse[];
  outputs: ToolOutput[];
}

/** Thrown for a body the schema let through but that says nothing coherent. */
export class ChatTurnError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

const isToolPart = (type: string) => type.startsWith("tool-") || type === "dynamic-tool";

export function readChatTurn(body: ChatBody): ChatTurn {
  const turn: ChatTurn = { responses: [], outputs: [] };
  const lastIndex = body.messages.length - 1;
  const last = body.messages[lastIndex];
  if (last?.role === "user") {
    const text = last.parts
      .filter((p) => p.type === "text")
      .map((p) => (typeof p.text === "string" ? p.text : ""))
      .join("\n")
      .trim();
    if (!text) {
      throw new ChatTurnError("the new user message has no text", `messages[${lastIndex}].parts`);
    }
    turn.user = { messageId: last.id, text };
  }
  const assistantIndex = body.messages.findLastIndex((m) => m.role === "assistant");
  const assistant = body.messages[assistantIndex];
  for (const [n, part] of (assistant?.parts ?? []).entries()) {
    if (!isToolPart(part.type)) {
      continue;
    }
    const path = `messages[${assistantIndex}].parts[${n}]`;
    if (part.state === "approval-responded") {
      const approval = part.approval as Record<string, unknown> | undefined;
      if (
        typeof approval?.id !== "string" ||
        typeof approval.approved !== "boolean" ||
        (approval.reason !== undefined && typeof approval.reason !== "string")
      ) {
        throw new ChatTurnError(
          "an approval-responded part needs approval { id: string, approved: boolean, reason?: string }",
          `${path}.approval`,
        );
      }
      const descriptor = approval.descriptor as { argsHash?: unknown } | undefined;
      const shown = typeof descriptor?.argsHash === "string" ? descriptor.argsHash : undefined;
      turn.responses.push({
        approvalId: approval.id,
        approved: approval.approved,
        ...(shown === undefined ? {} : { argsHash: shown }),
        ...(typeof approval.reason === "string" && approval.reason
          ? { reason: approval.reason }
          : {}),
        path,
      });
    } else if (part.state === "output-available" && typeof part.toolCallId === "string") {
      turn.outputs.push({ toolCallId: part.toolCallId, output: part.output });
    }
  }
  return turn;
}
