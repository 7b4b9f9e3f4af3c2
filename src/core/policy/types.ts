/**
 * The one policy interface (docs/policy.md): every tool call is an AuthZEN 1.0 access
 * evaluation — who (subject) wants to do what (action `call_tool`) to which tool (resource),
 * in which run (context) — and a policy answers allow, deny (with a reason the model is told)
 * or ask (which becomes the request's approver rules). The in-code rules of `requireApproval`,
 * an external PDP (`AUTHZEN_URL`) and a Cedar policy all answer through it.
 */
import type { Answer, Request } from "../types";
import type { Duration } from "../approvers/duration";
import type { Rules } from "../approvers/rules";

/** The AuthZEN 1.0 access evaluation request of one tool call. */
export interface AccessEvaluation {
  subject: { type: string; id: string; properties?: Record<string, unknown> };
  action: { name: "call_tool" };
  resource: {
    type: "tool";
    id: string;
    properties: { agent: string; args: unknown; argsHash: string };
  };
  context: PolicyContext;
}

/** The run a call belongs to. */
export interface PolicyContext {
  runId: string;
  threadId: string;
  agentVersion: string;
  parentRunId?: string;
}

/** What an `ask` answer asks for: translated into the request's approver rules (§6 Rules). */
export interface PolicyAsk {
  /** One group (the rules name one group; several are not representable and are refused). */
  groups?: string[];
  anyOf?: string[];
  quorum?: number;
  editable?: boolean | string[];
  expiresIn?: Duration;
  /** Why a person is asked (shown nowhere yet but the policy record). */
  reason?: string;
}

/** A policy's answer to one evaluation. */
export type PolicyAnswer =
  | { decision: "allow" }
  | { decision: "deny"; reason: string }
  | { decision: "ask"; ask?: PolicyAsk };

/** Where the deciding answer came from, as the run view shows it (`policy: "<source>"`). */
export type PolicySource = "code" | "authzen" | "cedar" | "fallback";

/** A policy an agent or the edge configuration gives: evaluated for every tool call. */
export interface ToolPolicy {
  /** `"authzen"`, `"cedar:<hash8>"`, … — recorded on requests and receipts. */
  id: string;
  /** A hash of the policy text or URL. */
  version: string;
  source: Exclude<PolicySource, "code" | "fallback">;
  /**
   * The answer, or a rejection when the policy could not answer (down, slow, malformed):
   * the caller then applies the in-code rule and records `policy: "fallback"`.
   */
  evaluate(evaluation: AccessEvaluation, options?: EvaluateOptions): Promise<PolicyAnswer>;
  /**
   * Checked before the edge serves (a `ConfigError` names the mistake: a Cedar syntax error
   * and its line); resolves to the groups the policy may ask, which must exist.
   */
  check?(): Promise<{ groups: string[] }>;
}

export interface EvaluateOptions {
  signal?: AbortSignal;
  /** When the call was made (a replay of recorded calls); default now. */
  at?: Date;
}

/**
 * A decision ready to apply: allow (with the in-code policy's own answer when it approved
 * automatically), deny with the reason the model is told, or ask under these rules.
 */
export type Verdict =
  | { decision: "allow"; answer?: Answer }
  | { decision: "deny"; reason: string }
  | { decision: "ask"; rules?: Rules; expiresIn?: number };

/** Which policy decided, as `request.data.policy` carries it to the run view and the receipt. */
export interface PolicyRecord {
  id: string;
  version: string;
  decision: Verdict["decision"];
  source: PolicySource;
}

/** What an approval gate offers the in-code policy (structurally `ApprovalGate`). */
export interface InCodeRules {
  needsApproval(args: unknown): boolean;
  policy(args: unknown, request: Request): Answer | undefined;
  rulesFor(args: unknown): Rules | undefined;
}
