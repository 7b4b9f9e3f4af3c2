/**
 * MCP protocol revision 2026-07-28 on the client side, without the v2 SDK (bench/README §5,
 * issue 41: it runs in workerd but would double the MCP client's size and start-up). What is
 * different from 2025-11-25, as far as a client that calls tools is concerned:
 *
 * - no `initialize`: `server/discover` says which revisions the server speaks (a server that
 *   does not answer it is spoken to as before, `initialize` and all);
 * - every request carries the protocol version, the client's info and its capabilities in
 *   `_meta`, and on HTTP the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers;
 * - results carry `resultType`; a `tools/call` may answer `input_required`: requests for the
 *   client (`inputRequests`) and an opaque `requestState`, and the client calls again with
 *   `inputResponses` and that state, byte for byte.
 *
 * The client never declares the tasks extension, so a server never answers with a task.
 */
export const MODERN_VERSION = "2026-07-28";
export const PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion";
export const CLIENT_INFO_META_KEY = "io.modelcontextprotocol/clientInfo";
export const CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities";
export const TRACEPARENT_META_KEY = "traceparent";

export interface InputRequired {
  resultType: "input_required";
  /** Keyed by the server's names; each an embedded `elicitation/create` (or sampling, roots). */
  inputRequests: Record<string, { method?: unknown; params?: unknown }>;
  /** Opaque: echoed exactly as received, never read. */
  requestState?: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The input-required result in a `tools/call` reply, or undefined for any other result. */
export function inputRequiredOf(result: unknown): InputRequired | undefined {
  if (!isRecord(result) || result.resultType !== "input_required") {
    return undefined;
  }
  const requests = isRecord(result.inputRequests) ? result.inputRequests : {};
  return {
    resultType: "input_required",
    inputRequests: requests as InputRequired["inputRequests"],
    ...(typeof result.requestState === "string" ? { requestState: result.requestState } : {}),
  };
}

/** Does a `server/discover` result offer 2026-07-28? */
export function offersModern(result: unknown): boolean {
  return (
    isRecord(result) &&
    Array.isArray(result.supportedVersions) &&
    result.supportedVersions.includes(MODERN_VERSION)
  );
}

/**
 * The standard request headers of 2026-07-28 over HTTP, read from a JSON-RPC request body
 * that carries the revision's envelope (a 2025-11-25 body gets none).
 */
export function standardHeaders(body: string): Record<string, string> | undefined {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isRecord(message) || typeof message.method !== "string") {
    return undefined;
  }
  const params = isRecord(message.params) ? message.params : {};
  const meta = isRecord(params._meta) ? params._meta : {};
  if (meta[PROTOCOL_VERSION_META_KEY] !== MODERN_VERSION) {
    return undefined;
  }
  const name =
    message.method === "tools/call" && typeof params.name === "string" ? params.name : undefined;
  return {
    "mcp-method": message.method,
    // Header values are ASCII: a non-ASCII tool name goes as the spec's base64 sentinel.
    ...(name === undefined ? {} : { "mcp-name": asciiHeader(name) }),
  };
}

function asciiHeader(value: string): string {
  if (/^[\x20-\x7e]*$/.test(value)) {
    return value;
  }
  const bytes = new TextEncoder().encode(value);
  let binary = "";
  for (const byte of bytes) {
    binary += String.fromCharCode(byte);
  }
  return `=?base64?${btoa(binary)}?=`;
}
