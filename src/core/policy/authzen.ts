/**
 * An external policy decision point over the OpenID AuthZEN Authorization API 1.0: each call
 * is POSTed to `<url>/access/v1/evaluation` and the PDP answers `{ decision: boolean,
 * context? }`. `decision: false` denies (`context.reason`, or AuthZEN's `reason_user` /
 * `reason_admin`, is what the model is told); `decision: true` allows, unless
 * `context.ask` asks a person (docs/policy.md, "An external PDP").
 *
 * Anything but a well-formed answer in time — a refused connection, a timeout, a non-2xx,
 * a body that is not that shape — rejects with `PolicyUnavailable`, and the caller applies
 * the in-code rule instead (recorded as `policy: "fallback"`): never an allow it would not give.
 */
import { isRecord } from "../approvers/rules";
import { sha256 } from "../schema/sha256";
import { askVerdict, parseAsk } from "./ask";
import type { AccessEvaluation, PolicyAnswer, ToolPolicy } from "./types";

export const DEFAULT_PDP_TIMEOUT_MS = 1500;

export interface AuthzenOptions {
  /** The PDP's base URL; `/access/v1/evaluation` is appended. */
  url: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Milliseconds the PDP has to answer (default 1500). */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Recorded as the policy's id (default `"authzen"`). */
  id?: string;
}

/** The PDP could not give a usable answer: the in-code rule applies. */
export class PolicyUnavailable extends Error {
  override readonly name = "PolicyUnavailable";
}

/** A `ToolPolicy` that asks an AuthZEN PDP. */
export function authzenPolicy(options: AuthzenOptions): ToolPolicy {
  const endpoint = evaluationUrl(options.url);
  const timeoutMs = options.timeoutMs ?? DEFAULT_PDP_TIMEOUT_MS;
  return {
    id: options.id ?? "authzen",
    version: shortHash(endpoint),
    source: "authzen",
    async evaluate(evaluation: AccessEvaluation, { signal } = {}): Promise<PolicyAnswer> {
      const timeout = AbortSignal.timeout(timeoutMs);
      let response: Response;
      try {
        response = await (options.fetch ?? fetch)(endpoint, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json",
            ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
          },
          body: JSON.stringify(evaluation),
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
      } catch (error) {
        throw new PolicyUnavailable(
          timeout.aborted
            ? `the PDP did not answer within ${timeoutMs} ms`
            : `the PDP could not be reached: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw new PolicyUnavailable(`the PDP answered HTTP ${response.status}`);
      }
      let body: unknown;
      try {
        body = await response.json();
      } catch {
        throw new PolicyUnavailable("the PDP's answer is not JSON");
      }
      return parseAuthzenAnswer(body);
    },
  };
}

/** `{ decision: boolean, context? }` → a policy answer; any other shape is `PolicyUnavailable`. */
export function parseAuthzenAnswer(body: unknown): PolicyAnswer {
  if (!isRecord(body) || typeof body.decision !== "boolean") {
    throw new PolicyUnavailable(
      `the PDP's answer has no boolean "decision": ${JSON.stringify(body)?.slice(0, 200)}`,
    );
  }
  const context = body.context;
  if (context !== undefined && !isRecord(context)) {
    throw new PolicyUnavailable('the PDP\'s "context" is not an object');
  }
  if (!body.decision) {
    return { decision: "deny", reason: reasonOf(context) ?? "denied" };
  }
  if (context?.ask === undefined) {
    return { decision: "allow" };
  }
  try {
    const ask = parseAsk(context.ask, "the PDP's context.ask");
    askVerdict(ask, "the PDP's context.ask"); // the rules it becomes are checked here
    return { decision: "ask", ask };
  } catch (error) {
    throw new PolicyUnavailable(error instanceof Error ? error.message : String(error));
  }
}

/** `reason` (a string), else AuthZEN's `reason_user` / `reason_admin` (`{ "<lang>": text }`): the first text. */
function reasonOf(context: Record<string, unknown> | undefined): string | undefined {
  if (!context) {
    return undefined;
  }
  if (typeof context.reason === "string" && context.reason.trim()) {
    return context.reason;
  }
  for (const key of ["reason_user", "reason_admin"]) {
    const texts = context[key];
    if (isRecord(texts)) {
      const first = Object.values(texts).find((t) => typeof t === "string" && t.trim());
      if (typeof first === "string") {
        return first;
      }
    }
  }
  return undefined;
}

function evaluationUrl(base: string): string {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/access/v1/evaluation`;
  return url.href;
}

const encoder = new TextEncoder();

/** Eight hex digits of SHA-256: a policy's version from its text or URL. */
export function shortHash(text: string): string {
  return Array.from(sha256(encoder.encode(text)).slice(0, 4), (b) =>
    b.toString(16).padStart(2, "0"),
  ).join("");
}
