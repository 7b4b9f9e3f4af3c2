/**
 * Issue 26, cold start: the MCP client (with its OAuth and SSE transport), the MCP server and
 * the MCP SDK are in the deployable worker, but none of them runs when the worker starts:
 * they are imported with `import()` where an agent has MCP servers or a session opens, and
 * esbuild keeps them in lazy wrappers. Measured on the bundle `wrangler deploy` builds.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { startupModules } from "../../scripts/startup-modules.mjs";

const MCP_MODULES = [
  "src/core/mcp/index.ts",
  "src/core/mcp/client.ts",
  "src/core/mcp/transport/connect.ts",
  "src/core/mcp/oauth/session.ts",
  "src/edge/protocols/mcp-server/server.ts",
  "@modelcontextprotocol/sdk/dist/esm/types.js",
  "@modelcontextprotocol/sdk/dist/esm/shared/protocol.js",
  "@modelcontextprotocol/sdk/dist/esm/client/auth.js",
  "src/core/mcp/transport/sse.ts",
  "@modelcontextprotocol/sdk/dist/esm/server/webStandardStreamableHttp.js",
];

describe("the worker's start-up", () => {
  let modules: { lazy: string[]; evaluated: string[]; collations: number };
  beforeAll(() => {
    modules = startupModules();
  }, 240_000);

  it("holds the MCP client, server and SDK as lazy modules", () => {
    expect(modules.lazy).toEqual(expect.arrayContaining(MCP_MODULES));
  });

  it("records the lazy modules it does run (the check sees evaluation)", () => {
    expect(modules.evaluated).toContain("src/edge/http/schemas.ts");
  });

  // The MCP settings' schemas (config.ts, oauth/config.ts) run at start-up: settings are parsed there.
  it("evaluates none of the MCP modules", () => {
    const mcp = modules.evaluated.filter(
      (m) =>
        m.startsWith("@modelcontextprotocol/") ||
        /^src\/core\/mcp\/(index|client|transport\/|tools|oauth\/(?!config\.ts))/.test(m) ||
        m.startsWith("src/edge/protocols/mcp-server/"),
    );
    expect(mcp).toEqual([]);
  });

  // The first localeCompare builds an ICU collator (tens of ms); the team check used one.
  it("builds no collator", () => {
    expect(modules.collations).toBe(0);
  });

  // Issue 43: Cedar is its own entry (toolnexus-edge/cedar); the demo worker carries none of it.
  it("holds no Cedar engine and no Cedar policy code", () => {
    const all = [...modules.lazy, ...modules.evaluated];
    expect(all.length).toBeGreaterThan(0);
    expect(all.filter((m) => /cedar/i.test(m))).toEqual([]);
  });
});
