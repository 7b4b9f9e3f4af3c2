/**
 * A Cedar policy for `defineAgent({ policy })` (docs/policy.md, "Cedar"): each call is a
 * Cedar authorization request (./request.ts). `forbid` → deny (the model is told the
 * policy's `@reason("…")`, else which policy forbade it), `permit` → allow, and a satisfied
 * permit annotated `@ask("<group>")` (with `@quorum("2")`, `@editable("amount")`,
 * `@expiresIn("4h")`) → ask that group. No permit satisfied is Cedar's default: deny.
 * Cedar annotations hold one string each, hence `@ask("finance") @quorum("2")` rather than
 * `@ask("finance", 2)`.
 */
import type { Entities, Schema } from "@cedar-policy/cedar-wasm/web";
import { shortHash } from "../../../core/policy/authzen";
import type { PolicyAnswer, PolicyAsk, ToolPolicy } from "../../../core/policy/types";
import { ConfigError } from "../../config-error";
import type { CedarApi } from "./api";
import { type ParsedPolicy, type ParsedPolicySet, parsePolicySet } from "./parse";
import { cedarRequest } from "./request";

export interface CedarPolicyOptions {
  /** Cedar policy text, or several texts by file name (`{ "refunds.cedar": "…" }`). */
  policies: string | Record<string, string>;
  /** Validates each request against it when given. */
  schema?: Schema;
  /** Entities the policies refer to (groups of users, say), in Cedar's JSON form. */
  entities?: Entities;
}

/** What a policy needs to be checked before it serves (configCheck): the groups it may ask. */
export interface CheckedPolicy {
  groups: string[];
}

export interface CedarToolPolicy extends ToolPolicy {
  /** Parses the policies (a syntax error is a `ConfigError` naming file and line). */
  check(): Promise<CheckedPolicy>;
}

export function cedarPolicyWith(api: () => CedarApi, options: CedarPolicyOptions): CedarToolPolicy {
  const files =
    typeof options.policies === "string"
      ? { "policies.cedar": options.policies }
      : options.policies;
  const version = shortHash(
    Object.entries(files)
      .map(([name, text]) => `${name}\n${text}`)
      .join("\n\0"),
  );
  let parsed: ParsedPolicySet | undefined;
  const ready = (): ParsedPolicySet => {
    parsed ??= parsePolicySet(api(), files);
    return parsed;
  };
  return {
    id: `cedar:${version}`,
    version,
    source: "cedar",
    async check() {
      const set = ready();
      const groups = new Set<string>();
      for (const policy of set.policies.values()) {
        const ask = askOf(policy);
        for (const group of ask?.groups ?? []) {
          groups.add(group);
        }
      }
      return { groups: [...groups] };
    },
    async evaluate(evaluation, { at = new Date() } = {}): Promise<PolicyAnswer> {
      const set = ready();
      const answer = api().isAuthorized({
        ...cedarRequest(evaluation, at),
        policies: { staticPolicies: set.texts },
        entities: options.entities ?? [],
        ...(options.schema ? { schema: options.schema, validateRequest: true } : {}),
      });
      if (answer.type === "failure") {
        throw new Error(
          `Cedar could not evaluate the call: ${answer.errors.map((e) => e.message).join("; ")}`,
        );
      }
      const determining = answer.response.diagnostics.reason
        .map((id) => set.policies.get(id))
        .filter((p): p is ParsedPolicy => p !== undefined);
      if (answer.response.decision === "deny") {
        const forbid = determining.find((p) => p.effect === "forbid");
        return {
          decision: "deny",
          reason: forbid
            ? (forbid.annotations.reason ?? `forbidden by Cedar policy ${forbid.id}`)
            : "no Cedar policy permits this call",
        };
      }
      const asks = determining.map(askOf).filter((a): a is PolicyAsk => a !== undefined);
      if (asks.length === 0) {
        return { decision: "allow" };
      }
      const strictest = asks.reduce((a, b) => ((b.quorum ?? 1) > (a.quorum ?? 1) ? b : a));
      return { decision: "ask", ask: strictest };
    },
  };
}

/** A permit's `@ask` annotations as an ask, or undefined; malformed ones are a `ConfigError`. */
function askOf(policy: ParsedPolicy): PolicyAsk | undefined {
  const { ask: group, quorum, editable, expiresIn, reason } = policy.annotations;
  if (policy.effect !== "permit" || group === undefined) {
    return undefined;
  }
  if (!group.trim()) {
    throw new ConfigError(`Cedar policy ${policy.id}: @ask names no group`);
  }
  const ask: PolicyAsk = { groups: [group.trim()] };
  if (quorum !== undefined) {
    const n = Number(quorum);
    if (!(Number.isInteger(n) && n >= 1 && n <= 100)) {
      throw new ConfigError(`Cedar policy ${policy.id}: @quorum must be 1 to 100, got "${quorum}"`);
    }
    ask.quorum = n;
  }
  if (editable !== undefined) {
    ask.editable =
      editable.trim() === "true"
        ? true
        : editable
            .split(",")
            .map((k) => k.trim())
            .filter(Boolean);
  }
  if (expiresIn !== undefined) {
    ask.expiresIn = expiresIn.trim() as PolicyAsk["expiresIn"] & string;
  }
  if (reason !== undefined) {
    ask.reason = reason;
  }
  return ask;
}
