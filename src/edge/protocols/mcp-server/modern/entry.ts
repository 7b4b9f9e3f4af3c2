/**
 * The HTTP side of a 2026-07-28 message: who calls (the `x-toolnexus-user` header beside the
 * API token), with which capabilities (the request's envelope, else those a 2026-07-28
 * `initialize` declared), then ./dispatch. Imported lazily, when such a message arrives.
 */
import type { SessionOptions } from "../server";
import { callerIdentity } from "../../caller";
import { dispatchModern } from "./dispatch";
import { envelopeCapabilities, INVALID_PARAMS } from "./wire";

export async function answerModern(
  options: SessionOptions,
  request: { message: unknown; headers: Headers; signal: AbortSignal },
  declared?: Record<string, unknown>,
): Promise<Response> {
  const message = request.message as { id?: unknown; params?: unknown };
  const caller = callerIdentity(request.headers);
  if (!caller.ok) {
    return Response.json({
      jsonrpc: "2.0",
      id: message.id ?? null,
      error: { code: INVALID_PARAMS, message: caller.message },
    });
  }
  return dispatchModern(
    {
      ...options,
      caller: caller.id,
      capabilities: envelopeCapabilities(message.params) ?? declared ?? {},
      signal: request.signal,
    },
    request.message,
  );
}
