/**
 * A policy's `ask` translated into the approver rules a request carries (never a parallel
 * rule type: SHAPE-wave4): one group → `group`, `anyOf`, `quorum`, `editable`, and
 * `expiresIn` → the request's expiry. Anything the rules cannot say throws a TypeError.
 */
import { parseDuration } from "../approvers/duration";
import { isRecord, validateRules } from "../approvers/rules";
import type { PolicyAsk, Verdict } from "./types";

const ASK_KEYS = new Set(["groups", "anyOf", "quorum", "editable", "expiresIn", "reason"]);

/** Checks an `ask` object from outside (a PDP's context.ask, a Cedar annotation). */
export function parseAsk(value: unknown, what = "ask"): PolicyAsk {
  if (value === undefined) {
    return {};
  }
  if (!isRecord(value)) {
    throw new TypeError(`${what} must be an object`);
  }
  for (const key of Object.keys(value)) {
    if (!ASK_KEYS.has(key)) {
      throw new TypeError(`${what}.${key} is not understood (known: ${[...ASK_KEYS].join(", ")})`);
    }
  }
  const { groups, reason } = value;
  if (
    groups !== undefined &&
    !(Array.isArray(groups) && groups.every((g) => typeof g === "string" && g))
  ) {
    throw new TypeError(`${what}.groups must be a list of group names`);
  }
  if (Array.isArray(groups) && groups.length > 1) {
    throw new TypeError(
      `${what}.groups names ${groups.length} groups; a request's rule has one group (name people in anyOf)`,
    );
  }
  if (reason !== undefined && typeof reason !== "string") {
    throw new TypeError(`${what}.reason must be a string`);
  }
  return value as PolicyAsk;
}

/** The verdict an `ask` becomes: its rules (checked) and expiry in milliseconds. */
export function askVerdict(ask: PolicyAsk, what = "ask"): Extract<Verdict, { decision: "ask" }> {
  const verdict: Extract<Verdict, { decision: "ask" }> = { decision: "ask" };
  const group = ask.groups?.[0];
  if (group !== undefined || ask.anyOf !== undefined) {
    const rules: Record<string, unknown> = {};
    if (group !== undefined) {
      rules.group = group;
    }
    if (ask.anyOf !== undefined) {
      rules.anyOf = ask.anyOf;
    }
    if (ask.quorum !== undefined) {
      rules.quorum = ask.quorum;
    }
    if (ask.editable !== undefined) {
      rules.editable = ask.editable;
    }
    verdict.rules = validateRules(rules, what);
  } else if (ask.quorum !== undefined || ask.editable !== undefined) {
    throw new TypeError(`${what}: quorum and editable need groups or anyOf (who counts)`);
  }
  if (ask.expiresIn !== undefined) {
    verdict.expiresIn = parseDuration(ask.expiresIn, `${what}.expiresIn`);
  }
  return verdict;
}
