/**
 * JSON-RPC 2.0 envelopes for POST /a2a, and the error codes A2A pins (SPEC §7B and the A2A
 * v0.3 specification's table). Every refusal is an error object with our own message; the
 * HTTP status stays 200, as A2A's JSON-RPC binding has it.
 */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  pushNotificationNotSupported: -32003,
  /** A2A's "unsupported operation": also our refusal of a decision the caller may not make. */
  unsupportedOperation: -32004,
} as const;

export type RpcId = string | number | null;

export interface RpcRequest {
  id: RpcId;
  method: string;
  params: Record<string, unknown>;
}

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export const rpcResult = (id: RpcId, result: unknown) => ({ jsonrpc: "2.0" as const, id, result });

export const rpcFailure = (id: RpcId, error: RpcError) => ({
  jsonrpc: "2.0" as const,
  id,
  error: {
    code: error.code,
    message: error.message,
    ...(error.data === undefined ? {} : { data: error.data }),
  },
});

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Parses one JSON-RPC request. Batches are refused (A2A sends one call per POST); a
 * notification (no id) is refused too, since every A2A method answers.
 */
export function parseRpc(
  text: string,
): { ok: true; request: RpcRequest } | { ok: false; id: RpcId; error: RpcError } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return {
      ok: false,
      id: null,
      error: new RpcError(RPC.parseError, "the body is not valid JSON"),
    };
  }
  if (!isRecord(body)) {
    return {
      ok: false,
      id: null,
      error: new RpcError(
        RPC.invalidRequest,
        "expected one JSON-RPC 2.0 request object (batches are not accepted)",
      ),
    };
  }
  const id = body.id;
  const validId = typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
  if (body.jsonrpc !== "2.0" || !validId) {
    return {
      ok: false,
      id: validId ? (id as RpcId) : null,
      error: new RpcError(
        RPC.invalidRequest,
        'a request needs "jsonrpc": "2.0" and a string or number "id"',
      ),
    };
  }
  if (typeof body.method !== "string" || !body.method) {
    return {
      ok: false,
      id: id as RpcId,
      error: new RpcError(RPC.invalidRequest, '"method" must be a non-empty string'),
    };
  }
  if (body.params !== undefined && !isRecord(body.params)) {
    return {
      ok: false,
      id: id as RpcId,
      error: new RpcError(RPC.invalidParams, '"params" must be an object'),
    };
  }
  return {
    ok: true,
    request: {
      id: id as RpcId,
      method: body.method,
      params: (body.params as Record<string, unknown>) ?? {},
    },
  };
}
