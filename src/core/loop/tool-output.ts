/**
 * What the model is sent of a tool's output: at most a bound of UTF-8 bytes, cut on a
 * character boundary, followed by one line that says so (docs/agents.md, "Tool output
 * size"). The whole output is never dropped: the loop keeps it in `RunResult.toolCalls`,
 * and the edge serves it at `GET /v1/runs/:runId/tool-calls/:callId/output`.
 */

/** The default bound, per call: 256 KiB (`createClient({ maxToolOutputBytes })`, `defineAgent`). */
export const DEFAULT_MAX_TOOL_OUTPUT_BYTES = 262_144;

/** How much of an output the model was shown: both in UTF-8 bytes. */
export interface Truncation {
  total: number;
  shown: number;
}

/** The text the model gets for one tool output, and `truncated` when that is less than the output. */
export interface BoundOutput {
  text: string;
  truncated?: Truncation;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The line appended to a cut output: the model learns it saw only a part, and how much. */
export function truncationLine({ total, shown }: Truncation): string {
  return `[output truncated: ${total} bytes, the first ${shown} shown]`;
}

/**
 * `output` as the model may see it under `maxBytes`: unchanged when its UTF-8 encoding fits,
 * else its longest prefix of whole characters within `maxBytes`, a newline, and
 * {@link truncationLine}. (The line itself is not counted: it is the one thing the bound adds.)
 */
export function boundToolOutput(output: string, maxBytes: number): BoundOutput {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: most outputs are let through unencoded.
  if (output.length * 3 <= maxBytes) {
    return { text: output };
  }
  const bytes = encoder.encode(output);
  if (bytes.length <= maxBytes) {
    return { text: output };
  }
  let cut = maxBytes;
  // Back up over continuation bytes (10xxxxxx) to the first byte of the character cut in two.
  while (cut > 0 && ((bytes[cut] ?? 0) & 0xc0) === 0x80) {
    cut -= 1;
  }
  const truncated = { total: bytes.length, shown: cut };
  const shown = decoder.decode(bytes.subarray(0, cut));
  return { text: `${shown}\n${truncationLine(truncated)}`, truncated };
}

/**
 * Checks a configured bound where it is given (`createClient`, `defineTool`, `defineAgent`):
 * a positive whole number of bytes, or `Infinity` for no bound.
 */
export function checkMaxOutputBytes(value: unknown, where: string): void {
  if (value === undefined || value === Number.POSITIVE_INFINITY) {
    return;
  }
  if (!(typeof value === "number" && Number.isInteger(value) && value > 0)) {
    throw new TypeError(`${where} must be a positive whole number of bytes (or Infinity)`);
  }
}
