/**
 * A tool under the policy interface (docs/policy.md): before it runs, the call is evaluated —
 * the in-code rule (its `requireApproval` gate, if any), tightened by the configured policy
 * (an AuthZEN PDP, a Cedar policy) — and allowed, refused or asked through `settle`, the
 * same code path `requireApproval` takes on its own. A shadow policy is evaluated beside it.
 */
import type { Context, Request, Tool, ToolResult } from "../types";
import { approvalGate } from "../tools/approval";
import { newRequestId } from "../answers";
import { declinedResult } from "../suspension";
import { accessEvaluation } from "./evaluation";
import { decide, type PolicyTrouble } from "./decide";
import { inCodeVerdict } from "./in-code";
import { settle } from "./settle";
import { disagreement, startShadow, type ShadowDisagreement } from "./shadow";
import type { PolicyContext, ToolPolicy } from "./types";

/** What the host tells a policy-gated tool about the run it serves. */
export interface PolicyHost {
  agent: string;
  context: PolicyContext;
  requestedBy?: string;
  /** The configured policy (PDP, Cedar); undefined: the in-code rule alone. */
  policy?: ToolPolicy;
  /** Evaluated beside the live policy, never deciding. */
  shadow?: ToolPolicy;
  /** Bound of the shadow's evaluation (default 1500 ms). */
  shadowTimeoutMs?: number;
  groupExists?: (group: string) => boolean;
  onTrouble?: (trouble: PolicyTrouble & { tool: string; callId?: string }) => void;
  onShadow?: (found: ShadowDisagreement & { callId?: string }) => void;
}

/** `tool` with every call decided through the policy interface. */
export function withPolicy(tool: Tool, host: PolicyHost): Tool {
  const gate = approvalGate(tool);
  // The tool's own enumerable fields (its gate's symbol too), accessors kept as accessors.
  const copy = {} as Tool;
  for (const key of Reflect.ownKeys(tool)) {
    const descriptor = Object.getOwnPropertyDescriptor(tool, key);
    if (descriptor?.enumerable) {
      Object.defineProperty(copy, key, descriptor);
    }
  }
  return Object.assign(copy, {
    async execute(rawArgs: unknown, ctx: Context = {}): Promise<ToolResult> {
      const id = requestIdOf(ctx);
      const { answer, ...innerCtx } = ctx;
      if (answer) {
        // A gate handles its own answers; a plain tool's policy request is answered here, and
        // an answer to the tool's own request (an input it asked for) goes to the tool.
        if (gate || answer.id !== id) {
          return tool.execute(rawArgs, ctx);
        }
        return answer.ok
          ? tool.execute(rawArgs, innerCtx)
          : declinedResult(plainRequest(tool, rawArgs ?? {}, id), answer.reason);
      }
      const args = rawArgs ?? {};
      const request = gate ? gate.requestFor(args, id) : plainRequest(tool, args, id);
      const inCode = inCodeVerdict(gate, { args, request });
      const evaluation = accessEvaluation({
        agent: host.agent,
        tool: tool.name,
        args,
        context: host.context,
        ...(host.requestedBy ? { requestedBy: host.requestedBy } : {}),
      });
      const shadowing = host.shadow
        ? startShadow(host.shadow, {
            inCode,
            evaluation,
            timeoutMs: host.shadowTimeoutMs ?? 1500,
          })
        : undefined;
      const decided = await decide({
        inCode,
        evaluation,
        ...(host.policy ? { policy: host.policy } : {}),
        ...(host.groupExists ? { groupExists: host.groupExists } : {}),
        onTrouble: (trouble) => host.onTrouble?.({ ...trouble, tool: tool.name, ...callIdOf(ctx) }),
      });
      const shadowVerdict = await shadowing;
      if (host.shadow && shadowVerdict) {
        const found = disagreement(tool.name, decided, {
          verdict: shadowVerdict,
          policy: host.shadow.id,
        });
        if (found) {
          host.onShadow?.({ ...found, ...callIdOf(ctx) });
        }
      }
      return settle({
        verdict: decided.verdict,
        request,
        record: decided.record,
        recordAllow: decided.record.source !== "code",
        run: () => (gate ? gate.execute(rawArgs, innerCtx) : tool.execute(rawArgs, innerCtx)),
      });
    },
  });
}

/** The request a plain tool's call raises when a policy asks a person about it. */
function plainRequest(tool: Tool, args: unknown, id: string): Request {
  return {
    id,
    kind: "approval",
    prompt: `Allow ${tool.name} with ${JSON.stringify(args ?? {})}?`,
    data: { tool: tool.name, args },
  };
}

// The gate's id for the same call: a retried execution asks the same question.
function requestIdOf(ctx: Context): string {
  return ctx.callId ? `apr_${ctx.callId.replace(/[^A-Za-z0-9_-]/g, "_")}` : newRequestId("apr");
}

function callIdOf(ctx: Context): { callId?: string } {
  return ctx.callId ? { callId: ctx.callId } : {};
}
