/**
 * MCP 2026-07-28 over HTTP names each request in headers (`Mcp-Method`, and `Mcp-Name` for a
 * `tools/call`), so a load balancer can route without reading the body; a 2026-07-28 server
 * refuses a request without them. The SDK's transport (v1) does not know them: this fetch
 * wrapper adds them to a POST whose body carries the revision's envelope (../modern), and
 * leaves a 2025-11-25 request as it was.
 */
import { standardHeaders } from "../modern/revision";

type Fetch = typeof fetch;

export function withStandardHeaders(base: Fetch): Fetch {
  return (input, init) => {
    const added = init && typeof init.body === "string" ? standardHeaders(init.body) : undefined;
    if (!added) {
      return base(input, init);
    }
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(added)) {
      headers.set(name, value);
    }
    return base(input, { ...init, headers });
  };
}
