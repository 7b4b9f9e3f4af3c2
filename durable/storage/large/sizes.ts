/**
 * The 32 MiB limit on one value, checked where the thread first writes what a model or a tool
 * made, so `value_too_large` names it ("the output of tool read_file") and its size. The
 * storage under it (values.ts) only refuses a stored column past twice that, naming the
 * table: the backstop for a writer that checked nothing.
 */
import type { Message } from "../../../src/core/types";
import { checkValueSize } from "./values";

/** An event's one large field, and what it is in words (the event log is written first). */
export function checkEventValue(type: string, data: unknown): void {
  const fields = (data ?? {}) as Record<string, unknown>;
  const tool = typeof fields.name === "string" ? ` ${fields.name}` : "";
  switch (type) {
    case "text":
      return checkValueSize("the model's reply", fields.delta);
    case "tool_call":
      return checkValueSize(`the arguments of tool${tool}`, fields.args);
    case "tool_result":
      return checkValueSize(`the output of tool${tool}`, fields.output);
    case "done":
      return checkValueSize("the run's final text", fields.text);
    default:
      return checkValueSize(`the run's ${type} event`, data);
  }
}

/** A transcript message's content (a reply streamed in many small deltas is whole only here). */
export function checkMessageSize(message: Message): void {
  switch (message.role) {
    case "assistant":
      checkValueSize("the model's reply", message.content);
      for (const call of message.toolCalls ?? []) {
        checkValueSize(`the arguments of tool ${call.name}`, call.arguments);
      }
      return;
    case "tool":
      return checkValueSize(`the output of tool ${message.name}`, message.content);
    default:
      return checkValueSize(`the ${message.role} message`, message.content);
  }
}
