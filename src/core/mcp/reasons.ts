/**
 * Why a server could not be reached, in words a person can act on: runtimes report a
 * refused connection, a DNS failure or a TLS problem as a bare `TypeError("fetch
 * failed")` with the real cause underneath. The reason names the URL and that cause.
 */
import { errorMessage } from "../errors";

/** @example unreachableReason("http://127.0.0.1:9/mcp", err) // "cannot reach http://127.0.0.1:9/mcp: fetch failed (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9)" */
export function unreachableReason(url: string, error: unknown): string | undefined {
  if (!(error instanceof TypeError)) {
    return undefined;
  }
  const causes: string[] = [];
  for (let cause = (error as { cause?: unknown }).cause, depth = 0; cause && depth < 4; depth++) {
    const c = cause as { code?: unknown; message?: unknown; cause?: unknown };
    const words = [
      typeof c.code === "string" ? c.code : "",
      typeof c.message === "string" ? c.message : "",
    ]
      .filter((w) => w !== "")
      .join(": ");
    if (words !== "") {
      causes.push(words);
    }
    cause = c.cause;
  }
  const why = causes.length > 0 ? ` (${causes.join("; ")})` : "";
  return `cannot reach ${url}: ${errorMessage(error)}${why}`;
}
