/**
 * A conversation as AI SDK UI messages, rebuilt from the thread's runs: each run is the
 * user's message and the assistant message its event log streams (the same chunks, folded
 * the way the AI SDK client folds them). The active run contributes its user message
 * only: its answer is the resumable stream, so a reopened page does not show it twice.
 */
import type { LoggedEvent, ThreadRpc } from "../../protocol";
import { assistantMessageId, ChunkTranslator, type UiChunk } from "./chunks";
import { unpack } from "../../packed";

export interface UiPart {
  type: string;
  [key: string]: unknown;
}

export interface UiMessage {
  id: string;
  role: "user" | "assistant";
  parts: UiPart[];
}

export async function conversationMessages(stub: ThreadRpc): Promise<UiMessage[]> {
  const messages: UiMessage[] = [];
  for (const run of await stub.runs()) {
    const chat = (run.metadata as { chat?: { messageId?: unknown } } | null)?.chat;
    messages.push({
      id: typeof chat?.messageId === "string" ? chat.messageId : `u-${run.runId}`,
      role: "user",
      parts: [{ type: "text", text: run.input }],
    });
    if (run.status !== "running" && run.status !== "pending") {
      messages.push({
        id: assistantMessageId(run.runId),
        role: "assistant",
        parts: foldChunks(chunksOf(await unpack(await stub.runEvents(run.runId)))),
      });
    }
  }
  return messages;
}

/** Every chunk a finished run's log streams, each request shown as an approval request. */
export function chunksOf(events: LoggedEvent[]): UiChunk[] {
  const translator = new ChunkTranslator();
  return events.flatMap((event) =>
    event.type === "pending"
      ? translator.pending(event, undefined).chunks
      : translator.event(event),
  );
}

/** Chunks → message parts, as the AI SDK client builds them (tool parts updated in place). */
export function foldChunks(chunks: UiChunk[]): UiPart[] {
  const parts: UiPart[] = [];
  const text = new Map<string, UiPart>();
  const tools = new Map<string, UiPart>();
  const byApproval = new Map<string, UiPart>();
  for (const chunk of chunks) {
    switch (chunk.type) {
      case "text-start": {
        const part: UiPart = { type: "text", text: "", state: "streaming" };
        text.set(chunk.id, part);
        parts.push(part);
        break;
      }
      case "text-delta": {
        const part = text.get(chunk.id);
        if (part) {
          part.text = `${String(part.text)}${chunk.delta}`;
        }
        break;
      }
      case "text-end": {
        const part = text.get(chunk.id);
        if (part) {
          part.state = "done";
        }
        break;
      }
      case "tool-input-available": {
        const part: UiPart = {
          type: `tool-${chunk.toolName}`,
          toolCallId: chunk.toolCallId,
          state: "input-available",
          input: chunk.input,
        };
        tools.set(chunk.toolCallId, part);
        parts.push(part);
        break;
      }
      case "tool-approval-request": {
        const part = tools.get(chunk.toolCallId);
        if (part) {
          part.state = "approval-requested";
          part.approval = {
            id: chunk.approvalId,
            ...(chunk.approvalDescriptor ? { descriptor: chunk.approvalDescriptor } : {}),
          };
          byApproval.set(chunk.approvalId, part);
        }
        break;
      }
      case "data-toolnexus-decision": {
        const part = byApproval.get(chunk.id);
        if (part) {
          part.state = "approval-responded";
          part.approval = { id: chunk.id, approved: chunk.data.decision === "approve" };
        }
        parts.push({ type: chunk.type, id: chunk.id, data: chunk.data });
        break;
      }
      case "tool-output-available":
        Object.assign(tools.get(chunk.toolCallId) ?? {}, {
          state: "output-available",
          output: chunk.output,
        });
        break;
      case "tool-output-error":
        Object.assign(tools.get(chunk.toolCallId) ?? {}, {
          state: "output-error",
          errorText: chunk.errorText,
        });
        break;
      case "tool-output-denied":
        Object.assign(tools.get(chunk.toolCallId) ?? {}, { state: "output-denied" });
        break;
      case "data-toolnexus-waiting":
      case "data-toolnexus-subagent": {
        // A data part with an id is updated in place, as the AI SDK client does.
        const same = parts.find((p) => p.type === chunk.type && p.id === chunk.id);
        if (same) {
          same.data = chunk.data;
        } else {
          parts.push({ type: chunk.type, id: chunk.id, data: chunk.data });
        }
        break;
      }
      default:
        break;
    }
  }
  return parts;
}
