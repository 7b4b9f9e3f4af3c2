/**
 * MCP elicitation ⇄ the suspension contract (docs/architecture.md §3 rule 5), as pure mappings
 * the in-process bridge and the edge's durable bridge share:
 *
 * - `requestFromElicitation`: `elicitation/create` ⇒ `Request` — form mode ⇒
 *   `kind: "input"` with the requested schema in `data.schema`; URL mode ⇒
 *   `kind: "authorization"` with `url` (secrets are entered out of band, rule 6).
 * - `resultFromAnswer`: `Answer` ⇒ the elicitation result — `ok` ⇒ `accept` (form
 *   content validated against the requested schema first; data that does not fit ⇒
 *   `cancel` plus the problems, for the model); not ok ⇒ `decline` when
 *   `reason === "declined"`, else `cancel`.
 */
import type {
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { Answer, Request } from "../types";
import { newRequestId } from "../answers";
import { validateArgs } from "../schema";

export type ElicitationParams = ElicitRequestFormParams | ElicitRequestURLParams;

export interface ElicitationOrigin {
  /** The server's config name. */
  server: string;
  /** The toolkit name of the tool whose call elicited, when known. */
  tool?: string;
  /** The request id to use; generated (`elicit_…`) when absent. */
  id?: string;
  /**
   * A URL elicitation's request carries `data: { server, tool?, elicitationId }` too. Off by
   * default: the SPEC's request is `{ id, kind: "authorization", prompt, url }` and nothing
   * more (issue 40); the edge sets it (ToolkitOptions.attributeElicitations), whose
   * approvers, receipts and version checks name the tool.
   */
  attributed?: boolean;
}

export interface ElicitationOutcome {
  result: ElicitResult;
  /** Why an `ok` answer was not sent as `accept`; tell the model. */
  problems?: string[];
}

/**
 * @example
 * requestFromElicitation({ mode: "form", message: "Which repo?", requestedSchema: { type: "object", properties: { repo: { type: "string" } } } }, { server: "github", tool: "github_create_issue" });
 * // { id: "elicit_…", kind: "input", prompt: "Which repo?", data: { schema: {…}, server: "github", tool: "github_create_issue" } }
 */
export function requestFromElicitation(
  params: ElicitationParams,
  origin: ElicitationOrigin,
): Request {
  const id = origin.id ?? newRequestId("elicit");
  const where: Record<string, unknown> = { server: origin.server };
  if (origin.tool !== undefined) {
    where.tool = origin.tool;
  }
  if (params.mode === "url") {
    return {
      id,
      kind: "authorization",
      prompt: params.message,
      url: params.url,
      ...(origin.attributed ? { data: { ...where, elicitationId: params.elicitationId } } : {}),
    };
  }
  return {
    id,
    kind: "input",
    prompt: params.message,
    data: { schema: params.requestedSchema, ...where },
  };
}

/**
 * @example
 * resultFromAnswer({ id: "r", ok: true, data: { repo: "a/b" } }, formParams) // { result: { action: "accept", content: { repo: "a/b" } } }
 * resultFromAnswer({ id: "r", ok: false, reason: "declined" }, formParams)  // { result: { action: "decline" } }
 * resultFromAnswer({ id: "r", ok: false, reason: "expired" }, formParams)   // { result: { action: "cancel" } }
 */
export function resultFromAnswer(answer: Answer, params: ElicitationParams): ElicitationOutcome {
  if (!answer.ok) {
    return { result: { action: answer.reason === "declined" ? "decline" : "cancel" } };
  }
  if (params.mode === "url") {
    return { result: { action: "accept" } };
  }
  const content = withDefaults(answer.data ?? {}, params.requestedSchema);
  const problems = contentProblems(content);
  if (problems.length === 0) {
    const checked = validateArgs(params.requestedSchema as Record<string, unknown>, content);
    if (!checked.ok) {
      problems.push(...checked.problems);
    }
  }
  if (problems.length > 0) {
    return { result: { action: "cancel" }, problems };
  }
  return { result: { action: "accept", content: content as NonNullable<ElicitResult["content"]> } };
}

/**
 * SEP-1034: a field the answer leaves out gets the requested schema's `default` before
 * the result is sent (an answer of `{}` to a form whose fields all have defaults accepts them).
 */
function withDefaults(
  content: unknown,
  schema: ElicitRequestFormParams["requestedSchema"],
): unknown {
  if (typeof content !== "object" || content === null || Array.isArray(content)) {
    return content;
  }
  const filled: Record<string, unknown> = { ...(content as Record<string, unknown>) };
  for (const [key, property] of Object.entries(schema?.properties ?? {})) {
    const fallback = (property as { default?: unknown }).default;
    if (!(key in filled) && fallback !== undefined) {
      filled[key] = fallback;
    }
  }
  return filled;
}

// What the protocol can carry, whatever the schema says: a flat object of primitives.
function contentProblems(content: unknown): string[] {
  if (typeof content !== "object" || content === null || Array.isArray(content)) {
    return ["(root): the answer must be an object of fields"];
  }
  const problems: string[] = [];
  for (const [key, value] of Object.entries(content)) {
    const primitive = ["string", "number", "boolean"].includes(typeof value);
    const strings = Array.isArray(value) && value.every((v) => typeof v === "string");
    if (!primitive && !strings) {
      problems.push(`/${key}: must be a string, number, boolean or array of strings`);
    }
  }
  return problems;
}

/** How an answer that was not sent as `accept` is explained to the model. */
export function elicitationNote(request: Request, problems: string[]): string {
  return [
    `note: the answer to the server's question "${request.prompt}" did not fit the requested schema, so the server was sent "cancel":`,
    ...problems.map((p) => `- ${p}`),
  ].join("\n");
}
