/**
 * The one place stored JSON text becomes typed values (docs/architecture.md §1: rows are
 * decoded in storage). The thread writes these columns itself, so a decoder checks the
 * shape it relies on and throws on anything else rather than handing on a wrong type.
 */
import type { Answer, Message, Request, Usage } from "../../src/core/types";
import type { TraceCarrier } from "../../src/core/tracing";
import type { OAuthRecord } from "../../src/core/mcp/oauth/store";
import type { ApprovalRow, DecisionRow, HandleRow, RunRow, ToolMessage } from "./records";
import type { InboxItem } from "../../src/edge/inbox/item";
import type { NotifyMessage, RunError } from "../../src/edge/protocol";
import type { ReceiptDraft } from "../../src/edge/receipts/receipt";

function object(text: string, what: string): Record<string, unknown> {
  const value: unknown = JSON.parse(text);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`stored ${what} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

function withString<K extends string>(value: Record<string, unknown>, key: K, what: string) {
  if (typeof value[key] !== "string") {
    throw new TypeError(`stored ${what} has no ${key}`);
  }
  return value;
}

export function decodeRequest(text: string): Request {
  return withString(object(text, "request"), "id", "request") as unknown as Request;
}

export function decodeAnswer(text: string): Answer {
  return withString(object(text, "answer"), "id", "answer") as unknown as Answer;
}

export function decodeUsage(text: string): Usage {
  return object(text, "usage") as unknown as Usage;
}

export function decodeInboxItem(text: string): InboxItem {
  return withString(object(text, "inbox item"), "requestId", "inbox item") as unknown as InboxItem;
}

export function decodeNotifyMessage(text: string): NotifyMessage {
  return withString(
    object(text, "notification"),
    "requestId",
    "notification",
  ) as unknown as NotifyMessage;
}

/** A receipt's content as the ledger fixed it, before signing (durable/receipts/thread-receipts.ts). */
export function decodeReceiptDraft(text: string): ReceiptDraft {
  const draft = withString(object(text, "receipt draft"), "runId", "receipt draft");
  return withString(draft, "requestId", "receipt draft") as unknown as ReceiptDraft;
}

export function decodeStrings(text: string): string[] {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    throw new TypeError("stored list is not a list of strings");
  }
  return value;
}

/** A row as `Sql` hands it over: camelCase keys, JSON columns still text. */
export type RawRow = Record<string, SqlStorageValue>;

const text = (value: SqlStorageValue | undefined): string | null =>
  value === null || value === undefined ? null : String(value);

function jsonOrNull<T>(value: SqlStorageValue | undefined, decode: (text: string) => T): T | null {
  const stored = text(value);
  return stored === null ? null : decode(stored);
}

/**
 * A failed run's `{ code, message }`. Runs that failed before codes were stored hold the
 * message alone: it reads back with `driver_failed`, the code their log line carried.
 */
export function decodeRunError(text: string): RunError {
  if (text.startsWith("{")) {
    try {
      const value = object(text, "run error");
      if (typeof value.code === "string" && typeof value.message === "string") {
        return { code: value.code, message: value.message };
      }
    } catch {
      // Not JSON: a message stored before codes that happens to start with a brace.
    }
  }
  return { code: "driver_failed", message: text };
}

/** The runs columns stored as JSON, and how each decodes. */
const RUN_JSON = {
  error: decodeRunError,
  metadata: (t: string) => JSON.parse(t) as unknown,
  pending: decodeRequest,
  inlineRequest: decodeRequest,
  usage: decodeUsage,
  trace: (t: string) => object(t, "trace context") as unknown as TraceCarrier,
} as const;

/** A `runs` row as the domain sees it: JSON columns decoded, nulls kept. */
export function decodeRun(row: RawRow): RunRow {
  const run: Record<string, unknown> = { ...row };
  for (const [key, decode] of Object.entries(RUN_JSON)) {
    if (key in row) {
      run[key] = jsonOrNull(row[key], decode as (t: string) => unknown);
    }
  }
  if (run.usage === null) {
    throw new TypeError("stored run has no usage");
  }
  return run as unknown as RunRow;
}

/** A partial run for `RunStore.update`: the JSON fields back to text (null stays null). */
export function encodeRunFields(fields: Record<string, unknown>): Record<string, unknown> {
  const encoded: Record<string, unknown> = { ...fields };
  for (const key of Object.keys(RUN_JSON)) {
    if (key in fields && fields[key] !== null && fields[key] !== undefined) {
      encoded[key] = JSON.stringify(fields[key]);
    }
  }
  return encoded;
}

/** A `decisions` row with its answer decoded. */
export function decodeDecision(row: RawRow): DecisionRow {
  return { ...row, answer: decodeAnswer(String(row.answer)) } as unknown as DecisionRow;
}

/** One stored transcript message (the thread writes them; the loop validates what it replays). */
export function decodeMessage(text: string): Message {
  const message = object(text, "message");
  if (typeof message.role !== "string") {
    throw new TypeError("stored message has no role");
  }
  return message as unknown as Message;
}

function list<T>(text: string, what: string): T[] {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value)) {
    throw new TypeError(`stored ${what} is not a list`);
  }
  return value as T[];
}

/** An `agent_handles` row with its JSON columns decoded. */
export function decodeHandle(row: RawRow): HandleRow {
  return {
    ...row,
    usage: decodeUsage(String(row.usage)),
    toolCalls: list(String(row.toolCalls), "tool call list"),
    budget: object(String(row.budget), "budget"),
    pending: jsonOrNull(row.pending, decodeRequest),
    slots: jsonOrNull(row.slots, (t) => list<ToolMessage>(t, "slot list")),
  } as unknown as HandleRow;
}

/** An `approvals` row with the request it keeps decoded. */
export function decodeApproval(row: RawRow): ApprovalRow {
  return { ...row, request: decodeRequest(String(row.request)) } as unknown as ApprovalRow;
}

/** A stored event's data (the thread wrote it from an event object). */
export function decodeEventData(text: string): Record<string, unknown> {
  return object(text, "event");
}

/** An MCP sign-in record, once decrypted (durable/tokens/cipher.ts). */
export function decodeOAuthRecord(text: string): OAuthRecord {
  return object(text, "sign-in record") as unknown as OAuthRecord;
}
