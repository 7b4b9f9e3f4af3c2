/**
 * Remote A2A agents as tools (SPEC §7A): `agent({ card })` resolves the card and gives one
 * tool per skill; a call is one `SendMessage`, then `GetTask` every `pollEvery` until a
 * terminal state, the timeout, or an abort. Beyond the SPEC: a remote task in
 * `input-required` / `auth-required` suspends the call with a request (kind `input` /
 * `authorization`, the remote's question as prompt), halting the run durably like any other;
 * the answer is sent back to the remote task as a message and polling resumes. The remote
 * task's id travels in the request id, so the resumed call needs no memory of its own.
 * Where the host can wait durably (`ctx.suspendAfterMs`), a task still working after that
 * window suspends the call with a `remote_task` request the host answers (remote-task.ts).
 */
import { pending } from "../answers";
import { expandEnv, type EnvLike } from "../env";
import { errorMessage } from "../errors";
import { sanitizeName } from "../mcp/config";
import type { Answer, Context, Tool, ToolResult } from "../types";
import {
  attachPoller,
  REMOTE_TASK_KIND,
  type RemoteTaskData,
  type RemoteTaskOutcome,
} from "./remote-task";
import {
  type Dialect,
  readCard,
  readTask,
  type RemoteTask,
  type ResolvedCard,
  TERMINAL_STATES,
  userMessage,
} from "./wire";

export const DEFAULT_A2A_TIMEOUT_MS = 300_000;
export const DEFAULT_A2A_POLL_MS = 1000;

export interface AgentOptions {
  /** The Agent Card URL (`…/.well-known/agent-card.json`). */
  card: string;
  /** Sent with every request; values may contain `${ENV}`, never logged. */
  headers?: Record<string, string>;
  timeout?: number;
  pollEvery?: number;
  fetch?: typeof fetch;
  env?: EnvLike;
}

export interface A2AAgent {
  readonly card: string;
  /** Fetches the card and builds one tool per skill. */
  tools(): Promise<Tool[]>;
}

const INPUT_SCHEMA = {
  type: "object",
  properties: { task: { type: "string", description: "What to ask the remote agent" } },
  required: ["task"],
};

/** A request id naming the remote task (`t`, `c` its context) and, for a wait, `w: 1`. */
type Ref = { t: string; c?: string; w?: 1 };

const encodeRef = (ref: Ref) =>
  `a2a_${btoa(JSON.stringify(ref)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")}`;

function decodeRef(id: string): Ref | undefined {
  if (!id.startsWith("a2a_")) {
    return undefined;
  }
  try {
    const b64 = id.slice(4).replace(/-/g, "+").replace(/_/g, "/");
    const ref = JSON.parse(atob(b64)) as { t?: unknown; c?: unknown; w?: unknown };
    return typeof ref.t === "string"
      ? {
          t: ref.t,
          ...(typeof ref.c === "string" ? { c: ref.c } : {}),
          ...(ref.w === 1 ? { w: 1 as const } : {}),
        }
      : undefined;
  } catch {
    return undefined;
  }
}

/** A remote agent; its tools are built when `tools()` resolves the card. */
export function agent(options: AgentOptions): A2AAgent {
  return { card: options.card, tools: async () => skillTools(options, await resolveCard(options)) };
}

async function resolveCard(options: AgentOptions): Promise<ResolvedCard> {
  const response = await (options.fetch ?? fetch)(options.card, { headers: headersOf(options) });
  if (!response.ok) {
    throw new Error(`A2A card ${options.card}: HTTP ${response.status}`);
  }
  return readCard(await response.json(), options.card);
}

function headersOf(options: AgentOptions): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    headers.set(name, expandEnv(value, options.env));
  }
  return headers;
}

class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

function skillTools(options: AgentOptions, card: ResolvedCard): Tool[] {
  const timeout = options.timeout ?? DEFAULT_A2A_TIMEOUT_MS;
  const pollEvery = options.pollEvery ?? DEFAULT_A2A_POLL_MS;
  const dialect: Dialect = card.dialect;
  let legacyNames = false;

  const call = async (method: string, params: unknown, signal?: AbortSignal): Promise<unknown> => {
    const headers = headersOf(options);
    headers.set("content-type", "application/json");
    if (dialect === "v1") {
      headers.set("A2A-Version", "1.0");
    }
    const response = await (options.fetch ?? fetch)(card.endpoint, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: crypto.randomUUID(), method, params }),
      ...(signal ? { signal } : {}),
    });
    const text = await response.text();
    if (!response.ok) {
      throw new Error(`HTTP ${response.status}: ${text.slice(0, 2000)}`);
    }
    const body = JSON.parse(text) as {
      result?: unknown;
      error?: { code: number; message: string };
    };
    if (body.error) {
      throw new RpcFailure(body.error.code, `A2A error ${body.error.code}: ${body.error.message}`);
    }
    return body.result;
  };

  // The SPEC's names first; a v0.3 peer that does not know them gets v0.3's.
  const named = async (
    { spec, legacy }: { spec: string; legacy: string },
    params: unknown,
    signal?: AbortSignal,
  ) => {
    if (!legacyNames) {
      try {
        return await call(spec, params, signal);
      } catch (error) {
        if (!(error instanceof RpcFailure && error.code === -32601) || dialect === "v1") {
          throw error;
        }
        legacyNames = true;
      }
    }
    return call(legacy, params, signal);
  };

  const send = (message: unknown, signal?: AbortSignal) =>
    named(
      { spec: "SendMessage", legacy: "message/send" },
      { message, configuration: { blocking: false, returnImmediately: true } },
      signal,
    );
  const get = (id: string, signal?: AbortSignal) =>
    named({ spec: "GetTask", legacy: "tasks/get" }, { id }, signal);

  return card.skills.map((skill) => {
    const name = `${sanitizeName(card.name)}_${sanitizeName(skill.id || skill.name)}`;
    const tool: Tool = attachPoller(
      {
        name,
        description: skill.description || `${card.name}: ${skill.name}`,
        inputSchema: INPUT_SCHEMA,
        source: "a2a",
        async execute(args: unknown, ctx: Context = {}): Promise<ToolResult> {
          const started = Date.now();
          const task =
            typeof (args as { task?: unknown })?.task === "string"
              ? (args as { task: string }).task
              : "";
          if (!task) {
            return { output: `${name}: "task" must be a non-empty string`, isError: true };
          }
          let polls = 0;
          let current: RemoteTask;
          try {
            const ref = ctx.answer ? decodeRef(ctx.answer.id) : undefined;
            const waited =
              ref?.w === 1 ? (ctx.answer?.data as RemoteTaskOutcome | undefined) : undefined;
            if (ref?.w === 1 && !waited?.task) {
              return {
                output: `${name}: the wait for A2A task ${ref.t} ended without its state`,
                isError: true,
              };
            }
            if (waited?.timedOut) {
              return result(
                `A2A task ${waited.task.id} timed out after ${timeout}ms (state=${waited.task.state})`,
                true,
                { task: waited.task, polls, started },
              );
            }
            current = waited
              ? waited.task
              : ref
                ? readTask(
                    await send(answerMessage(dialect, ctx.answer as Answer, ref), ctx.signal),
                  )
                : readTask(await send(userMessage(dialect, task, { skill: skill.id }), ctx.signal));
            // Right after our answer the remote may still report the state it asked in.
            let answeredJustNow = ref !== undefined && !waited;
            while (!TERMINAL_STATES.has(current.state)) {
              const asks = current.state === "input-required" || current.state === "auth-required";
              if (asks && !answeredJustNow) {
                return pending({
                  id: encodeRef({
                    t: current.id,
                    ...(current.contextId ? { c: current.contextId } : {}),
                  }),
                  kind: current.state === "auth-required" ? "authorization" : "input",
                  prompt: current.statusText || `${card.name} needs input to continue`,
                  data: { agent: card.name, taskId: current.id },
                });
              }
              if (ctx.signal?.aborted) {
                return result(`A2A task ${current.id} canceled`, true, {
                  task: current,
                  polls,
                  started,
                });
              }
              if (
                !asks &&
                ctx.suspendAfterMs !== undefined &&
                Date.now() - started >= ctx.suspendAfterMs
              ) {
                // The host waits for us, durably: no inline polling while nothing happens.
                const data: RemoteTaskData = {
                  agent: card.name,
                  tool: name,
                  taskId: current.id,
                  ...(current.contextId ? { contextId: current.contextId } : {}),
                  state: current.state,
                  pollEvery,
                  deadline: started + timeout,
                  startedAt: started,
                };
                return pending({
                  id: encodeRef({
                    t: current.id,
                    ...(current.contextId ? { c: current.contextId } : {}),
                    w: 1,
                  }),
                  kind: REMOTE_TASK_KIND,
                  prompt: `Waiting for ${card.name} task ${current.id} (${current.state})`,
                  data: data as unknown as Record<string, unknown>,
                  // A backstop only: the host answers with a timeout at the deadline.
                  expiresAt: new Date(started + timeout + 60_000),
                });
              }
              if (Date.now() - started >= timeout) {
                return result(
                  `A2A task ${current.id} timed out after ${timeout}ms (state=${current.state})`,
                  true,
                  { task: current, polls, started },
                );
              }
              await new Promise((r) => setTimeout(r, pollEvery));
              if (ctx.signal?.aborted) {
                return result(`A2A task ${current.id} canceled`, true, {
                  task: current,
                  polls,
                  started,
                });
              }
              polls++;
              answeredJustNow = false;
              current = readTask(await get(current.id, ctx.signal));
            }
          } catch (error) {
            return { output: `${name}: ${errorMessage(error)}`, isError: true };
          }
          if (current.state === "completed") {
            return result(current.output, false, { task: current, polls, started });
          }
          return result(
            `A2A task ${current.id} ${current.state}${current.statusText ? `: ${current.statusText}` : ""}`,
            true,
            { task: current, polls, started },
          );
        },
      },
      async (taskId, signal) => readTask(await get(taskId, signal)),
    );
    const result = (
      output: string,
      isError: boolean,
      { task: t, polls, started }: { task: RemoteTask; polls: number; started: number },
    ): ToolResult => ({
      output,
      isError,
      metadata: { agent: card.name, taskId: t.id, state: t.state, polls, ms: Date.now() - started },
    });
    return tool;
  });
}

/** Our answer as a message on the remote task: the text answer, plus the data as a data part. */
function answerMessage(dialect: Dialect, answer: Answer, ref: { t: string; c?: string }) {
  const data = answer.data;
  const text =
    typeof data === "string"
      ? data
      : typeof (data as { answer?: unknown } | undefined)?.answer === "string"
        ? (data as { answer: string }).answer
        : JSON.stringify(data ?? null);
  return userMessage(dialect, text, {
    taskId: ref.t,
    ...(ref.c ? { contextId: ref.c } : {}),
    ...(typeof data === "object" && data !== null && !Array.isArray(data)
      ? { data: data as Record<string, unknown> }
      : {}),
  });
}
