/**
 * Request shaping (SPEC §8): `requestParams` are merged into every model request body,
 * and win over the client's defaults (`max_tokens`, `temperature`, …), but never over the
 * members the client builds itself. Those are dropped once, when the client is made.
 */

/**
 * Body members the client owns. The SPEC reserves `messages`, `tools` and `stream`; the
 * rest follow from them: `model` (the configured model is sent verbatim, SPEC §8 "model
 * faithfulness"), `system` (Anthropic's half of the messages), `tool_choice` (belongs to
 * the tool list the client sends; a forced choice on every turn of a loop never lets the
 * model finish) and `stream_options` (only valid alongside `stream`). `bodyTransform`
 * still sees and may change the whole body.
 */
export const RESERVED_REQUEST_PARAMS: ReadonlySet<string> = new Set([
  "model",
  "messages",
  "system",
  "tools",
  "tool_choice",
  "stream",
  "stream_options",
]);

/** `params` without the reserved members; each dropped key is reported once through `warn`. */
export function shapeRequestParams(
  params: Record<string, unknown> | undefined,
  warn: (message: string) => void = (message) => console.warn(message),
): Record<string, unknown> | undefined {
  if (!params) {
    return undefined;
  }
  const kept: Record<string, unknown> = {};
  const dropped: string[] = [];
  for (const key of Object.keys(params)) {
    if (RESERVED_REQUEST_PARAMS.has(key)) {
      dropped.push(key);
    } else {
      kept[key] = params[key];
    }
  }
  if (dropped.length) {
    warn(
      `requestParams: ${dropped.join(", ")} ${dropped.length === 1 ? "is" : "are"} built by the client and cannot be set here (ignored; use bodyTransform to rewrite the body)`,
    );
  }
  return Object.keys(kept).length ? kept : undefined;
}
