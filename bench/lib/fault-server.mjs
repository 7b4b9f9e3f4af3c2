/**
 * The server side of the fault schedule (bench/lib/fault-schedule.mjs): the MCP server that
 * needs sign-in (test/helpers/oauth-mcp-server.ts, built for Node with esbuild) on
 * 127.0.0.1, and `wrangler dev` serving test/fixtures/fault-schedule-worker.ts on a fixed
 * port with its state kept, so that a restart after a kill is the same deployment at the
 * same URL (a sign-in link handed out before the kill still leads back to it).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { freePort, startDevServer, TEST_VARS } from "../../scripts/lib/dev-server.mjs";
import { ROOT } from "../../scripts/lib/dev-vars.mjs";

/** @param {{ cwd?: string, log?: (line: string) => void }} options `cwd`: the checkout to serve (default this one). */
export async function startFaultServers({ cwd = ROOT, log = () => {} } = {}) {
  // Built next to this repository's node_modules, so the helper's packages resolve.
  const buildDir = path.join(ROOT, ".wrangler", `fault-build-${process.pid}`);
  mkdirSync(buildDir, { recursive: true });
  const outfile = path.join(buildDir, "oauth-mcp-server.mjs");
  const { build } = await import("esbuild");
  await build({
    entryPoints: [path.join(ROOT, "test/helpers/oauth-mcp-server.ts")],
    bundle: true,
    packages: "external",
    format: "esm",
    platform: "node",
    outfile,
    logLevel: "silent",
  });
  const helper = await import(pathToFileURL(outfile).href);
  const oauth = await helper.startOAuthMcpServer();
  const stateDir = mkdtempSync(path.join(tmpdir(), "toolnexus-fault-state-"));
  // A dev registry of our own: wrangler dev restarts its worker when the shared one changes
  // (any other wrangler dev on the machine starting or stopping), and its proxy answers a POST
  // in flight then with 503 "Your worker restarted mid-request" — not a kill of ours.
  process.env.WRANGLER_REGISTRY_PATH = path.join(stateDir, "registry");
  const port = await freePort();
  const vars = {
    ...TEST_VARS,
    MCP_TOKEN_KEY: "whsec_ZGV2LW9ubHkgbWNwIHRva2VuIGtleSwgbm90IGZvciB1c2U=",
    DOCS_MCP_URL: oauth.url,
  };
  const start = () =>
    startDevServer({
      timeoutMs: 120_000,
      cwd,
      vars,
      stateDir,
      port,
      config: "test/fixtures/wrangler.mcp.toml",
      script: "test/fixtures/fault-schedule-worker.ts",
      log,
    });
  const server = await start();
  return {
    server,
    restart: start,
    vars,
    oauth,
    consent: helper.consent,
    async close(current) {
      await current?.stop();
      await oauth.close();
      rmSync(stateDir, { recursive: true, force: true });
      rmSync(buildDir, { recursive: true, force: true });
    },
  };
}
