/**
 * Starting and cancelling a thread's runs, and reading one call's whole output. One active run per thread: a new run waits until
 * the last one finished (a cancelled run with a decision still to apply counts as active:
 * its call must settle first). A started run is driven at once by this object (drive-now.ts);
 * both also hand the run to the `resume` queue, the durable path.
 */
import { cancelRemoteTasks } from "./remote/remote-tasks";
import { mcpTaskTools } from "./remote/mcp-task-tools";
import type { CancelOutcome, StartInput, StartOutcome } from "../../src/edge/protocol";
import { runView, toolCallOutput } from "../storage/run-view";
import { errorBody } from "../../src/edge/http/errors";
import { eventsResponse } from "./event-hub";
import type { OutboxDelivery } from "../outbox/delivery";
import { closeOpenTurn } from "./drive/close-turn";
import { armAlarm, WATCHDOG_MS } from "./alarms";
import { sendResume, sendResumeSoon, type ThreadContext } from "./context";
import { driveNow } from "./drive/drive-now";
import { agentVersion } from "../../src/edge/versions/agent-version";
import { sameCaller } from "../../src/edge/protocols/caller";
import { compensateOnFailure } from "../undo/run-undos";

export async function startRun(
  t: ThreadContext,
  delivery: OutboxDelivery,
  input: StartInput,
): Promise<StartOutcome> {
  const agent = t.agents.get(input.agent);
  if (!agent) {
    return {
      ok: false,
      code: "unknown_agent",
      message: `no agent named ${JSON.stringify(input.agent)}`,
    };
  }
  // Before the checks: nothing may await between them and the insert.
  const version = await agentVersion(agent, t.env);
  if (
    input.requesterOnly &&
    t.store.requesters().some((asked) => !sameCaller(asked, input.requestedBy))
  ) {
    // Checked before thread_busy: another identity learns nothing of the thread's state.
    return {
      ok: false,
      code: "thread_forbidden",
      message: `thread ${input.threadId} is another identity's conversation: use another id`,
    };
  }
  const active = t.store.activeRun() ?? t.store.runsWithWork()[0];
  if (active) {
    return {
      ok: false,
      code: "thread_busy",
      message: `thread ${input.threadId} has an active run ${active.runId} (${active.status})`,
    };
  }
  if (t.store.run(input.runId)) {
    return { ok: false, code: "run_exists", message: `run ${input.runId} exists` };
  }
  const now = Date.now();
  t.state.storage.transactionSync(() =>
    t.store.insertRun({
      ...input,
      now,
      systemPrompt: agent.systemPrompt,
      agentVersion: version,
    }),
  );
  // The new run's watchdog: the thread's other timers were armed by their writers.
  await armAlarm(t, now + WATCHDOG_MS);
  // The run as started: the drive below may take it further before this answer is sent.
  const run = runView(t, t.store.requireRun(input.runId), false);
  driveNow(t, delivery, input.runId);
  sendResumeSoon(t, { threadId: input.threadId, runId: input.runId });
  return { ok: true, run };
}

/**
 * Reads, or with `change` replaces, the run's callbackUrl (A2A push-notification config).
 * Later notifications go to the new URL; one already handed to the queue keeps its own. A
 * run that already waits tells the new URL now (its suspension's notification was sent, or
 * skipped, before the URL existed).
 */
export async function callbackUrl(
  t: ThreadContext,
  runId: string,
  change?: { url: string | null },
): Promise<{ callbackUrl: string | null } | undefined> {
  const run = t.store.run(runId);
  if (!run) {
    return undefined;
  }
  if (!change) {
    return { callbackUrl: run.callbackUrl };
  }
  t.store.update(runId, { callbackUrl: change.url }, Date.now());
  const waiting = change.url ? (run.pending ?? undefined) : undefined;
  if (waiting && !t.store.decision(waiting.id)) {
    t.notifications.add({ threadId: run.threadId, runId, requestId: waiting.id }, Date.now());
    await t.sends.notifications();
  }
  return { callbackUrl: change.url };
}

/**
 * Marks the run cancelled, closes its open turn (so the thread's next run sends a balanced
 * transcript) and its inbox items, and aborts the driver. A decision recorded before the
 * cancel is applied first; its driver records `done` afterwards, so `done` stays the last
 * event of the log.
 */
export async function cancelRun(
  t: ThreadContext,
  delivery: OutboxDelivery,
  runId: string,
): Promise<CancelOutcome> {
  const run = t.store.run(runId);
  if (!run) {
    return { ok: false, code: "run_not_found", message: `no run ${runId}` };
  }
  if (run.status !== "running" && run.status !== "pending") {
    return { ok: false, code: "run_not_active", message: `run ${runId} is already ${run.status}` };
  }
  const now = Date.now();
  // Read before the turn is closed: the requests the run waits on (remote tasks among them).
  const waits = t.store.slots(runId).flatMap((slot) => (slot.pending ? [slot.pending] : []));
  t.state.storage.transactionSync(() => {
    const request = run.pending ?? undefined;
    const decided = request && t.store.decision(request.id);
    t.store.update(runId, { status: "cancelled", cancelledAt: now, expiresAt: null }, now);
    if (!(decided && decided.appliedAt === null)) {
      closeOpenTurn(t.store, runId);
      t.events.record(runId, "done", { status: "cancelled" });
    }
    t.outbox.closeRun(runId, "run cancelled", now);
    t.handles.closeAll(runId, now); // its sub-agents: closed, their requests with them
  });
  delivery.soon({ arm: true }); // the cancelled run's timers (its expiry, the watchdog) are gone
  t.abort.abort(new Error("run cancelled"));
  // A remote task the run waited for durably is cancelled too (an MCP task: `tasks/cancel`).
  await cancelRemoteTasks(run, waits, {
    agents: t.agents,
    env: t.env,
    report: t.report,
    mcpTools: mcpTaskTools(t),
  });
  // An agent with onFailure "compensate" takes back what the cancelled run did (../undo/).
  await compensateOnFailure(t, runId);
  // A decision recorded before the cancel still applies to its call.
  await sendResume(t, run);
  return { ok: true, run: runView(t, t.store.requireRun(runId), false) };
}

/**
 * The object's `fetch`: a run's Server-Sent Events (event-hub.ts), or at `/tool-call-output`
 * one call's whole output. Both are responses rather than RPC results: one streams, the
 * other may be larger than an RPC message.
 */
export function threadFetch(t: ThreadContext, request: Request): Response {
  return new URL(request.url).pathname === "/tool-call-output"
    ? toolCallOutputResponse(t, request)
    : eventsResponse(t, request);
}

/**
 * A call's whole output as raw UTF-8 text (`?runId=&callId=`). An unknown run or call is the
 * 404 the route gives, passed through as it is.
 */
function toolCallOutputResponse(t: ThreadContext, request: Request): Response {
  const url = new URL(request.url);
  const runId = url.searchParams.get("runId") ?? "";
  const callId = url.searchParams.get("callId") ?? "";
  if (!t.store.run(runId)) {
    return Response.json(errorBody("run_not_found", `no run ${runId}`), { status: 404 });
  }
  const output = toolCallOutput(t, { runId, callId });
  if (output === undefined) {
    return Response.json(
      errorBody("tool_call_not_found", `run ${runId} has no finished tool call ${callId}`),
      { status: 404 },
    );
  }
  return new Response(output, {
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}
