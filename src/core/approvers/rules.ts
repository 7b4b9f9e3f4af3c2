/**
 * Approver rules: who may decide a request, how many must agree, what they may edit,
 * and when to remind and escalate. Plain JSON data so they travel on the `Request`
 * (`data.approvers`) and every host — the in-process `waitFor`, the edge, each
 * channel — enforces the same thing (docs/architecture.md §6 "Rules").
 */
import type { Request } from "../types";
import { type Duration, parseDuration } from "./duration";

export interface Rules {
  /** A group of approvers, defined by the host (`approverGroups` / `APPROVER_GROUPS` at the edge). */
  group?: string;
  /** Individual approvers (member ids or identities), besides or instead of `group`. */
  anyOf?: string[];
  /** Approvals of the same arguments by distinct members needed to apply; default 1. */
  quorum?: number;
  /** Top-level argument keys an approver may change (`true` = all); default none. */
  editable?: boolean | string[];
  /** Re-notify the approvers this often while the request is pending. */
  remindEvery?: Duration;
  /** After `after`, group `to` may decide too and is notified. */
  escalate?: { after: Duration; to: string };
  /** This long before the request expires, its groups are warned once (`request.expiring`). */
  warnBefore?: Duration;
  /**
   * An undo window: once the quorum is met, the tool runs only after this delay; until then
   * any approver of the request may revoke the approval (`decision: "revoke"`).
   */
  delay?: Duration;
}

const KEYS = new Set([
  "group",
  "anyOf",
  "quorum",
  "editable",
  "remindEvery",
  "escalate",
  "warnBefore",
  "delay",
]);

/**
 * Checks rules and returns a plain JSON copy; a malformed rule throws a `TypeError`
 * naming the field (`what` prefixes the message, e.g. the tool's name).
 */
export function validateRules(value: unknown, what = "approvers"): Rules {
  if (!isRecord(value)) {
    throw new TypeError(`${what} must be an object of rules, got ${typeName(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (!KEYS.has(key)) {
      throw new TypeError(`${what}.${key} is not a rule (known: ${[...KEYS].join(", ")})`);
    }
  }
  const rules: Rules = {};
  if (value.group !== undefined) {
    rules.group = nonEmpty(value.group, `${what}.group`);
  }
  if (value.anyOf !== undefined) {
    if (!Array.isArray(value.anyOf) || value.anyOf.length === 0) {
      throw new TypeError(`${what}.anyOf must be a non-empty array of approver ids`);
    }
    rules.anyOf = value.anyOf.map((id, i) => nonEmpty(id, `${what}.anyOf[${i}]`));
  }
  if (rules.group === undefined && rules.anyOf === undefined) {
    throw new TypeError(`${what} must name a group or anyOf: otherwise nobody could decide`);
  }
  if (value.quorum !== undefined) {
    const q = value.quorum;
    if (typeof q !== "number" || !Number.isInteger(q) || q < 1 || q > 100) {
      throw new TypeError(`${what}.quorum must be a whole number from 1 to 100, got ${String(q)}`);
    }
    rules.quorum = q;
  }
  if (value.editable !== undefined) {
    const e = value.editable;
    if (typeof e === "boolean") {
      rules.editable = e;
    } else if (Array.isArray(e)) {
      rules.editable = e.map((k, i) => nonEmpty(k, `${what}.editable[${i}]`));
    } else {
      throw new TypeError(`${what}.editable must be true, false or a list of argument names`);
    }
  }
  if (value.remindEvery !== undefined) {
    parseDuration(value.remindEvery, `${what}.remindEvery`);
    rules.remindEvery = value.remindEvery as Duration;
  }
  if (value.escalate !== undefined) {
    const esc = value.escalate;
    if (!isRecord(esc)) {
      throw new TypeError(`${what}.escalate must be { after, to }`);
    }
    parseDuration(esc.after, `${what}.escalate.after`);
    rules.escalate = {
      after: esc.after as Duration,
      to: nonEmpty(esc.to, `${what}.escalate.to`),
    };
  }
  for (const key of ["warnBefore", "delay"] as const) {
    if (value[key] !== undefined) {
      parseDuration(value[key], `${what}.${key}`);
      rules[key] = value[key] as Duration;
    }
  }
  return rules;
}

/** The rules a request carries, or undefined for a request anyone holding a link may decide. */
export function rulesOf(request: Pick<Request, "data">): Rules | undefined {
  const rules = request.data?.approvers;
  return isRecord(rules) ? (rules as Rules) : undefined;
}

/** Every group a rule names (its own and the escalation's), for a host to check they exist. */
export function groupsOf(rules: Rules): string[] {
  const names = rules.group === undefined ? [] : [rules.group];
  if (rules.escalate && !names.includes(rules.escalate.to)) {
    names.push(rules.escalate.to);
  }
  return names;
}

/** Approvals needed to apply. */
export function quorumOf(rules: Rules | undefined): number {
  return rules?.quorum ?? 1;
}

/**
 * The member ids who may decide under `rules`: the group's members, `anyOf` (each
 * resolved to its member when `memberOf` knows it), and the escalation group's once
 * `escalated`. An undefined group contributes nobody; hosts check groups up front.
 */
export function eligibleMembers(
  rules: Rules,
  directory: {
    membersOf(group: string): readonly string[] | undefined;
    memberOf?(identity: string): string | undefined;
  },
  escalated = false,
): Set<string> {
  const members = new Set<string>(rules.group ? (directory.membersOf(rules.group) ?? []) : []);
  for (const id of rules.anyOf ?? []) {
    members.add(directory.memberOf?.(id) ?? id);
  }
  if (escalated && rules.escalate) {
    for (const id of directory.membersOf(rules.escalate.to) ?? []) {
      members.add(id);
    }
  }
  return members;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function nonEmpty(value: unknown, what: string): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new TypeError(`${what} must be a non-empty string, got ${typeName(value)}`);
  }
  return value;
}

function typeName(value: unknown): string {
  if (value === null) {
    return "null";
  }
  if (Array.isArray(value)) {
    return "an array";
  }
  return typeof value === "string" ? JSON.stringify(value) : `a ${typeof value}`;
}
