/**
 * The one place stored JSON text becomes typed values (docs/architecture.md §1: rows are
 * decoded in storage). The thread writes these columns itself, so a decoder checks the
 * shape it relies on and throws on anything else rather than handing on a wrong type.
 */
import type { Answer, Request, Usage } from "../../src/core/types";
import type { InboxItem } from "../../src/edge/inbox/item";
import type { NotifyMessage } from "../../src/edge/protocol";

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

export function decodeStrings(text: string): string[] {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    throw new TypeError("stored list is not a list of strings");
  }
  return value;
}
