/**
 * A server's tools as toolkit `Tool`s: paginated listing, the allow/drop filter,
 * and result mapping (`isError` ⇒ error with the joined text, `structuredContent` ⇒
 * its JSON, else the joined text parts with non-text parts summarized).
 */
import type { McpClient } from "./client";
import type { Context, Request, Tool, ToolResult } from "../types";
import { pending } from "../answers";
import { errorMessage } from "../errors";
import { toJsonSchema } from "../schema";
import { type CallRegistry, newCallKey, type McpCall } from "./calls";
import { mcpToolName } from "./config";
import { NO_SDK_TIMEOUT, PausableDeadline } from "./deadline";
import { CALL_KEY_META } from "./transport/link";
import { finishSignIn, signInSuspension } from "./oauth/call-auth";
import type { OAuthSession } from "./oauth/session";
import { urlElicitationsIn, urlRequiredRequest } from "./url-required";
import { inputRequiredOf, type InputRequired, TRACEPARENT_META_KEY } from "./modern/revision";
import { nextStep, suspendOnInput } from "./modern/input-required";
import {
  answeredTaskWait,
  type CreatedTask,
  createdTaskOf,
  followTask,
  MCP_TASK_RESULT,
  taskLimit,
} from "./modern/tasks";
import { answerTask, resumeTaskWait, withTaskHost } from "./modern/task-calls";
import { IDEMPOTENCY_KEY_META, idempotencyKeyOf } from "./transport/idempotency";

export type McpToolDefinition = Awaited<ReturnType<McpClient["listTools"]>>["tools"][number];
type CallResult = Exclude<Awaited<ReturnType<McpClient["callTool"]>>, InputRequired | CreatedTask>;

const MAX_PAGES = 1000;
/** How long a suspended call waits for the server to finish after its elicitation was cancelled. */
export const SUSPEND_GRACE_MS = 1000;
/** How often a call is sent again for an `input_required` that asks nothing (only a state). */
export const MAX_STATE_ONLY_ROUNDS = 3;

/** Every tool the server lists, following `nextCursor`; malformed ones are set apart. */
export async function listAllTools(
  client: McpClient,
  signal: AbortSignal,
): Promise<{ tools: McpToolDefinition[]; malformed: Array<{ tool: string; problem: string }> }> {
  const malformed: Array<{ tool: string; problem: string }> = [];
  if (!client.getServerCapabilities()?.tools) {
    return { tools: [], malformed };
  }
  const tools: McpToolDefinition[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, {
      signal,
      timeout: NO_SDK_TIMEOUT,
    });
    tools.push(...result.tools);
    malformed.push(...result.malformed);
    cursor = result.nextCursor;
    if (cursor === undefined) {
      return { tools, malformed };
    }
    if (seen.has(cursor)) {
      throw new Error(`tools/list: the server repeated cursor ${JSON.stringify(cursor)}`);
    }
    seen.add(cursor);
  }
  throw new Error(`tools/list: more than ${MAX_PAGES} pages`);
}

export interface McpToolOptions {
  server: string;
  client: McpClient;
  calls: CallRegistry;
  /** Milliseconds a call may take, not counting time spent waiting on elicitations. */
  timeout: number;
  /** The server's OAuth session, when its entry has `oauth` (see ./oauth/call-auth). */
  auth?: OAuthSession;
  /** The toolkit name (see ./catalog/tool-names); default `sanitize(server)_sanitize(tool)`. */
  name?: string;
  /** A URL-required error's request carries server and tool in `data` (./elicitation.ts). */
  attributeElicitations?: boolean;
}

/** One server tool as a toolkit tool named `sanitize(server)_sanitize(tool)`, source `mcp:<server>`. */
export function mcpTool(definition: McpToolDefinition, options: McpToolOptions): Tool {
  const name = options.name ?? mcpToolName(options.server, definition.name);
  const tool: Tool = {
    name,
    description: definition.description ?? definition.title ?? "",
    inputSchema: toJsonSchema(definition.inputSchema as Record<string, unknown>),
    source: `mcp:${options.server}`,
    execute: (args, ctx = {}) =>
      callTool({ name, original: definition.name, args, ctx }, options).then((result) =>
        taskResult(name, result),
      ),
  };
  // The host's durable wait on one of this server's tasks polls and cancels with it.
  return withTaskHost(tool, options.client);
}

/** A completed task's result (./modern/tasks) mapped like any call's. */
function taskResult(name: string, result: ToolResult): ToolResult {
  const completed = result.metadata?.[MCP_TASK_RESULT];
  return completed === undefined ? result : fromCallResult(name, completed as CallResult);
}

/** One call: our tool name, the server's name for it, the model's arguments and the call's context. */
interface McpToolCall {
  name: string;
  original: string;
  args: unknown;
  ctx: Context;
}

async function callTool(
  { name, original, args, ctx }: McpToolCall,
  options: McpToolOptions,
): Promise<ToolResult> {
  const aborted: ToolResult = { output: `${name} aborted`, isError: true };
  if (ctx.signal?.aborted) {
    return aborted;
  }
  // Answering one of a server's several input requests: the next one is asked, or all are sent.
  const origin = { server: options.server, tool: name };
  const step = nextStep(ctx, origin);
  if (step && "ask" in step) {
    return step.ask;
  }
  const retry = step?.send;
  const follow = { client: options.client, ctx, origin };
  // A task this call waited for durably settled, or a task's questions are answered (./modern/tasks).
  const waited = answeredTaskWait(ctx, options.server);
  if (waited) {
    return resumeTaskWait(waited, follow);
  }
  if (retry?.task) {
    return answerTask(retry, follow);
  }
  const signIn = await finishSignIn(name, options.auth, ctx);
  if (signIn.failure) {
    return signIn.failure;
  }
  const endTurn = await options.calls.turn();
  if (ctx.signal?.aborted) {
    endTurn();
    return aborted;
  }
  const limit = Math.min(options.timeout, ctx.timeout ?? Infinity);
  const controller = new AbortController();
  let timedOut = false;
  let suspended: Request | undefined;
  // The SDK wraps an abort's reason in its own error: keep ours to report it as is.
  let failure: Error | undefined;
  let onSuspend: () => void = () => {};
  const suspension = new Promise<void>((resolve) => (onSuspend = resolve));

  const call: McpCall = {
    key: newCallKey(),
    tool: name,
    ctx,
    signal: controller.signal,
    deadline: new PausableDeadline(limit, () => {
      timedOut = true;
      controller.abort(new Error(`${name} timed out`));
    }),
    notes: retry ? [...retry.notes] : [],
    suspend(request) {
      suspended ??= request;
      onSuspend();
    },
    fail(error) {
      failure ??= error;
      controller.abort(error);
    },
  };
  const onAbort = () => controller.abort(ctx.signal?.reason);
  ctx.signal?.addEventListener("abort", onAbort, { once: true });
  options.calls.begin(call);

  let result: ToolResult;
  let task: CreatedTask | undefined;
  const idempotencyKey = idempotencyKeyOf(ctx);
  try {
    const params = {
      name: original,
      arguments: (args ?? {}) as Record<string, unknown>,
      // The run's trace context travels with the call (MCP's `_meta.traceparent`).
      _meta: {
        [CALL_KEY_META]: call.key,
        ...(ctx.traceparent ? { [TRACEPARENT_META_KEY]: ctx.traceparent } : {}),
        // The same on every send of this call, a resume's included (./transport/idempotency.ts).
        ...(idempotencyKey ? { [IDEMPOTENCY_KEY_META]: idempotencyKey } : {}),
      },
      // The answers to the input requests this call suspended on (MCP 2026-07-28), with its state.
      ...(retry
        ? {
            inputResponses: retry.inputResponses,
            ...(retry.requestState === undefined ? {} : { requestState: retry.requestState }),
          }
        : {}),
    };
    const request = options.client.callTool(params, {
      signal: controller.signal,
      timeout: NO_SDK_TIMEOUT,
    });
    let settled = false;
    request.then(
      () => (settled = true),
      () => (settled = true),
    );
    const first = await Promise.race([request, suspension.then(() => undefined)]);
    if (first === undefined) {
      // Suspended: the server was sent "cancel"; give it a moment to wind down, then
      // stop waiting (the decision will re-execute the call; this result is discarded).
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        request.catch(() => {}),
        new Promise((resolve) => (timer = setTimeout(resolve, SUSPEND_GRACE_MS))),
      ]);
      clearTimeout(timer);
      if (!settled) {
        controller.abort(new Error(`${name} suspended`));
      }
    }
    if (first === undefined) {
      result = { output: "", isError: false };
    } else {
      const reply = await withoutStateOnlyRounds(first, {
        send: (requestState) =>
          options.client.callTool(
            { ...params, ...(requestState === undefined ? {} : { requestState }) },
            { signal: controller.signal, timeout: NO_SDK_TIMEOUT },
          ),
      });
      task = createdTaskOf(reply);
      result = isInputRequired(reply)
        ? askedAgain(reply, { origin, round: (retry?.round ?? 0) + 1, continues: !!retry })
        : task
          ? { output: "", isError: false }
          : fromCallResult(name, reply as CallResult);
    }
  } catch (error) {
    const signInPending = await signInSuspension(name, options.auth, {
      error,
      ctx,
      signedIn: signIn.signedIn,
    });
    const urlsRequired = urlElicitationsIn(error);
    if (signInPending) {
      result = signInPending;
    } else if (urlsRequired) {
      result = pending(
        urlRequiredRequest(urlsRequired, {
          server: options.server,
          tool: name,
          ctx,
          attributed: options.attributeElicitations === true,
        }),
      );
    } else if (failure) {
      result = { output: `${name} failed: ${failure.message}`, isError: true };
    } else if (timedOut) {
      result = { output: `${name} timed out after ${limit} ms`, isError: true };
    } else if (ctx.signal?.aborted) {
      result = aborted;
    } else {
      result = { output: `${name} failed: ${errorMessage(error)}`, isError: true };
    }
  } finally {
    call.deadline.clear();
    options.calls.end(call);
    endTurn();
    ctx.signal?.removeEventListener("abort", onAbort);
  }

  if (suspended) {
    return pending(suspended);
  }
  if (task) {
    // The server answered with a task: the call follows it (no call slot held meanwhile).
    return followTask(task, {
      ...follow,
      started: Date.now(),
      limit: taskLimit(task, limit),
      round: retry?.round ?? 0,
      continues: !!retry,
    });
  }
  if (call.notes.length === 0) {
    return result;
  }
  return {
    output: [result.output, ...call.notes].filter((part) => part !== "").join("\n\n"),
    isError: true,
  };
}

const isInputRequired = (reply: unknown): reply is InputRequired =>
  inputRequiredOf(reply) !== undefined;

/**
 * A server that answers `input_required` with only a `requestState` (no question) is called
 * again with it, at most MAX_STATE_ONLY_ROUNDS times; then the last reply stands.
 */
async function withoutStateOnlyRounds<R>(
  first: R | InputRequired,
  { send }: { send: (requestState: string | undefined) => Promise<R | InputRequired> },
): Promise<R | InputRequired> {
  let reply = first;
  for (let round = 0; round < MAX_STATE_ONLY_ROUNDS; round++) {
    if (!isInputRequired(reply) || Object.keys(reply.inputRequests).length > 0) {
      return reply;
    }
    reply = await send(reply.requestState);
  }
  return reply;
}

/** The call suspends on the server's questions (./modern/input-required), or fails saying why it cannot. */
function askedAgain(
  asked: InputRequired,
  how: { origin: { server: string; tool: string }; round: number; continues: boolean },
): ToolResult {
  if (Object.keys(asked.inputRequests).length === 0) {
    return {
      output: `${how.origin.tool}: the server kept answering input_required without asking anything (${MAX_STATE_ONLY_ROUNDS + 1} times)`,
      isError: true,
    };
  }
  return suspendOnInput(asked, how);
}

/**
 * A `tools/call` result as a `ToolResult`.
 * @example fromCallResult("gh_search", { content: [{ type: "text", text: "3 hits" }] }) // { output: "3 hits", isError: false }
 */
export function fromCallResult(name: string, result: CallResult): ToolResult {
  const text = joinContent((result as { content?: unknown[] }).content ?? []);
  if (result.isError === true) {
    return { output: text || `${name}: the server reported an error`, isError: true };
  }
  if (result.structuredContent !== undefined) {
    return { output: JSON.stringify(result.structuredContent), isError: false };
  }
  if ("toolResult" in result && (result as { content?: unknown }).content === undefined) {
    return { output: JSON.stringify(result.toolResult), isError: false };
  }
  return { output: text, isError: false };
}

function joinContent(content: unknown[]): string {
  return content.map(describePart).join("\n");
}

function describePart(part: unknown): string {
  const p = part as {
    type?: string;
    text?: string;
    mimeType?: string;
    uri?: string;
    resource?: { uri?: string; text?: string; mimeType?: string };
  };
  switch (p.type) {
    case "text":
      return p.text ?? "";
    case "image":
    case "audio":
      return `[${p.type} ${p.mimeType ?? "unknown"}]`;
    case "resource":
      return (
        p.resource?.text ??
        `[resource ${p.resource?.uri ?? ""}${p.resource?.mimeType ? ` ${p.resource.mimeType}` : ""}]`
      );
    case "resource_link":
      return `[resource_link ${p.uri ?? ""}]`;
    default:
      return `[${p.type ?? "unknown"} content]`;
  }
}
