/**
 * The published package: `npm pack` (which builds), unpacked where Node resolves it by
 * name, then plain Node imports `./core` and `./client` and a strict consumer
 * type-checks against their `.d.ts` with neither workers-types nor @types/node.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
// Inside the repository so the package's own dependencies (zod, hono, …) resolve from
// its node_modules, as they would in a consumer's; node_modules/.cache is ignored by git.
const WORK = path.join(ROOT, "node_modules/.cache/toolnexus-package-test");
let dir = "";
let files: string[] = [];

const run = (command: string, args: string[], cwd = dir) =>
  execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

beforeAll(() => {
  mkdirSync(WORK, { recursive: true });
  dir = mkdtempSync(path.join(WORK, "pack-"));
  run("npm", ["run", "--silent", "build"], ROOT);
  const [packed] = JSON.parse(
    run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], ROOT),
  ) as Array<{ filename: string; files: Array<{ path: string }> }>;
  files = packed!.files.map((f) => f.path);
  const target = path.join(dir, "node_modules/toolnexus-edge");
  mkdirSync(target, { recursive: true });
  run("tar", ["-xzf", path.join(dir, packed!.filename), "-C", target, "--strip-components=1"]);
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Builds and type-checks run in child processes: slow on a shared machine, not a timing claim.
describe("npm pack", { timeout: 120_000 }, () => {
  it("the library type-checks without the demo worker's global Env (createEdge<Env>() is generic)", () => {
    const tsc = path.join(ROOT, "node_modules/typescript/bin/tsc");
    try {
      run("node", [tsc, "-p", "tsconfig.build.json", "--noEmit"], ROOT);
    } catch (error) {
      throw new Error(
        `tsc -p tsconfig.build.json failed:\n${(error as { stdout?: string }).stdout}`,
      );
    }
  });

  it("ships built ESM and declarations only: no TypeScript sources", () => {
    expect(files).toContain("dist/index.js");
    expect(files).toContain("dist/core.js");
    expect(files).toContain("dist/client.js");
    expect(files).toContain("dist/cli.mjs");
    expect(files).toContain("dist/core.d.ts");
    expect(files).toContain("dist/client.d.ts");
    expect(files).toContain("dist/cli.mjs"); // package.json "bin"
    expect(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
    expect(files.filter((f) => !f.startsWith("dist/"))).toEqual(
      expect.arrayContaining(["package.json", "README.md"]),
    );
    const manifest = JSON.parse(
      readFileSync(path.join(dir, "node_modules/toolnexus-edge/package.json"), "utf8"),
    );
    expect(manifest.private).toBeUndefined();
    expect(manifest.version).toMatch(/^0\./);
    expect(manifest.sideEffects).toBe(false);
    for (const entry of [".", "./core", "./client", "./cedar"]) {
      expect(manifest.exports[entry].types).toMatch(/\.d\.ts$/);
    }
    // Cedar (issue 43): its entry and its engine, imported as a module beside it.
    expect(files).toContain("dist/cedar.js");
    expect(files).toContain("dist/cedar/cedar_wasm_bg.wasm");
  });

  it("ships the toolnexus-edge bin, and it runs from the unpacked package", () => {
    expect(files).toContain("dist/cli.mjs");
    const manifest = JSON.parse(
      readFileSync(path.join(dir, "node_modules/toolnexus-edge/package.json"), "utf8"),
    );
    expect(manifest.bin).toEqual({ "toolnexus-edge": "dist/cli.mjs" });
    const bin = path.join(dir, "node_modules/toolnexus-edge", manifest.bin["toolnexus-edge"]);
    expect(readFileSync(bin, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
    const curl = execFileSync(
      "node",
      [bin, "sign-decision", "--run", "th_a.run_b", "--request", "req_1", "--decision", "approve"],
      {
        cwd: dir,
        encoding: "utf8",
        env: { ...process.env, WEBHOOK_SECRET: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    expect(curl).toMatch(/^curl -s 'http:\/\/localhost:8787\/v1\/decisions'/);
    expect(curl).toContain("-H 'webhook-signature: v1,");
  });

  it("plain Node imports ./core and ./client and runs them", () => {
    writeFileSync(
      path.join(dir, "check.mjs"),
      `import { answerDeclined, createToolkit, defineTool, requireApproval } from "toolnexus-edge/core";
import { createApiClient, ApiRequestError } from "toolnexus-edge/client";
const tool = requireApproval(defineTool({
  name: "wipe", description: "Wipe", inputSchema: { type: "object", properties: {} }, run: () => "wiped",
}));
const toolkit = await createToolkit({ tools: [tool] });
const result = await toolkit.execute("wipe", {}, {});
const seen = [];
const api = createApiClient({
  baseUrl: "https://edge.example", token: "t",
  fetch: async (request) => (seen.push(request.headers.get("authorization")),
    Response.json({ error: { code: "run_not_found", message: "no run x" } }, { status: 404 })),
});
const error = await api.runs.get("x").catch((e) => e);
console.log(JSON.stringify({
  pending: result.metadata.pending.kind,
  declined: answerDeclined("r1"),
  error: [error instanceof ApiRequestError, error.status, error.code],
  auth: seen[0],
}));
`,
    );
    const output = JSON.parse(run("node", ["check.mjs"]));
    expect(output).toEqual({
      pending: "approval",
      declined: { id: "r1", ok: false, reason: "declined" },
      error: [true, 404, "run_not_found"],
      auth: "Bearer t",
    });
  });

  it("a strict consumer type-checks ./core and ./client without workers-types or @types/node", () => {
    writeFileSync(
      path.join(dir, "consumer.ts"),
      `import { defineTool, requireApproval, type RunResult } from "toolnexus-edge/core";
import { createApiClient, type Run, type RunCreate } from "toolnexus-edge/client";
const tool = requireApproval(defineTool({
  name: "wipe", description: "Wipe", inputSchema: { type: "object", properties: {} }, run: () => "wiped",
}));
const body: RunCreate = { agent: "support", input: "hi" };
const api = createApiClient({ baseUrl: "https://edge.example", token: "t" });
export async function main(): Promise<[string, Run["status"], RunResult | undefined]> {
  const started = await api.runs.start(body);
  const run = await api.runs.get(started.runId);
  // @ts-expect-error: a status the API never returns
  const wrong: Run["status"] = "paused";
  void wrong;
  return [tool.name, run.status, undefined];
}
`,
    );
    writeFileSync(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2022", "DOM", "DOM.Iterable"],
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: ["consumer.ts"],
      }),
    );
    writeFileSync(path.join(dir, "package.json"), '{ "type": "module" }\n');
    const tsc = path.join(ROOT, "node_modules/typescript/bin/tsc");
    let listed = "";
    try {
      listed = run("node", [tsc, "-p", "tsconfig.json", "--listFilesOnly"]);
      run("node", [tsc, "-p", "tsconfig.json"]);
    } catch (error) {
      throw new Error(`tsc failed:\n${(error as { stdout?: string }).stdout ?? error}`);
    }
    expect(listed).not.toMatch(/@types\/node|@cloudflare\/workers-types/);
    expect(listed).toMatch(/toolnexus-edge\/dist\/client\.d\.ts/);
  });
});
