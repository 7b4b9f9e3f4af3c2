import type { Answer, Context, Request, Tool, ToolResult } from "../types";
import { newRequestId } from "../answers";
import { declinedResult } from "../suspension";
import { inCodeVerdict } from "../policy/in-code";
import { settle } from "../policy/settle";
import type { UntypedArgs } from "./define";
import { validateRules, type Rules } from "../approvers/rules";

export interface RequireApprovalOptions<Args = UntypedArgs> {
  /** Whether this call needs approval; default: always. */
  when?: (args: Args) => boolean;
  prompt?: string | ((args: Args) => string);
  /** Default `"approval"`. */
  kind?: string;
  /** Milliseconds until the request expires (sets `expiresAt`). */
  expiresIn?: number;
  /** Decides automatically; `undefined` leaves it to a person. Its answer counts exactly like a human's. */
  policy?: (args: Args, request: Request) => Answer | undefined;
  /**
   * Who may decide, how many must agree, what they may edit, reminders and escalation
   * (docs/architecture.md §6). A function is asked at suspension time; its rules travel on the
   * request as `data.approvers`. Undefined: anyone holding a link may decide.
   */
  approvers?: Rules | ((args: Args) => Rules | undefined);
}

/** What an approval gate asks of a host: the edge re-checks edited arguments with it. */
export interface ApprovalGate {
  /** Whether a call with these arguments needs approval at all. */
  needsApproval(args: unknown): boolean;
  /** The gate's policy on these arguments (undefined: leave it to a person). */
  policy(args: unknown, request: Request): Answer | undefined;
  /** The rules for these arguments (checked), or undefined. */
  rulesFor(args: unknown): Rules | undefined;
  /**
   * The request the gate raises for these arguments, under `id`: its prompt, rules and expiry
   * as a call with them would ask (the edge asks again with it when a deploy's migration of a
   * suspended call's arguments needs other approvers).
   */
  requestFor(args: unknown, id: string): Request;
  /** The static parts, for listings such as `GET /v1/agents`. */
  describe(): ApprovalDescription;
  /** Runs the wrapped tool itself, past the gate: for a host whose policy decided the call already. */
  execute(args: unknown, ctx?: Context): Promise<ToolResult>;
}

/** The static description of a gate: rules given as a function of the arguments show only `needsApproval` and `rulesByArgs`. */
export interface ApprovalDescription extends Rules {
  needsApproval: "always" | "conditional";
  /** The rules depend on the arguments. */
  rulesByArgs?: true;
}

// Symbol.for: a gate survives a second copy of this module (bundled twice) and object spreads.
const GATE: unique symbol = Symbol.for("toolnexus.approvalGate");

/** The approval gate `requireApproval` put on a tool, or undefined. */
export function approvalGate(tool: Tool): ApprovalGate | undefined {
  const gate = (tool as Tool & { [GATE]?: ApprovalGate })[GATE];
  return gate && typeof gate.describe === "function" ? gate : undefined;
}

/**
 * The static description of a tool's approval rules, or undefined when it needs none.
 * @example describeApproval(refund) // { needsApproval: "conditional", group: "finance", quorum: 2 }
 */
export function describeApproval(tool: Tool): ApprovalDescription | undefined {
  return approvalGate(tool)?.describe();
}

/**
 * Wraps a tool so that it suspends with an approval `Request` before it runs, and
 * runs only after an `ok` answer.
 * @example
 * const refund = requireApproval(refundTool, {
 *   when: (a) => a.amount > 100,
 *   prompt: (a) => `Refund $${a.amount} on order ${a.orderId}?`,
 *   policy: (a, req) => (a.amount > 10_000 ? answerDeclined(req.id, "policy: amount over threshold") : undefined),
 * });
 */
export function requireApproval<Args = UntypedArgs>(
  tool: Tool,
  options: RequireApprovalOptions<Args> = {},
): Tool {
  const fixedRules =
    typeof options.approvers === "object"
      ? validateRules(options.approvers, `requireApproval(${tool.name}).approvers`)
      : undefined;
  const rulesFor = (args: Args): Rules | undefined => {
    if (typeof options.approvers !== "function") {
      return fixedRules;
    }
    const rules = options.approvers(args);
    return rules === undefined
      ? undefined
      : validateRules(rules, `requireApproval(${tool.name}).approvers(args)`);
  };
  const promptFor = (args: Args): string =>
    typeof options.prompt === "function"
      ? options.prompt(args)
      : (options.prompt ?? `Allow ${tool.name} with ${JSON.stringify(args ?? {})}?`);
  const requestFor = (args: Args, id: string): Request => {
    const request: Request = {
      id,
      kind: options.kind ?? "approval",
      prompt: promptFor(args),
      data: { tool: tool.name, args: args as unknown },
    };
    const rules = rulesFor(args);
    if (rules) {
      request.data = { ...request.data, approvers: rules };
    }
    if (options.expiresIn !== undefined) {
      request.expiresAt = new Date(Date.now() + options.expiresIn).toISOString();
    }
    return request;
  };
  const gate: ApprovalGate = {
    needsApproval: (args) => !options.when || options.when(args as Args),
    policy: (args, request) => options.policy?.(args as Args, request),
    rulesFor: (args) => rulesFor(args as Args),
    requestFor: (args, id) => requestFor(args as Args, id),
    describe: () => ({
      needsApproval: options.when ? "conditional" : "always",
      ...(typeof options.approvers === "function" ? { rulesByArgs: true as const } : fixedRules),
    }),
    execute: async (args, ctx) => tool.execute(args, ctx),
  };
  // Object.assign onto a copy, not a spread: a spread reads every getter.
  const gated: Tool & { [GATE]: ApprovalGate } = Object.assign(lazyFields(tool), {
    [GATE]: gate,
    async execute(rawArgs: unknown, ctx: Context): Promise<ToolResult> {
      const args = (rawArgs ?? {}) as Args;
      const { answer, ...innerCtx } = ctx;
      if (answer) {
        // The loop only re-executes on an ok answer; a refusal here means a caller bypassed it.
        return answer.ok
          ? tool.execute(rawArgs, innerCtx)
          : declinedResult(requestFor(args, requestId()), answer.reason);
      }
      if (options.when && !options.when(args)) {
        return tool.execute(rawArgs, innerCtx);
      }
      // The in-code rule is a policy like any other (src/core/policy/): one code path.
      const request = requestFor(args, requestId());
      return settle({
        verdict: inCodeVerdict(gate, { args, request }),
        request,
        run: () => tool.execute(rawArgs, innerCtx),
      });

      // Derived from the call id so a retried execution asks the same question.
      function requestId(): string {
        return ctx.callId
          ? `apr_${ctx.callId.replace(/[^A-Za-z0-9_-]/g, "_")}`
          : newRequestId("apr");
      }
    },
  });
  return gated;
}

/**
 * The tool's own enumerable fields, as a spread copies them, but accessors stay accessors:
 * a spread would read defineTool's lazy `inputSchema` now, while the worker starts.
 */
function lazyFields(tool: Tool): Tool {
  const copy = {} as Tool;
  for (const key of Reflect.ownKeys(tool)) {
    const descriptor = Object.getOwnPropertyDescriptor(tool, key);
    if (descriptor?.enumerable) {
      Object.defineProperty(copy, key, descriptor);
    }
  }
  return copy;
}
