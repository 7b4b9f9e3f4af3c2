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
  const [what, value] = EVENT_VALUES[type]?.(fields, tool) ?? [`the run's ${type} event`, data];
  checkValueSize(what, value);
}

/** Per event type: its one large field, named. */
const EVENT_VALUES: Record<
  string,
  (fields: Record<string, unknown>, tool: string) => [what: string, value: unknown]
> = {
  text: (fields) => ["the model's reply", fields.delta],
  tool_call: (fields, tool) => [`the arguments of tool${tool}`, fields.args],
  tool_result: (fields, tool) => [`the output of tool${tool}`, fields.output],
  done: (fields) => ["the run's final text", fields.text],
};

/** A transcript message's content (a reply streamed in many small deltas is whole only here). */
export function checkMessageSize(message: Message): void {
  if (message.role === "assistant") {
    checkValueSize("the model's reply", message.content);
    for (const call of message.toolCalls ?? []) {
      checkValueSize(`the arguments of tool ${call.name}`, call.arguments);
    }
  } else if (message.role === "tool") {
    checkValueSize(`the output of tool ${message.name}`, message.content);
  } else {
    checkValueSize(`the ${message.role} message`, message.content);
  }
}

/** A call's log entry: its whole output and its arguments (the model may have been sent less). */
export function checkToolCallSize(entry: { name: string; args: unknown; output: string }): void {
  checkValueSize(`the arguments of tool ${entry.name}`, entry.args);
  checkValueSize(`the output of tool ${entry.name}`, entry.output);
}
