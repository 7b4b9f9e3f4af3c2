/**
 * A run's logged events → AI SDK UI message stream chunks (the `ai` 7 vocabulary that
 * `readUIMessageStream` and `useChat` accept). Pure and stateful per stream: text segments
 * open and close around tool calls, a refused request's call ends `tool-output-denied`
 * (the AI SDK's word for a declined approval) instead of an error output.
 *
 * What a `pending` event becomes depends on who reads the stream (may they decide it?),
 * so the caller asks {@link ChunkTranslator.pending} with the answer.
 */
import type { Request } from "../../../core/types";
import type { LoggedEvent } from "../../protocol";
import type { Waiting } from "../answers";
import { chatSubagentPart } from "../subagents";

export type UiChunk =
  | { type: "start"; messageId?: string }
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string }
  | { type: "text-end"; id: string }
  | { type: "tool-input-available"; toolCallId: string; toolName: string; input: unknown }
  | { type: "tool-output-available"; toolCallId: string; output: unknown }
  | { type: "tool-output-error"; toolCallId: string; errorText: string }
  | { type: "tool-output-denied"; toolCallId: string }
  | {
      type: "tool-approval-request";
      approvalId: string;
      toolCallId: string;
      reason?: string;
      /** `ai` keeps it as the part's `approval.descriptor`: the version of the arguments shown. */
      approvalDescriptor?: { argsHash: string };
    }
  | {
      type: "data-toolnexus-waiting";
      id: string;
      /** `toolCallId`: the tool part it waits for (the part has no approval: none was asked of this reader). */
      data: Waiting & { toolCallId?: string };
    }
  | {
      type: "data-toolnexus-subagent";
      id: string;
      data: { handle: string; name?: string; status: string; requestIds?: string[] };
    }
  | {
      /** `id` is the request's id (a data part is named by its type and id): `data` need not repeat it. */
      type: "data-toolnexus-decision";
      id: string;
      data: { decision: string; channel: string };
    }
  | { type: "finish"; finishReason: "stop" | "length" | "tool-calls" | "error" | "other" }
  | { type: "error"; errorText: string };

/** The assistant message a run's stream builds: one per run, so a replay lands on the same message. */
export function assistantMessageId(runId: string): string {
  return `a-${runId}`;
}

const FINISH_REASONS: Record<string, Extract<UiChunk, { type: "finish" }>["finishReason"]> = {
  done: "stop",
  incomplete: "length",
  cancelled: "other",
  failed: "error",
};

export class ChunkTranslator {
  #text: string | undefined;
  /** Tool calls not answered yet, latest last: an old `pending` event without an id names the latest. */
  readonly #openCalls: string[] = [];
  readonly #callOf = new Map<string, string>();
  readonly #denied = new Set<string>();

  /** Follows events without producing chunks: what came before a continuation's cursor. */
  prime(events: LoggedEvent[]): void {
    for (const event of events) {
      this.event(event);
      if (event.type === "pending") {
        this.#remember(event);
      }
    }
    this.#text = undefined;
  }

  /** The chunks of one event, except `pending` (see {@link pending}). */
  event(event: LoggedEvent): UiChunk[] {
    const data = event.data;
    switch (event.type) {
      case "text":
        return this.#delta(String(data.delta ?? ""), event.id);
      case "tool_call": {
        const id = String(data.id);
        this.#openCalls.push(id);
        return [
          ...this.#closeText(),
          {
            type: "tool-input-available",
            toolCallId: id,
            toolName: String(data.name),
            input: data.args,
          },
        ];
      }
      case "tool_result": {
        const id = String(data.id);
        this.#settle(id);
        if (this.#denied.has(id)) {
          return [];
        }
        return [
          ...this.#closeText(),
          data.isError === true
            ? { type: "tool-output-error", toolCallId: id, errorText: String(data.output) }
            : { type: "tool-output-available", toolCallId: id, output: data.output },
        ];
      }
      case "resumed":
        return this.#resumed(data);
      case "subagent_started":
      case "subagent_finished": {
        const part = chatSubagentPart(event);
        return part ? [...this.#closeText(), part] : [];
      }
      case "done":
        return [
          ...this.#closeText(),
          { type: "finish", finishReason: FINISH_REASONS[String(data.status)] ?? "other" },
        ];
      case "error":
        return data.recoverable === true
          ? []
          : [...this.#closeText(), { type: "error", errorText: String(data.message) }];
      default:
        return [];
    }
  }

  /**
   * A `pending` event: an approval request the reader may answer, or where it waits.
   * Returns the request and its call, for the caller to ask who may decide.
   */
  pending(
    event: LoggedEvent,
    waiting: Waiting | undefined,
    argsHash?: string,
  ): { chunks: UiChunk[]; request: Request; toolCallId: string | undefined } {
    const { request, toolCallId } = this.#remember(event);
    const chunks = this.#closeText();
    if (waiting) {
      chunks.push({
        type: "data-toolnexus-waiting",
        id: request.id,
        data: { ...waiting, ...(toolCallId ? { toolCallId } : {}) },
      });
    } else if (toolCallId) {
      chunks.push({
        type: "tool-approval-request",
        approvalId: request.id,
        toolCallId,
        reason: request.prompt,
        ...(argsHash === undefined || request.kind !== "approval"
          ? {}
          : { approvalDescriptor: { argsHash } }),
      });
    }
    return { chunks, request, toolCallId };
  }

  /** The run halted on requests this reader may answer: the response ends here. */
  halted(): UiChunk[] {
    return [...this.#closeText(), { type: "finish", finishReason: "tool-calls" }];
  }

  callOf(requestId: string): string | undefined {
    return this.#callOf.get(requestId);
  }

  #remember(event: LoggedEvent): { request: Request; toolCallId: string | undefined } {
    const request = event.data.request as Request;
    const toolCallId =
      typeof event.data.id === "string"
        ? event.data.id
        : this.#openCalls[this.#openCalls.length - 1];
    if (toolCallId) {
      this.#callOf.set(request.id, toolCallId);
    }
    return { request, toolCallId };
  }

  #resumed(data: Record<string, unknown>): UiChunk[] {
    if (typeof data.requestId !== "string") {
      return []; // recovered from a checkpoint: nothing the reader needs to see
    }
    const decision = String(data.decision);
    const chunks: UiChunk[] = [
      ...this.#closeText(),
      {
        type: "data-toolnexus-decision",
        id: data.requestId,
        data: { decision, channel: String(data.channel) },
      },
    ];
    const call = this.#callOf.get(data.requestId);
    if (call && decision !== "approve") {
      this.#denied.add(call);
      chunks.push({ type: "tool-output-denied", toolCallId: call });
    }
    return chunks;
  }

  /** A text segment is named by its first event's id: unique in the thread, the same on replay. */
  #delta(delta: string, eventId: number): UiChunk[] {
    if (!delta) {
      return [];
    }
    const chunks: UiChunk[] = [];
    if (this.#text === undefined) {
      this.#text = `t${eventId}`;
      chunks.push({ type: "text-start", id: this.#text });
    }
    chunks.push({ type: "text-delta", id: this.#text, delta });
    return chunks;
  }

  #closeText(): UiChunk[] {
    if (this.#text === undefined) {
      return [];
    }
    const id = this.#text;
    this.#text = undefined;
    return [{ type: "text-end", id }];
  }

  #settle(callId: string): void {
    const at = this.#openCalls.indexOf(callId);
    if (at >= 0) {
      this.#openCalls.splice(at, 1);
    }
  }
}
