/**
 * A `tools/call` answered with error -32042 (URL elicitation required): the server cannot
 * run the tool until a person has visited one or more URLs (an OAuth flow of its own, a
 * payment page). That is a person's step like any other, so the call suspends on an
 * `authorization` request whose `url` is the first URL (every URL is in the prompt and
 * in `data.elicitations`); once the person is done (an `ok` answer) the loop re-executes
 * the call, which sends `tools/call` again. A refusal feeds the usual `declined:` result.
 */
import {
  ElicitRequestURLParamsSchema,
  ErrorCode,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import type { Context, Request } from "../types";
import { newRequestId } from "../answers";
import type { ElicitRequestURLParams } from "@modelcontextprotocol/sdk/types.js";

/** The URL elicitations an error asks for, or undefined when it is not a usable -32042. */
export function urlElicitationsIn(error: unknown): ElicitRequestURLParams[] | undefined {
  if (!(error instanceof McpError) || error.code !== ErrorCode.UrlElicitationRequired) {
    return undefined;
  }
  const listed = (error.data as { elicitations?: unknown } | undefined)?.elicitations;
  if (!Array.isArray(listed)) {
    return undefined;
  }
  const usable = listed.flatMap((item) => {
    const parsed = ElicitRequestURLParamsSchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
  return usable.length > 0 ? usable : undefined;
}

/**
 * @example
 * urlRequiredRequest([{ mode: "url", message: "Connect your account", url: "https://x.test/connect", elicitationId: "e1" }], { server: "crm", tool: "crm_sync", ctx: { callId: "call_1" } });
 * // { id: "urlreq_call_1", kind: "authorization", prompt: "crm_sync: Connect your account", url: "https://x.test/connect", data: { server: "crm", tool: "crm_sync", elicitations: [{ mode: "url", … }] } }
 */
export function urlRequiredRequest(
  elicitations: ElicitRequestURLParams[],
  origin: { server: string; tool: string; ctx: Context; attributed?: boolean },
): Request {
  const [first, ...rest] = elicitations as [ElicitRequestURLParams, ...ElicitRequestURLParams[]];
  const request: Request = {
    // Derived from the call when known, so a retried first execution asks the same request.
    id: origin.ctx.callId
      ? `urlreq_${origin.ctx.callId.replace(/[^\w-]/g, "_")}`
      : newRequestId("urlreq"),
    kind: "authorization",
    prompt: [
      `${origin.tool}: ${first.message}`,
      ...rest.map((e) => `- ${e.message}: ${e.url}`),
    ].join("\n"),
    url: first.url,
    // Beyond the SPEC's request only when the caller asked (elicitation.ts, `attributed`).
    ...(origin.attributed
      ? { data: { server: origin.server, tool: origin.tool, elicitations } }
      : {}),
  };
  return request;
}
