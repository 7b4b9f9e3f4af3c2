/**
 * A run's logged events → AG-UI 1.0 events (`@ag-ui/core` types). Pure and stateful per
 * stream, like the chat's chunk translator: text segments open and close around tool calls;
 * decisions and waits, which AG-UI has no event for, go out as `CUSTOM` events named
 * `toolnexus.decision` and `toolnexus.waiting`. The run's end is the caller's: a halt
 * becomes `RUN_FINISHED` with an interrupt outcome ({@link interruptOf}).
 *
 * Text and tool calls use AG-UI's chunked form (`TEXT_MESSAGE_CHUNK`, `TOOL_CALL_CHUNK`),
 * which every consumer must expand into START / CONTENT / END (spec 1.0, "Streaming
 * Messages"): a segment's first chunk names it, later ones continue it without an id, and
 * the END is the consumer's to synthesize when the next event of another kind arrives.
 * A logged tool call is complete, so it is one chunk; the triad cost three frames for it.
 */
import { EventType, type BaseEvent, type Interrupt } from "@ag-ui/core";
import type { Request } from "../../../core/types";
import type { LoggedEvent } from "../../protocol";
import type { Waiting } from "../answers";
import { agUiSubagentEvent, handleOf } from "../subagents";
import { childPathOf } from "../../agents/asked-by";

/** The schema of a resolved approval's payload, as interrupts advertise it. */
export const APPROVAL_PAYLOAD_SCHEMA = {
  type: "object",
  properties: {
    approved: { type: "boolean" },
    reason: { type: "string" },
    editedArgs: { type: "object" },
    argsHash: { type: "string" },
  },
  required: ["approved"],
  additionalProperties: false,
};

export type AgUiEvent = BaseEvent & Record<string, unknown>;

export interface RunIds {
  threadId: string;
  runId: string;
}

export class AgUiTranslator {
  /** The open text segment (its message id) and who writes it (a child's handle, or the run). */
  #text: { id: string; owner: string | undefined } | undefined;
  readonly #openCalls: string[] = [];
  readonly #callOf = new Map<string, string>();

  constructor(private readonly ids: RunIds) {}

  prime(events: LoggedEvent[]): void {
    for (const event of events) {
      if (event.type === "pending") {
        this.pending(event, undefined);
      } else {
        this.event(event);
      }
    }
    this.#text = undefined;
  }

  started(state: unknown): AgUiEvent[] {
    const events: AgUiEvent[] = [{ type: EventType.RUN_STARTED, ...this.ids }];
    if (state !== undefined && state !== null) {
      events.push({ type: EventType.STATE_SNAPSHOT, snapshot: state });
    }
    return events;
  }

  /** One event's AG-UI events; a child's carry its handle as `subagentRunId` (src/edge/protocols/subagents.ts). */
  event(event: LoggedEvent): AgUiEvent[] {
    const handle = handleOf(event);
    const events = this.#eventOf(event, handle);
    return handle ? events.map((e) => ({ subagentRunId: handle, ...e })) : events;
  }

  #eventOf(event: LoggedEvent, handle: string | undefined): AgUiEvent[] {
    const data = event.data;
    switch (event.type) {
      case "text":
        return this.#delta(String(data.delta ?? ""), event.id, handle);
      case "tool_call": {
        const id = String(data.id);
        this.#openCalls.push(id);
        return [
          ...this.#closeText(),
          {
            type: EventType.TOOL_CALL_CHUNK,
            toolCallId: id,
            toolCallName: String(data.name),
            delta: JSON.stringify(data.args ?? {}),
          },
        ];
      }
      case "tool_result": {
        const id = String(data.id);
        const at = this.#openCalls.indexOf(id);
        if (at >= 0) {
          this.#openCalls.splice(at, 1);
        }
        return [
          ...this.#closeText(),
          {
            type: EventType.TOOL_CALL_RESULT,
            messageId: `r${event.id}`,
            toolCallId: id,
            content: String(data.output),
            ...(data.isError === true ? { metadata: { toolnexus: { isError: true } } } : {}),
          },
        ];
      }
      case "resumed":
        return typeof data.requestId === "string"
          ? [
              ...this.#closeText(),
              {
                type: EventType.CUSTOM,
                name: "toolnexus.decision",
                value: {
                  requestId: data.requestId,
                  decision: data.decision,
                  channel: data.channel,
                },
              },
            ]
          : [];
      case "subagent_started":
      case "subagent_finished":
        return [...this.#closeText(), ...(agUiSubagentEvent(event) as AgUiEvent[])];
      case "done":
        return [...this.#closeText(), ...this.#finished(data)];
      case "error":
        return data.recoverable === true ? [] : [...this.#closeText(), runErrorEvent(data)];
      default:
        return [];
    }
  }

  /** A suspension: nothing to show yet when the reader may answer it (the interrupt will), else where it waits. */
  pending(event: LoggedEvent, waiting: Waiting | undefined): AgUiEvent[] {
    const request = event.data.request as Request;
    const call =
      typeof event.data.id === "string"
        ? event.data.id
        : this.#openCalls[this.#openCalls.length - 1];
    if (call) {
      this.#callOf.set(request.id, call);
    }
    return waiting
      ? [
          ...this.#closeText(),
          { type: EventType.CUSTOM, name: "toolnexus.waiting", value: waiting },
        ]
      : [];
  }

  /** The run halted on `interrupts`: the AG-UI run ends, paused. */
  interrupted(interrupts: Interrupt[]): AgUiEvent[] {
    return [
      ...this.#closeText(),
      { type: EventType.RUN_FINISHED, ...this.ids, outcome: { type: "interrupt", interrupts } },
    ];
  }

  /**
   * One open request as an interrupt: approvals take `{ approved, reason?, editedArgs?,
   * argsHash? }` (their `metadata.argsHash` is the version of the arguments shown, which an
   * approval may echo so that a stale one is refused), inputs their schema.
   */
  interruptOf(request: Request, expiresAt: string | null, argsHash?: string): Interrupt {
    const schema = request.data?.schema;
    const toolCallId = this.#callOf.get(request.id);
    const expiry = expiresAt ?? request.expiresAt;
    // The sub-agent whose subtree asked: `data.path` (segments, or an older run's string).
    const handle = childPathOf(request.data?.path);
    return {
      id: request.id,
      reason: request.kind === "approval" ? "tool_approval" : request.kind,
      message: request.prompt,
      ...(toolCallId ? { toolCallId } : {}),
      responseSchema:
        request.kind === "approval" || typeof schema !== "object" || schema === null
          ? APPROVAL_PAYLOAD_SCHEMA
          : (schema as Record<string, unknown>),
      ...(expiry ? { expiresAt: expiry } : {}),
      ...(argsHash && request.kind === "approval" ? { metadata: { argsHash } } : {}),
      ...(handle ? { subagentRunId: handle } : {}),
    };
  }

  #finished(data: Record<string, unknown>): AgUiEvent[] {
    const status = String(data.status);
    if (status === "failed") {
      return [{ type: EventType.RUN_ERROR, message: String(data.error ?? "run failed") }];
    }
    const usage = data.usage as
      | { promptTokens?: number; completionTokens?: number; totalTokens?: number }
      | undefined;
    return [
      {
        type: EventType.RUN_FINISHED,
        ...this.ids,
        // No outcome is the success outcome (the spec's own equivalence): only a cancel says so.
        ...(status === "cancelled" ? { outcome: { type: "cancelled" } } : {}),
        ...(status === "incomplete" ? { result: { status, limit: data.limit ?? null } } : {}),
        ...(usage
          ? {
              usage: [
                {
                  inputTokens: usage.promptTokens ?? 0,
                  outputTokens: usage.completionTokens ?? 0,
                  totalTokens: usage.totalTokens ?? 0,
                },
              ],
            }
          : {}),
      },
    ];
  }

  /**
   * Message ids come from event ids: unique in the thread, the same on replay. The first
   * chunk of a segment names it (its role is the default, `assistant`); the rest continue it.
   */
  #delta(delta: string, eventId: number, owner: string | undefined): AgUiEvent[] {
    if (!delta) {
      return [];
    }
    if (this.#text !== undefined && this.#text.owner === owner) {
      return [{ type: EventType.TEXT_MESSAGE_CHUNK, delta }];
    }
    this.#text = { id: `m${eventId}`, owner };
    return [{ type: EventType.TEXT_MESSAGE_CHUNK, messageId: this.#text.id, delta }];
  }

  /**
   * Another kind of event follows the text: the consumer closes the chunked segment itself,
   * so nothing is sent, but the next text is a new segment and names itself.
   */
  #closeText(): AgUiEvent[] {
    this.#text = undefined;
    return [];
  }
}

/** A run's final `error` event as AG-UI's RUN_ERROR, with its code (`value_too_large`, …). */
function runErrorEvent(data: Record<string, unknown>): AgUiEvent {
  return {
    type: EventType.RUN_ERROR,
    message: String(data.message),
    ...(typeof data.code === "string" ? { code: data.code } : {}),
  };
}
