/**
 * Which policy decided that a request needs a person, as the run view shows it (issue 43):
 * `policy: "<source>"` (`code`, `authzen`, `cedar` or `fallback` when the PDP failed and the
 * in-code rule applied) and the whole record as `policyDecision`. Requests raised before
 * policies existed carry none and show neither.
 */
import type { Request } from "../../core/types";
import type { PolicyRecord, PolicySource } from "../../core/policy/types";
import { isRecord } from "../../core/approvers/rules";

export interface PolicyFields {
  policy?: PolicySource;
  policyDecision?: PolicyRecord;
}

const SOURCES = new Set(["code", "authzen", "cedar", "fallback"]);
const DECISIONS = new Set(["allow", "deny", "ask"]);

/** The record a request carries (`data.policy`), if it is well formed. */
export function policyRecordOf(
  request: Pick<Request, "data"> | undefined,
): PolicyRecord | undefined {
  const record = request?.data?.policy;
  if (
    isRecord(record) &&
    typeof record.id === "string" &&
    typeof record.version === "string" &&
    DECISIONS.has(record.decision as string) &&
    SOURCES.has(record.source as string)
  ) {
    return record as unknown as PolicyRecord;
  }
  return undefined;
}

export function policyFields(request: Pick<Request, "data"> | undefined): PolicyFields {
  const record = policyRecordOf(request);
  return record ? { policy: record.source, policyDecision: record } : {};
}
