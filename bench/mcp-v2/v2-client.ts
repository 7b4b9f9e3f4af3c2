// Issue 41 (bench/README.md §5): a worker that only connects to an MCP server and lists its
// tools, built with `wrangler deploy --dry-run --minify --outdir <tmp> <this file>` to compare
// the MCP client's bundle and import cost: ours on the v1 SDK, and the v2 package's.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
export default {
  async fetch(request: Request): Promise<Response> {
    const client = new Client(
      { name: "c", version: "1" },
      { capabilities: {}, versionNegotiation: { mode: "auto" } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(request.url)));
    return Response.json(await client.listTools());
  },
};
