/**
 * An undo that needs approval (`defineAgent({ undo: { approvers } })`, docs/undo.md): its
 * request is decided like any other — POST /v1/decisions, the page, the inbox — by the same
 * vote rule (`castVote`: who may decide, quorum, expiry, one way to edit), and approvers may
 * edit only its `reason`. The vote that settles it records the decision (and its receipt) and,
 * approved, turns the undo to `compensating` in the same transaction; the thread's decide then
 * drives the run, whose drive carries the undo on (run-undos.ts). Declined: nothing is undone.
 */
import type { DecisionInput, DecisionOutcome } from "../../src/edge/protocol";
import { quorumOf, rulesOf } from "../../src/core/approvers/rules";
import { currentArgs } from "../../src/core/approvers/vote";
import { canonicalJson } from "../../src/core/schema/canonical-json";
import { castVote, type EditCheck } from "../ledger/votes";
import { settledEvent } from "../outbox/inbox";
import type { ThreadContext } from "../thread/context";

/** The tool an undo's request names (its receipts say `tool: "undo"`). */
export const UNDO_TOOL = "undo";
const PREFIX = "undo_";

/** A fresh id per undo request of a run (a new undo after a declined one asks again). */
export function undoRequestId(runId: string, now: number): string {
  return `${PREFIX}${runId.replace(/[^A-Za-z0-9_-]/g, "_")}_${now.toString(36)}`;
}

export function isUndoRequest(requestId: string): boolean {
  return requestId.startsWith(PREFIX);
}

/** A decision on an undo's request: a vote through the ledger's rule, an edit of the reason only. */
export function decideUndo(t: ThreadContext, input: DecisionInput): DecisionOutcome {
  const first = voteOnce(t, input, undefined);
  if (!("checkEdit" in first)) {
    return first;
  }
  const reason = first.checkEdit.args.reason;
  const keys = Object.keys(first.checkEdit.args);
  if (
    typeof reason !== "string" ||
    reason.trim() === "" ||
    reason.length > 1000 ||
    keys.length !== 1
  ) {
    return {
      ok: false,
      code: "invalid_args",
      message: "an undo's arguments are { reason }: a non-empty string of at most 1000 characters",
    };
  }
  const second = voteOnce(t, input, canonicalJson(first.checkEdit.args));
  if ("checkEdit" in second) {
    throw new Error("an undo's edit checked once asked to be checked again");
  }
  return second;
}

function voteOnce(
  t: ThreadContext,
  input: DecisionInput,
  checked: string | undefined,
): DecisionOutcome | EditCheck {
  return t.state.storage.transactionSync(() => {
    const now = Date.now();
    const run = t.store.run(input.runId);
    const undo = run && t.undo.undo(run.runId);
    const request = undo?.request;
    if (!run || !undo || !request || request.id !== input.requestId) {
      return {
        ok: false,
        code: run ? "request_not_found" : "run_not_found",
        message: run
          ? `run ${run.runId} has no request ${input.requestId}`
          : `no run ${input.runId}`,
      };
    }
    if (input.decision === "revoke") {
      return {
        ok: false,
        code: "request_not_pending",
        message: `request ${request.id} is an undo's: it has no undo window to revoke in`,
      };
    }
    const settled = t.store.decision(request.id);
    const outcome = castVote(
      { store: t.store, votes: t.votes, directory: t.directory(), ...(checked ? { checked } : {}) },
      {
        // Whoever asked for the undo may not approve it (as a requester may not approve their own run's call).
        run: { ...run, requestedBy: undo.requestedBy },
        request,
        input,
        now,
        ...(settled ? { settled } : {}),
      },
    );
    if ("checkEdit" in outcome || !outcome.ok || outcome.duplicate) {
      return outcome;
    }
    const decision = t.store.decision(request.id);
    const votes = t.votes.votes(request.id);
    const needed = quorumOf(rulesOf(request));
    t.outbox.record(
      { run, request },
      decision
        ? { event: settledEvent(decision), decision, votes, needed }
        : { event: "vote", votes, needed },
      now,
    );
    if (decision && undo.state === "awaiting_approval") {
      const approved = decision.decision === "approve";
      const edited = currentArgs(request, votes).reason;
      const reason = typeof edited === "string" ? edited : undo.reason;
      t.undo.settled(run.runId, { approved, reason, now });
      t.store.markApplied(request.id, now);
      t.events.record(run.runId, approved ? "undo_approved" : "undo_declined", {
        requestId: request.id,
        decidedBy: decision.decidedBy,
        reason,
      });
    }
    return outcome;
  });
}
