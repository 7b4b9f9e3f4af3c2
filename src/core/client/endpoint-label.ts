/**
 * How a failed model request names where it went and why, safely: the URL without
 * credentials (user info, query string and fragment dropped: keys travel there on some
 * gateways), and the cause chain a runtime's fetch attaches (Node's "fetch failed" says
 * little; its `cause` says ECONNREFUSED).
 */
import { errorMessage } from "../errors";

/** `https://user:key@api.test/v1/messages?key=…` → `https://api.test/v1/messages`. */
export function endpointLabel(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return "(an invalid URL)";
  }
}

/** The error's message, followed by each distinct cause's (at most three deep). */
export function failureCause(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth += 1) {
    const text = errorMessage(current);
    if (text && !parts.includes(text)) {
      parts.push(text);
    }
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(": ") || "unknown error";
}
