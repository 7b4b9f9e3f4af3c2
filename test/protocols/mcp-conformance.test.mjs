/**
 * Our MCP client (src/core/mcp) against the official conformance suite,
 * @modelcontextprotocol/conformance 0.1.16: its client scenarios and its auth suite, each
 * scenario's server on localhost, our client driven by scripts/conformance/client.ts (bundled
 * here with esbuild). Nothing leaves the machine.
 *
 * Left out, on purpose: `sse-retry` (its check is a timing window around the server's `retry`
 * field, which a loaded machine can miss: passes when run alone), the 2025-03-26 auth
 * scenarios (a server without protected-resource metadata: our sign-in follows 2025-06-18 and
 * later), and the client-credentials extension (our sign-in is a person's authorization-code
 * flow). `auth/basic-cimd` ends with one warning: the suite would like a URL client id, and we
 * use one only when an https `clientMetadataUrl` is configured (none can be served here).
 * The CLI wants Node 22's fs.globSync at load: scripts/conformance/register.mjs stubs it on 20.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { build } from "esbuild";
import { ROOT } from "../../scripts/lib/dev-vars.mjs";

const run = promisify(execFile);
const CLI = path.join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const SHIM = path.join(ROOT, "scripts/conformance/register.mjs");

let dir;
let client;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "mcp-conformance-"));
  client = path.join(dir, "client.mjs");
  await build({
    entryPoints: [path.join(ROOT, "scripts/conformance/client.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: client,
    logLevel: "warning",
    // Bundled CommonJS dependencies call require().
    banner: {
      js: 'import{createRequire}from"node:module";const require=createRequire(import.meta.url);',
    },
  });
});

after(() => dir && rmSync(dir, { recursive: true, force: true }));

/** Runs the conformance CLI (results go to the temp dir); its output, whatever its exit code. */
async function conformance(args) {
  const { stdout, stderr } = await run(
    process.execPath,
    ["--import", SHIM, CLI, "client", "--command", `node ${client}`, ...args],
    { cwd: dir, maxBuffer: 32 * 1024 * 1024, timeout: 240_000 },
  ).catch((error) => ({ stdout: error.stdout ?? "", stderr: error.stderr ?? String(error) }));
  return `${stdout}\n${stderr}`;
}

describe("MCP client conformance (@modelcontextprotocol/conformance 0.1.16)", () => {
  for (const scenario of ["initialize", "tools_call", "elicitation-sep1034-client-defaults"]) {
    test(`client scenario ${scenario}`, { timeout: 120_000 }, async () => {
      const output = await conformance(["--scenario", scenario]);
      assert.match(output, /OVERALL: PASSED/, output.slice(-4000));
      assert.match(output, /Passed: (\d+)\/\1, 0 failed, 0 warnings/, output.slice(-4000));
    });
  }

  test("auth suite: every scenario passes with no failed check", { timeout: 250_000 }, async () => {
    const output = await conformance(["--suite", "auth"]);
    const lines = [
      ...output.matchAll(
        /^([✓✗]) (auth\/[\w.-]+): (\d+) passed, (\d+) failed(?:, (\d+) warnings)?$/gm,
      ),
    ];
    assert.equal(lines.length, 14, output.slice(-4000));
    for (const [, , name, passed, failed, warnings] of lines) {
      assert.ok(Number(passed) > 0, `${name}: nothing passed`);
      assert.equal(Number(failed), 0, `${name}: ${failed} failed\n${output.slice(-4000)}`);
      // The one SHOULD we do not meet here (see the top of this file).
      assert.equal(Number(warnings ?? 0), name === "auth/basic-cimd" ? 1 : 0, `${name} warnings`);
    }
    assert.match(output, /Total: \d+ passed, 0 failed/);
  });
});
