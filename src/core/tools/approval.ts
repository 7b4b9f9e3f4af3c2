import type { Answer, Context, Request, Tool, ToolResult } from "../types";
import { newRequestId, pending } from "../answers";
import { declinedResult } from "../suspension";
import type { UntypedArgs } from "./define";

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
  const promptFor = (args: Args): string =>
    typeof options.prompt === "function"
      ? options.prompt(args)
      : (options.prompt ?? `Allow ${tool.name} with ${JSON.stringify(args ?? {})}?`);

  return {
    ...tool,
    async execute(rawArgs: unknown, ctx: Context): Promise<ToolResult> {
      const args = (rawArgs ?? {}) as Args;
      const { answer, ...innerCtx } = ctx;
      if (answer) {
        // The loop only re-executes on an ok answer; a refusal here means a caller bypassed it.
        return answer.ok
          ? tool.execute(rawArgs, innerCtx)
          : declinedResult(requestFor(args), answer.reason);
      }
      if (options.when && !options.when(args)) {
        return tool.execute(rawArgs, innerCtx);
      }

      const request = requestFor(args);
      const decided = options.policy?.(args, request);
      if (decided) {
        const policyAnswer: Answer = { ...decided, id: request.id };
        if (!policyAnswer.ok) {
          const result = declinedResult(request, policyAnswer.reason);
          return {
            ...result,
            metadata: { ...result.metadata, policy: { request, answer: policyAnswer } },
          };
        }
        const result = await tool.execute(rawArgs, innerCtx);
        return {
          ...result,
          metadata: { ...result.metadata, policy: { request, answer: policyAnswer } },
        };
      }
      return pending(request);

      function requestFor(a: Args): Request {
        const req: Request = {
          // Derived from the call id so a retried execution asks the same question.
          id: ctx.callId
            ? `apr_${ctx.callId.replace(/[^A-Za-z0-9_-]/g, "_")}`
            : newRequestId("apr"),
          kind: options.kind ?? "approval",
          prompt: promptFor(a),
          data: { tool: tool.name, args: a as unknown },
        };
        if (options.expiresIn !== undefined) {
          req.expiresAt = new Date(Date.now() + options.expiresIn).toISOString();
        }
        return req;
      }
    },
  };
}
