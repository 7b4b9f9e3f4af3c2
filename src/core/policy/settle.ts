/**
 * A verdict applied to a call (the one code path of `requireApproval` and every policy):
 * deny → the refusal the model is told (the tool does not run), allow → the tool runs, ask →
 * the run suspends on the request under the verdict's rules. The request carries which policy
 * decided (`data.policy`), and a decision made without a person rides on the result as
 * `metadata.policy`, so the edge records it in the ledger (and a receipt) like any decision.
 */
import type { Answer, Request, ToolResult } from "../types";
import { answerDeclined, pending } from "../answers";
import { declinedResult } from "../suspension";
import type { PolicyRecord, Verdict } from "./types";

export interface Settling {
  verdict: Verdict;
  /** The request the call would raise (prompt, `data.tool`, `data.args`, the in-code rules). */
  request: Request;
  /** Which policy decided; absent in-process where nobody reads it. */
  record?: PolicyRecord;
  /** Record an allow without a person too (an external policy was asked). */
  recordAllow?: boolean;
  /** Runs the tool itself, past every gate. */
  run(): Promise<ToolResult>;
}

export async function settle(settling: Settling): Promise<ToolResult> {
  const { verdict, record } = settling;
  const request = record
    ? { ...settling.request, data: { ...settling.request.data, policy: record } }
    : settling.request;
  switch (verdict.decision) {
    case "deny": {
      const answer = answerDeclined(request.id, verdict.reason);
      const result = declinedResult(request, answer.reason);
      return { ...result, metadata: { ...result.metadata, policy: { request, answer } } };
    }
    case "allow": {
      const result = await settling.run();
      const answer: Answer | undefined =
        verdict.answer ?? (settling.recordAllow ? { id: request.id, ok: true } : undefined);
      return answer
        ? { ...result, metadata: { ...result.metadata, policy: { request, answer } } }
        : result;
    }
    case "ask":
      return pending(asked(request, verdict));
  }
}

/** The request under the ask's rules (none: anyone holding a link) and its earlier expiry. */
function asked(request: Request, verdict: Extract<Verdict, { decision: "ask" }>): Request {
  const { approvers: _inCode, ...data } = request.data ?? {};
  const out: Request = {
    ...request,
    data: verdict.rules ? { ...data, approvers: verdict.rules } : data,
  };
  if (verdict.expiresIn !== undefined) {
    const at = Date.now() + verdict.expiresIn;
    const current = request.expiresAt ? Date.parse(request.expiresAt) : Number.POSITIVE_INFINITY;
    if (at < current) {
      out.expiresAt = new Date(at).toISOString();
    }
  }
  return out;
}
