/**
 * Reading A2A request params: a message's parts (v0.3 `kind`-tagged, or A2A 1.0's untagged
 * `{ text }` / `{ data }`), the agent it picks, and a decision data part.
 */
import { RPC, RpcError } from "./jsonrpc";
import type { CallerAnswer } from "../answer-request";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export interface IncomingMessage {
  text: string;
  data: Record<string, unknown>[];
  taskId?: string;
  contextId?: string;
  skill?: string;
}

export function readMessage(params: Record<string, unknown>): IncomingMessage {
  const message = params.message;
  if (!isRecord(message) || !Array.isArray(message.parts) || message.parts.length === 0) {
    throw new RpcError(RPC.invalidParams, "params.message needs a non-empty parts array");
  }
  const texts: string[] = [];
  const data: Record<string, unknown>[] = [];
  for (const part of message.parts) {
    if (
      isRecord(part) &&
      typeof part.text === "string" &&
      (part.kind === undefined || part.kind === "text")
    ) {
      texts.push(part.text);
    } else if (
      isRecord(part) &&
      isRecord(part.data) &&
      (part.kind === undefined || part.kind === "data")
    ) {
      data.push(part.data);
    } else {
      throw new RpcError(
        RPC.invalidParams,
        "a message part must be a text part or a data part (files are not accepted)",
      );
    }
  }
  const metadata = isRecord(message.metadata)
    ? message.metadata
    : isRecord(params.metadata)
      ? params.metadata
      : {};
  const optional = (name: string, value: unknown): string | undefined => {
    if (value === undefined || value === null) {
      return undefined;
    }
    if (typeof value !== "string" || !value) {
      throw new RpcError(RPC.invalidParams, `${name} must be a non-empty string`);
    }
    return value;
  };
  const taskId = optional("message.taskId", message.taskId);
  const contextId = optional("message.contextId", message.contextId);
  const skill = optional("metadata.skill", metadata.skill);
  return {
    text: texts.join("\n"),
    data,
    ...(taskId ? { taskId } : {}),
    ...(contextId ? { contextId } : {}),
    ...(skill ? { skill } : {}),
  };
}

/** The decision data part of a message on an existing task, checked. */
export function readAnswer(message: IncomingMessage): CallerAnswer {
  const part = message.data.find((d) => "requestId" in d || "decision" in d);
  if (!part) {
    throw new RpcError(
      RPC.invalidParams,
      "a message on an existing task answers its request: send a data part { requestId, decision: approve | decline | cancel, reason?, data?, args?, argsHash? }",
    );
  }
  if (typeof part.requestId !== "string" || !part.requestId) {
    throw new RpcError(RPC.invalidParams, "the decision part needs requestId (a non-empty string)");
  }
  if (part.decision !== "approve" && part.decision !== "decline" && part.decision !== "cancel") {
    throw new RpcError(RPC.invalidParams, 'decision must be "approve", "decline" or "cancel"');
  }
  if (part.reason !== undefined && (typeof part.reason !== "string" || part.reason.length > 2000)) {
    throw new RpcError(RPC.invalidParams, "reason must be a string of at most 2000 characters");
  }
  if (part.args !== undefined && !isRecord(part.args)) {
    throw new RpcError(RPC.invalidParams, "args must be an object (the tool's full arguments)");
  }
  if (part.argsHash !== undefined && (typeof part.argsHash !== "string" || !part.argsHash)) {
    throw new RpcError(RPC.invalidParams, "argsHash must be a non-empty string");
  }
  return {
    requestId: part.requestId,
    ...(part.argsHash === undefined ? {} : { argsHash: part.argsHash as string }),
    decision: part.decision,
    ...(part.reason === undefined ? {} : { reason: part.reason as string }),
    ...(part.data === undefined ? {} : { data: part.data }),
    ...(part.args === undefined ? {} : { args: part.args as Record<string, unknown> }),
  };
}

/** A task id from `tasks/get`-style params: `id`, or A2A 1.0's `name: "tasks/<id>"`. */
export function readTaskId(params: Record<string, unknown>): string {
  if (typeof params.id === "string" && params.id) {
    return params.id;
  }
  if (typeof params.name === "string" && params.name.startsWith("tasks/")) {
    return params.name.slice("tasks/".length).split("/")[0] ?? "";
  }
  if (typeof params.taskId === "string" && params.taskId) {
    return params.taskId;
  }
  throw new RpcError(RPC.invalidParams, "params.id (the task id) is required");
}

/** `configuration.blocking`: A2A's default is to wait for the task to settle. */
export function readBlocking(params: Record<string, unknown>): boolean {
  const configuration = isRecord(params.configuration) ? params.configuration : {};
  if (configuration.blocking === false) {
    return false;
  }
  // A2A 1.0 spells it returnImmediately.
  return configuration.returnImmediately !== true;
}

/** A push URL given with the message that starts the task (`configuration.pushNotificationConfig.url`). */
export function readPushUrl(params: Record<string, unknown>): string | undefined {
  const configuration = isRecord(params.configuration) ? params.configuration : {};
  const push = configuration.pushNotificationConfig ?? configuration.taskPushNotificationConfig;
  if (push === undefined) {
    return undefined;
  }
  if (!isRecord(push) || typeof push.url !== "string") {
    throw new RpcError(RPC.invalidParams, "pushNotificationConfig needs a url");
  }
  return push.url;
}
