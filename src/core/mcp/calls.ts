/**
 * The tool calls in flight on one MCP connection, and which of them a server
 * request (an elicitation) belongs to. A server request is linked to a call when it
 * arrived on that call's own response stream (see transport/link.ts); otherwise, if exactly
 * one call is in flight, it is that one (over SSE calls take turns so that this holds);
 * otherwise it is unattributed.
 */
import type { Context, Request } from "../types";
import type { PausableDeadline } from "./deadline";

export interface McpCall {
  /** Internal key carried (and stripped) on the wire to link streams to calls. */
  key: string;
  /** Toolkit name of the tool. */
  tool: string;
  ctx: Context;
  /** Aborted when the call times out or the caller aborts. */
  signal: AbortSignal;
  deadline: PausableDeadline;
  /** Things the model must be told about this call (answers that did not fit, …). */
  notes: string[];
  /** An elicitation handler chose to suspend the call durably on `request`. */
  suspend(request: Request): void;
  /** Ends the call now with `error` (its response stream closed without a reply). */
  fail(error: Error): void;
}

let sequence = 0;
export function newCallKey(): string {
  sequence = (sequence + 1) % 1_000_000_000;
  return `c${sequence.toString(36)}`;
}

export class CallRegistry {
  private readonly calls = new Map<string, McpCall>();
  private readonly links = new Map<string, McpCall>();
  private tail: Promise<void> = Promise.resolve();
  /**
   * Over the legacy SSE transport every server message shares one event stream, so
   * nothing says which call an elicitation belongs to: calls then go one at a time, and
   * the one in flight is the one that elicited (see `attribute`).
   */
  oneAtATime = false;

  /** Waits for this call's turn; resolves to the function that ends it. */
  async turn(): Promise<() => void> {
    if (!this.oneAtATime) {
      return () => {};
    }
    const before = this.tail;
    let release: () => void = () => {};
    this.tail = new Promise<void>((resolve) => (release = resolve));
    await before;
    return release;
  }

  begin(call: McpCall): void {
    this.calls.set(call.key, call);
  }

  end(call: McpCall): void {
    this.calls.delete(call.key);
    for (const [id, linked] of this.links) {
      if (linked === call) {
        this.links.delete(id);
      }
    }
  }

  byKey(key: string): McpCall | undefined {
    return this.calls.get(key);
  }

  /** Records that server request `requestId` arrived on `call`'s response stream. */
  link(requestId: unknown, call: McpCall): void {
    if (this.calls.has(call.key)) {
      this.links.set(JSON.stringify(requestId), call);
    }
  }

  /** The call a server request belongs to, when it can be known. */
  attribute(requestId: unknown): McpCall | undefined {
    const linked = this.links.get(JSON.stringify(requestId));
    if (linked) {
      return linked;
    }
    return this.calls.size === 1 ? this.calls.values().next().value : undefined;
  }
}
