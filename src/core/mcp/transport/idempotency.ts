/**
 * The key a remote MCP tool call carries so that a server can run it once however often it
 * is sent. A run that dies after the server ran a call and before its result was kept sends
 * the call again on resume (at-least-once: nothing else can know the server ran it); the key
 * is the same on every send of that call — the run and the model's call id, both stored
 * before the call is first sent — so a server that remembers the keys it answered (and
 * answers a repeat from that memory) gets exactly-once. MCP has no field for this on
 * `tools/call` (SEP-1686's task ids cover task creation only), so it travels in `_meta`
 * under our reverse-DNS prefix.
 */
import type { Context } from "../../types";

export const IDEMPOTENCY_KEY_META = "io.toolnexus/idempotency-key";

/** `<runId>:<callId>`, or the call id alone outside a run; undefined for a call without an id. */
export function idempotencyKeyOf(ctx: Pick<Context, "runId" | "callId">): string | undefined {
  if (ctx.callId === undefined) {
    return undefined;
  }
  return ctx.runId === undefined ? ctx.callId : `${ctx.runId}:${ctx.callId}`;
}
