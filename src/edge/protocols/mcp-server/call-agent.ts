/**
 * One `tools/call` of an agent tool (SPEC §7D "an agent is a tool"): start a run with the
 * prompt, report its turns and tool calls as progress, and return its answer. When the run
 * waits on a request the caller may answer (an `input` without approver rules) and the client
 * can elicit, the request becomes `elicitation/create` and the reply goes through the ledger
 * (channel `mcp`); an `authorization` request becomes a URL-mode elicitation. Anything else —
 * approver rules, or a client that cannot elicit — returns a pending result (not an error)
 * with the run id and the approval link, within PENDING_BOUND_MS.
 */
import type { CallToolResult, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { AgentDefinition } from "../../agent";
import type { ApproverGroupsInit } from "../../approvals/groups";
import { readConfig, type EdgeEnv } from "../../settings";
import { approvalUrl } from "../../approvals/links";
import type { RunView, ThreadRpc } from "../../protocol";
import { threadStub } from "../../http/threads";
import { answerRequest, callerMayAnswer, whoDecides } from "../answer-request";
import { followEvents, isSettled } from "../run-watch";
import { startAgentRun } from "../../http/start-run";
import type { Request as AgentRequest } from "../../../core/types";
import { unpack } from "../../packed";

/** A call returns by then at the latest (pending or still running): under the 30 s hosts allow. */
export const PENDING_BOUND_MS = 20_000;

export interface CallDeps {
  env: EdgeEnv;
  approverGroups: ApproverGroupsInit | undefined;
  base: string;
  caller: string | undefined;
  signal: AbortSignal;
  /** What the client said it can do at initialize. */
  elicitation: { form: boolean; url: boolean };
  progress?: (progress: number, message: string) => Promise<void>;
  elicit: (params: Record<string, unknown>) => Promise<ElicitResult>;
}

const text = (value: string, isError = false): CallToolResult => ({
  content: [{ type: "text", text: value }],
  isError,
});

const DEFAULT_INPUT_SCHEMA = {
  type: "object",
  properties: { answer: { type: "string", title: "Your answer" } },
  required: ["answer"],
};

/** The link an approver uses: the signed approval page, and for a ruled request the inbox too. */
async function links(deps: CallDeps, view: RunView, request: AgentRequest): Promise<string> {
  const url = await approvalUrl(
    { base: deps.base, webhookSecrets: readConfig(deps.env).webhookSecrets },
    { threadId: view.threadId, runId: view.runId },
    { request, expiresAt: view.expiresAt ? Date.parse(view.expiresAt) : null },
  );
  return callerMayAnswer(request)
    ? url
    : `${url} (members of the group can also decide in ${deps.base}/inbox)`;
}

export async function pendingText(
  deps: CallDeps,
  view: RunView,
  request: AgentRequest,
): Promise<string> {
  const who = callerMayAnswer(request) ? "you (or anyone holding the link)" : whoDecides(request);
  return [
    `Run ${view.runId} is pending: ${request.prompt}`,
    `It waits on ${who}. Approval link: ${await links(deps, view, request)}`,
    `Request ${request.id} (${request.kind})${view.expiresAt ? `, expires ${view.expiresAt}` : ""}.`,
    `Call get_run with {"runId": "${view.runId}"} for its state and answer once it is decided.`,
  ].join("\n");
}

/** Why a run stopped short, in one line: its error's code and message, or the limit it hit. */
export function failureText(view: RunView): string | null {
  return view.error ? `${view.error.code}: ${view.error.message}` : view.limit;
}

/** The result for a run that no longer works on its own. */
export function finishedResult(view: RunView): CallToolResult {
  switch (view.status) {
    case "done":
      return text(view.text ?? "");
    case "cancelled":
      return text(`Run ${view.runId} was cancelled`, true);
    default:
      return text(`Run ${view.runId} ${view.status}: ${failureText(view) ?? "no answer"}`, true);
  }
}

/** Asks the caller through elicitation; true when an answer was recorded and the run goes on. */
async function elicitAnswer(
  deps: CallDeps,
  { stub, view }: { stub: ThreadRpc; view: RunView },
  request: AgentRequest,
): Promise<boolean> {
  const url = request.kind === "authorization" && request.url;
  if (url ? !deps.elicitation.url : !deps.elicitation.form || request.kind !== "input") {
    return false;
  }
  if (!callerMayAnswer(request)) {
    return false;
  }
  if (url) {
    // The person acts out of band (a sign-in); the run goes on when that decides the request.
    await deps.elicit({ mode: "url", message: request.prompt, url, elicitationId: request.id });
    return false;
  }
  const schema =
    (request.data?.schema as Record<string, unknown> | undefined) ?? DEFAULT_INPUT_SCHEMA;
  const reply = await deps.elicit({
    mode: "form",
    message: request.prompt,
    requestedSchema: schema,
  });
  const decision =
    reply.action === "accept" ? "approve" : reply.action === "decline" ? "decline" : "cancel";
  const outcome = await answerRequest(
    { stub, run: view },
    {
      requestId: request.id,
      decision,
      ...(decision === "approve" ? { data: reply.content ?? {} } : {}),
    },
    { caller: deps.caller, channel: "mcp" },
  );
  return outcome.ok;
}

/** Starts the run of a call: its view, or the refusal as an error result. */
export async function startCall(
  deps: CallDeps,
  agent: AgentDefinition,
  args: { prompt: string; threadId?: string },
): Promise<
  | { ok: true; runId: string; threadId: string; run: RunView }
  | { ok: false; result: CallToolResult }
> {
  const started = await startAgentRun(deps.env, deps.approverGroups, {
    agent,
    input: args.prompt,
    ...(args.threadId ? { threadId: args.threadId } : {}),
    ...(deps.caller ? { requestedBy: deps.caller } : {}),
    metadata: { mcp: true },
    publicUrl: deps.base,
    // A threadId continues the caller's own conversation only (issue 37).
    requesterOnly: true,
  });
  return started.ok
    ? started
    : { ok: false, result: text(`${started.code}: ${started.message}`, true) };
}

export async function callAgent(
  deps: CallDeps,
  agent: AgentDefinition,
  args: { prompt: string; threadId?: string },
): Promise<CallToolResult> {
  const started = await startCall(deps, agent, args);
  if (!started.ok) {
    return started.result;
  }
  const stub = threadStub(deps.env, started.threadId);
  return followCall(deps, stub, started.runId);
}

/** Follows a run until it finishes, needs someone else, or the bound runs out. */
async function followCall(deps: CallDeps, stub: ThreadRpc, runId: string): Promise<CallToolResult> {
  const deadline = Date.now() + PENDING_BOUND_MS;
  let answered: string | undefined;
  let after = 0;
  let step = 0;
  while (!deps.signal.aborted) {
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), Math.max(0, deadline - Date.now()));
    const forward = () => stop.abort();
    deps.signal.addEventListener("abort", forward);
    const progress: Promise<void>[] = [];
    try {
      await followEvents(
        { stub, runId },
        (event) => {
          after = event.id;
          const data = event.data as { name?: string };
          if (event.type === "tool_call" && deps.progress) {
            progress.push(deps.progress(++step, `tool call ${data.name ?? ""}`).catch(() => {}));
          } else if (event.type === "resumed" && deps.progress) {
            progress.push(deps.progress(++step, "resumed").catch(() => {}));
          }
          return event.type === "pending" || event.type === "done" || event.type === "error";
        },
        { signal: stop.signal, after },
      );
    } catch (error) {
      if (!stop.signal.aborted) {
        throw error;
      }
    } finally {
      clearTimeout(timer);
      deps.signal.removeEventListener("abort", forward);
      await Promise.all(progress);
    }
    const view = await unpack(await stub.getRun(runId));
    if (!view) {
      return text(`run ${runId} vanished`, true);
    }
    if (isSettled(view, answered)) {
      if (view.status !== "pending" || !view.pending) {
        return finishedResult(view);
      }
      if (await elicitAnswer(deps, { stub, view }, view.pending)) {
        answered = view.pending.id;
        continue;
      }
      return text(await pendingText(deps, view, view.pending));
    }
    if (Date.now() >= deadline) {
      return text(
        `Run ${runId} is still running; no request is waiting yet. Call get_run with {"runId": "${runId}"} for its state and answer.`,
      );
    }
  }
  return text(`call cancelled; run ${runId} goes on`, true);
}
