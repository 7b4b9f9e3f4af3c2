/**
 * Toolkit names for a server's tools that every provider accepts:
 * `^[a-zA-Z0-9_-]{1,64}$`. The name is `sanitize(server)_sanitize(tool)`; one that is
 * too long, or that two tools would share after sanitizing, is cut and given a suffix
 * hashed from the server and the tool's own name — the same tool gets the same name on
 * every load, whatever else the server lists. `mcpStatus()` shows each renamed tool.
 */
import { mcpToolName, sanitizeName } from "../config";

export const MAX_TOOL_NAME = 64;
const SUFFIX = 9; // "_" + 8 hex digits

/**
 * Original tool name → toolkit name, for one server's tools.
 * @example toolNames("docs", ["a.b", "a_b"]) // Map { "a.b" → "docs_a_b_…", "a_b" → "docs_a_b" }
 */
export function toolNames(server: string, originals: string[]): Map<string, string> {
  const byBase = new Map<string, string[]>();
  for (const original of originals) {
    const base = mcpToolName(server, original);
    byBase.set(base, [...(byBase.get(base) ?? []), original]);
  }
  const names = new Map<string, string>();
  for (const [base, sharing] of byBase) {
    // Of tools that would share a name, the one that needed no sanitizing keeps it.
    const keeper = sharing.length === 1 ? sharing[0] : sharing.find((o) => sanitizeName(o) === o);
    for (const original of sharing) {
      const plain = original === keeper && base.length <= MAX_TOOL_NAME;
      names.set(original, plain ? base : hashed(base, server, original));
    }
  }
  return names;
}

function hashed(base: string, server: string, original: string): string {
  return `${base.slice(0, MAX_TOOL_NAME - SUFFIX)}_${fnv1a(`${server}\u0000${original}`)}`;
}

/** 32-bit FNV-1a as 8 hex digits: short, stable, not a secret. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}
