/**
 * Drives one run of a thread from its stored state: decides what work there is
 * (start or carry on, apply a recorded decision, expire a request), runs the kernel
 * with a fresh client, and persists at every turn boundary. Nothing is kept in
 * memory across a suspension: every step starts from storage.
 */
import type { RunResult } from "../../../src/core/types";
import { agentVersion } from "../../../src/edge/versions/agent-version";
import { createToolkit, type Toolkit } from "../../../src/core/toolkit";
import { agentTools, approvalTimeoutOf, type AgentDefinition } from "../../../src/edge/agent";
import { policyTools } from "../../../src/edge/policy/run-tools";
import { runPolicy } from "../../policy/run-policy";
import { closeOpenTurn } from "./close-turn";
import { requestsOf } from "../../../src/core/suspension";
import {
  callGroup,
  decidedBeside,
  surfacedBefore,
  type SurfacedBefore,
  withdrawnSince,
} from "../../storage/call-group";
import { makeClient } from "./make-client";
import { recordExpiry } from "./expiry";
import { checkpointer } from "./checkpoint";
import type { DriverDeps, Work } from "./driver-deps";
import { HALTED_SIGNAL } from "../event-hub";
import { durableElicitation, type InlineDeps } from "./elicitation";
import {
  driveTracing,
  resumedTrace,
  storedTrace,
  traceIdOfRun,
  type DriveTracing,
} from "./tracing";
import { runOAuth } from "../../tokens/run-oauth";
import { answerUnderCurrentVersion } from "../../versions/resume-check";
import type { RunRow } from "../../storage/run-store";
import { runError } from "../../../src/edge/run-error";
import { isHeld } from "../../undo/window";

import { routeAnswer, runLimitBefore, runTeamTools, treeOf } from "../../agents/run-tree";

export type { DriverDeps, Work } from "./driver-deps";

/** What the stored state says should happen next for this run, or undefined. */
export function nextWork(deps: DriverDeps, run: RunRow): Work | undefined {
  if (run.status === "running") {
    // Turns already taken ⇒ this is a recovery from a crash, not a first start.
    return { kind: "continue", recovering: run.turns > 0 };
  }
  const request = run.pending ?? undefined;
  if (!request) {
    return undefined;
  }
  let decision = deps.store.decision(request.id);
  if (
    run.status === "pending" &&
    !decision &&
    run.expiresAt !== null &&
    run.expiresAt <= deps.now()
  ) {
    decision = recordExpiry(deps, run, request);
  }
  if (!decision || decision.appliedAt !== null) {
    // Another request of the surfaced call was decided: it is applied now (./call-group).
    const beside = run.status === "pending" ? decidedBeside(deps.store, run) : undefined;
    return beside ? { kind: "answer", ...beside, finalOnly: false } : undefined;
  }
  // An approval in its undo window (rule `delay`) waits; the alarm is armed for its end.
  if (isHeld(decision, request, deps.now())) {
    return undefined;
  }
  if (run.status === "pending") {
    return { kind: "answer", decision, request, finalOnly: false };
  }
  // Cancelled after the decision was recorded: the decision still applies to its call, the model is not called again.
  if (
    run.status === "cancelled" &&
    run.cancelledAt !== null &&
    decision.decidedAt <= run.cancelledAt
  ) {
    return { kind: "answer", decision, request, finalOnly: true };
  }
  return undefined;
}

/** A pending run only waiting for a person: `nextWork` finds nothing for it (no expiry recorded). */
export function waitsForADecision(deps: DriverDeps, run: RunRow): boolean {
  const request = run.pending;
  return (
    run.status === "pending" &&
    request !== null &&
    (run.expiresAt === null || run.expiresAt > deps.now()) &&
    !deps.store.decision(request.id) &&
    decidedBeside(deps.store, run) === undefined
  );
}

/** Runs one unit of work. Returns true when it changed something (the caller looks again). */
export async function driveOnce(
  deps: DriverDeps,
  runId: string,
  signal: AbortSignal,
): Promise<boolean> {
  const run = deps.store.run(runId);
  if (!run) {
    return false;
  }
  const work = nextWork(deps, run);
  if (!work) {
    return false;
  }
  const agent = deps.agents.get(run.agent);
  if (!agent) {
    fail(deps, run, new Error(`agent ${JSON.stringify(run.agent)} is not deployed any more`));
    return false;
  }

  const before = surfacedBefore(deps.store, run);
  const tree = treeOf(deps, run, signal);
  // A sub-agent's request: its tree takes the answer first and fills the run's task slot.
  const routed =
    work.kind === "answer" && !work.finalOnly && tree
      ? await routeAnswer(tree, work.request, work.decision.answer)
      : "none";
  const { messages, committed } = deps.store.transcript(runId);
  const stored = {
    runId,
    toolCalls: deps.store.toolCalls(runId),
    turns: run.turns,
    usage: run.usage,
    model: run.model ?? undefined,
  };
  const scope = { run, committed, stored: stored.toolCalls, work, signal };
  const persister = checkpointer(deps, scope);
  const finalOnly = work.kind === "answer" && work.finalOnly;

  let result: RunResult;
  let toolkit: Toolkit | undefined;
  let tracing: DriveTracing | undefined;
  try {
    tracing = await driveTracing(deps, run, agent);
    // Inside the try: a missing model or tools that fail to build end the run with their message.
    const client = makeClient(deps, agent, {
      afterCancel: finalOnly,
      maxTurns: finalOnly ? run.turns : undefined,
      limitBefore: finalOnly ? undefined : runLimitBefore(tree),
      persister,
      signal,
      traced: tracing?.client ?? {},
    });
    toolkit = await createToolkit({
      tools: [
        // Every call of the agent's own tools is decided through the policy interface (issue 43).
        ...policyTools(await agentTools(agent, deps.env), runPolicy(deps, { agent, run })),
        ...runTeamTools(tree, agent),
      ],
      env: deps.env,
      ...(agent.builtins ? { builtins: agent.builtins } : {}),
      ...(deps.remoteTaskWindowMs === undefined ? {} : { suspendAfterMs: deps.remoteTaskWindowMs }),
      // A resumed traced run: its MCP servers' discover and list requests carry its trace too.
      ...(run.trace?.traceparent ? { traceparent: run.trace.traceparent } : {}),
      ...(agent.mcp === undefined
        ? {}
        : {
            // An `oauth` server: the subject's durable tokens and a signed state (tokens/run-oauth.ts).
            ...runOAuth(deps.env, run, agent.mcp),
            onElicitation: durableElicitation(inlineDeps(deps), runId),
            attributeElicitations: true, // approvers, receipts and version checks name the tool
            ...(deps.fetch ? { fetch: deps.fetch } : {}),
          }),
    });
    // A server that failed to connect never breaks the run (its tools are just missing),
    // so it is reported, not thrown.
    for (const [server, status] of Object.entries(toolkit.mcpStatus())) {
      if (status.status === "failed") {
        deps.report?.(
          new Error(
            `MCP server ${server} is unavailable, the run goes on without its tools: ${status.reason}`,
          ),
          { source: "driver", runId, threadId: run.threadId, recoverable: true },
        );
      }
    }
    // The answered call's result may be stored already (a crash after it ran, before the turn
    // was checkpointed): then the answer is in the transcript, and the run carries on from it.
    const answerApplied =
      work.kind === "answer" &&
      !deps.store
        .slots(runId)
        .some((slot) => requestsOf(slot).some((r) => r.id === work.request.id));
    if (work.kind === "answer" && !answerApplied) {
      const checked = await answerUnderCurrentVersion(deps, {
        ...work,
        run,
        agent,
        tools: toolkit.tools(),
      });
      if ("reask" in checked) {
        // The migrated arguments need other approvers: the call asks them, nothing runs yet.
        await (deps.reask ?? noReask)(checked.reask);
        return true;
      }
      deps.record(runId, "resumed", {
        requestId: work.request.id,
        decision: work.decision.decision,
        channel: work.decision.channel,
      });
      result = await client.runWithAnswer({
        ...stored,
        ...resumedTrace(run, work),
        toolkit,
        history: messages,
        pending: work.request,
        answer: checked.answer,
        signal,
      });
    } else {
      // Only a real recovery says so: a sub-agent that took its answer just now announced
      // the hand-off itself (`resumed { requestId, handle }`, ../../agents/cascade.ts).
      if (work.kind === "continue" ? work.recovering : routed !== "answered") {
        deps.record(runId, "resumed", { reason: "recovered from the last checkpoint" });
      }
      result = await client.continueRun({
        ...stored,
        ...resumedTrace(run, work),
        toolkit,
        history: messages,
        signal,
      });
    }
  } catch (error) {
    const current = deps.store.run(runId);
    if (current?.status === "cancelled") {
      if (work.kind === "answer" && work.finalOnly) {
        settleCancelled(deps, runId);
      }
      return false;
    }
    fail(deps, current ?? run, error);
    return true;
  } finally {
    await toolkit?.close();
    if (tracing) {
      deps.waitUntil?.(tracing.flush()); // after the response; flush never rejects
    }
  }
  if (work.kind === "answer" && work.finalOnly) {
    settleCancelled(deps, runId);
    return true;
  }
  await finish(deps, { agent, runId, before }, result);
  return true;
}

const noReask = async () => {
  throw new Error("a request must be asked again, and this driver has no reask");
};

function inlineDeps(deps: DriverDeps): InlineDeps {
  return {
    store: deps.store,
    waiters: deps.waiters,
    windowMs: deps.elicitationWindowMs,
    now: deps.now,
    transaction: deps.transaction,
    record: deps.record,
    surface: (runId, request) => deps.halted(deps.store.requireRun(runId), request),
    ...(deps.inbox ? { inbox: deps.inbox } : {}),
    ...(deps.parked ? { parked: deps.parked } : {}),
  };
}

async function finish(
  deps: DriverDeps,
  drive: { agent: AgentDefinition; runId: string; before: SurfacedBefore },
  result: RunResult,
): Promise<void> {
  const { agent, runId, before } = drive;
  // The version a request suspends under (its receipt and a later resume compare with it),
  // computed first: nothing awaits between the reads below and their transaction.
  const version = result.status === "pending" ? await agentVersion(agent, deps.env) : null;
  const run = deps.store.requireRun(runId);
  if (run.status === "cancelled") {
    return;
  }
  deps.transaction(() => {
    for (const id of withdrawnSince(deps.store, runId, before)) {
      deps.inbox?.withdrawn(id, "the call ended without it (another of its requests was refused)");
    }
  });
  if (result.status === "pending" && result.pending) {
    const request = result.pending;
    // Still the same request (another of its call's requests was answered): its expiry stands.
    const kept = before.pendingId === request.id && before.expiresAt !== null;
    const expires = kept
      ? (before.expiresAt as number)
      : request.expiresAt
        ? Date.parse(request.expiresAt)
        : deps.now() + approvalTimeoutOf(agent, deps.env);
    // A suspended elicitation was surfaced (and notified) when its window opened.
    const surfacedInline = run.inlineRequest !== null && run.inlineRequest.id === request.id;
    // Surfaced already (with its call's other requests, ./call-group)? Not again.
    const fresh = (r: { id: string }) => !deps.store.decision(r.id) && !before.ids.has(r.id);
    // Decided before it was surfaced (a sibling call's request)? Then the caller loops and applies it now.
    const surfacing = fresh(request) && !surfacedInline;
    // The call's other requests surface with it: all are open, answered in any order.
    const beside = callGroup(deps.store, runId, request.id).filter(
      (r) => r.id !== request.id && fresh(r),
    );
    deps.transaction(() => {
      deps.store.update(
        runId,
        {
          status: "pending",
          pending: request,
          expiresAt: expires,
          inlineRequest: null,
          ...storedTrace(result.trace),
          agentVersion: version,
        },
        deps.now(),
      );
      if (surfacing || surfacedInline) {
        deps.inbox?.surfaced(deps.store.requireRun(runId), request); // now with its expiry
      }
      for (const other of beside) {
        deps.inbox?.surfaced(deps.store.requireRun(runId), other);
      }
      if (!deps.store.decision(request.id)) {
        // Live streams learn of the halt now (not logged: see durable/thread/event-hub.ts).
        deps.record(runId, HALTED_SIGNAL, { requestId: request.id });
      }
    });
    if (surfacing) {
      await deps.halted(deps.store.requireRun(runId), request);
    }
    for (const other of beside) {
      await deps.halted(deps.store.requireRun(runId), other);
    }
    return;
  }
  deps.transaction(() => {
    deps.store.update(
      runId,
      {
        status: result.status,
        text: result.text,
        pending: null,
        inlineRequest: null,
        expiresAt: null,
        limitReason: result.limit ?? null,
        ...storedTrace(result.trace),
      },
      deps.now(),
    );
    deps.inbox?.ended(runId, `run ${result.status}`);
    deps.record(runId, "done", {
      status: result.status,
      text: result.text,
      usage: result.usage,
      turns: result.turns,
      ...(result.limit ? { limit: result.limit } : {}),
    });
  });
}

/** A cancelled run after its last recorded decision: close the turn for good and end the log. */
function settleCancelled(deps: DriverDeps, runId: string): void {
  deps.transaction(() => {
    closeOpenTurn(deps.store, runId);
    deps.inbox?.ended(runId, "run cancelled");
    deps.record(runId, "done", { status: "cancelled" });
  });
}

/** Ends the run `failed` with the error's code and message (run-error.ts), in its event log and to the error sink. */
function fail(deps: DriverDeps, run: RunRow, error: unknown): void {
  const failure = runError(error);
  deps.transaction(() => {
    deps.store.update(
      run.runId,
      { status: "failed", error: failure, pending: null, expiresAt: null },
      deps.now(),
    );
    deps.inbox?.ended(run.runId, "run failed");
    deps.record(run.runId, "error", failure);
  });
  const traceId = traceIdOfRun(run);
  deps.report?.(error, {
    source: "driver",
    runId: run.runId,
    threadId: run.threadId,
    ...(traceId ? { traceId } : {}),
    // The log line says what the run says (value_too_large, config_error, …), not driver_failed.
    code: failure.code,
    recoverable: false,
  });
}
