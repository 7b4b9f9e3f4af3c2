/**
 * MCP protocol revision 2026-07-28 as our /mcp server speaks it, without the SDK (the v1 SDK
 * stops at 2025-11-25; see docs/mcp.md for why we do not load the v2 server package): the
 * revision's names, what a request's `_meta` envelope says about the client, and the error a
 * handler throws to answer with a JSON-RPC error.
 */
import type { AgentDefinition } from "../../../agent";
import type { ApproverGroupsInit } from "../../../approvals/groups";
import type { EdgeEnv } from "../../../settings";

/** Also `MODERN_PROTOCOL_VERSION` in ../sessions (routing imports nothing lazy, this module is lazy). */
export const MODERN_VERSION = "2026-07-28";
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
export const PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion";
export const CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities";
export const SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo";

export const SERVER_INFO = { name: "toolnexus-edge", version: "0.1.0" };

/** What the server offers under 2026-07-28 (`server/discover`, or `initialize` at 2026-07-28). */
export const MODERN_CAPABILITIES = { tools: {}, extensions: { [TASKS_EXTENSION]: {} } };

/** JSON-RPC codes this revision uses beyond the standard ones. */
export const INVALID_PARAMS = -32602;
export const METHOD_NOT_FOUND = -32601;
export const MISSING_CLIENT_CAPABILITY = -32021;

/** Thrown by a handler: the dispatcher answers with this JSON-RPC error. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** What a modern request's handlers need: the server's setup and who is calling, with what. */
export interface ModernContext {
  env: EdgeEnv;
  agents: AgentDefinition[];
  approverGroups: ApproverGroupsInit | undefined;
  base: string;
  caller: string | undefined;
  /** The client's capabilities: the request's `_meta` envelope, else what it said at initialize. */
  capabilities: Record<string, unknown>;
  signal: AbortSignal;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The request's `_meta`, when it is an object. */
export const metaOf = (params: unknown): Record<string, unknown> | undefined =>
  isRecord(params) && isRecord(params._meta) ? params._meta : undefined;

/** The protocol version a request's `_meta` envelope names (2026-07-28 requests carry one). */
export const envelopeVersion = (params: unknown): string | undefined => {
  const version = metaOf(params)?.[PROTOCOL_VERSION_META_KEY];
  return typeof version === "string" ? version : undefined;
};

/** The capabilities a request's envelope declares, if it carries them. */
export const envelopeCapabilities = (params: unknown): Record<string, unknown> | undefined => {
  const capabilities = metaOf(params)?.[CLIENT_CAPABILITIES_META_KEY];
  return isRecord(capabilities) ? capabilities : undefined;
};

/** Did the client declare the tasks extension (so a call may return a task)? */
export function acceptsTasks(capabilities: Record<string, unknown>): boolean {
  const extensions = capabilities.extensions;
  return isRecord(extensions) && isRecord(extensions[TASKS_EXTENSION]);
}

/** Which elicitation modes the client can answer (an empty `elicitation: {}` is form). */
export function elicitationModes(capabilities: Record<string, unknown>): {
  form: boolean;
  url: boolean;
} {
  const elicitation = capabilities.elicitation;
  if (!isRecord(elicitation)) {
    return { form: false, url: false };
  }
  return {
    form: elicitation.form !== undefined || elicitation.url === undefined,
    url: elicitation.url !== undefined,
  };
}
