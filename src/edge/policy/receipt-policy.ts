/**
 * What a receipt says about the policy that decided (issue 43, docs/receipts.md): `policy: {
 * id, version, decision, fallback? }` drafted from the request's `data.policy`, and — so that
 * `policy-replay` can evaluate a candidate policy against recorded decisions — the call's
 * `args`, the run's `requestedBy` and its `agent`. Both are what the approvers and the run view already
 * show to API-token holders; `args` is checked against `argsHash` by `verify-receipts`.
 */
import type { Request } from "../../core/types";
import { argsHash } from "../../core/approvers/args-hash";
import { isRecord } from "../../core/approvers/rules";
import { policyRecordOf } from "./view";

export interface ReceiptPolicy {
  id: string;
  version: string;
  decision: "allow" | "deny" | "ask";
  /** The PDP could not answer: the in-code rule applied. */
  fallback?: true;
}

/** The receipt members a policy-decided request adds; none for a request without a record. */
export function receiptPolicyFields(
  request: Request,
  { args, requestedBy, agent }: { args: unknown; requestedBy?: string | null; agent?: string },
): {
  policy?: ReceiptPolicy;
  args?: Record<string, unknown>;
  requestedBy?: string;
  agent?: string;
} {
  const record = policyRecordOf(request);
  if (!record) {
    return {};
  }
  return {
    policy: {
      id: record.id,
      version: record.version,
      decision: record.decision,
      ...(record.source === "fallback" ? { fallback: true as const } : {}),
    },
    ...(isRecord(args) ? { args } : {}),
    ...(requestedBy ? { requestedBy } : {}),
    ...(agent ? { agent } : {}),
  };
}

/** What is wrong with a receipt's policy members, or undefined (old receipts have none). */
export function receiptPolicyProblem(receipt: Record<string, unknown>): string | undefined {
  const { policy, args } = receipt;
  if (policy !== undefined) {
    if (
      !isRecord(policy) ||
      typeof policy.id !== "string" ||
      typeof policy.version !== "string" ||
      !["allow", "deny", "ask"].includes(policy.decision as string) ||
      (policy.fallback !== undefined && policy.fallback !== true)
    ) {
      return "policy is not { id, version, decision: allow | deny | ask, fallback? }";
    }
  }
  if (args !== undefined) {
    if (!isRecord(args)) {
      return "args is not an object";
    }
    if (argsHash(args) !== receipt.argsHash) {
      return "args do not match argsHash";
    }
  }
  for (const key of ["requestedBy", "agent"]) {
    if (receipt[key] !== undefined && typeof receipt[key] !== "string") {
      return `${key} is not a string`;
    }
  }
  return undefined;
}
