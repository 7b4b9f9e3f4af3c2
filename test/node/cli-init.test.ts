/**
 * `toolnexus-edge init <dir>` (src/cli/init/): what it writes and what it refuses. The whole
 * path — pack, `npx toolnexus-edge init`, install from the tarball, tsc, the starter's own
 * test under `wrangler dev` — is scripts/starter-check.mjs (`npm run check:starter`).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { workerName } from "../../src/cli/init/command";
import { STARTER_SECRETS } from "../../src/cli/init/dev-vars";
import { type CliIo, main } from "../../src/cli/main";
import { NOTIFY_MAX_DELIVERIES } from "../../src/edge/notify/notification";
import { parseReceiptSeeds } from "../../src/edge/receipts/receipt-keys";
import { checkKeySecret } from "../../src/edge/secret-key";

const ROOT = path.resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(path.join(tmpdir(), "toolnexus-init-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function init(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    env: {},
    cwd: dir,
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    fetch: async () => new Response("unused"),
  };
  const code = await main(["init", ...args], io);
  return { code, out: out.join("\n"), err: err.join("\n") };
}

const read = (file: string) => readFileSync(path.join(dir, file), "utf8");
const vars = (text: string) =>
  Object.fromEntries([...text.matchAll(/^([A-Z_][A-Z0-9_]*)=(.*)$/gm)].map((m) => [m[1], m[2]]));

/** The binding, class, migration and flag lines of a wrangler.toml (not names or comments). */
const wiring = (toml: string) =>
  toml
    .split("\n")
    .filter((line) =>
      /^(name = "[A-Z_]+"|class_name|binding|tag|new_sqlite_classes|compatibility_flags|\[\[)/.test(
        line,
      ),
    );

describe("toolnexus-edge init", () => {
  it("writes a worker project into a new folder, and says what to run next", async () => {
    const result = await init("shop-agents");
    expect(result.code).toBe(0);
    expect(result.out).toContain("npm install");
    expect(result.out).toContain("npm test");
    for (const file of [
      "package.json",
      "wrangler.toml",
      "tsconfig.json",
      ".dev.vars",
      ".gitignore",
      "src/index.ts",
      "src/agents.ts",
      "src/demo-models.ts",
      "test/refund.test.mjs",
      "README.md",
    ]) {
      expect(statSync(path.join(dir, "shop-agents", file)).isFile()).toBe(true);
    }
    expect(read("shop-agents/.gitignore")).toContain(".dev.vars");
  });

  it("generates every secret, in the format the edge checks, readable by its owner only", () => {
    const text = read("shop-agents/.dev.vars");
    const written = vars(text);
    expect(Object.keys(STARTER_SECRETS).filter((name) => !written[name])).toEqual([]);
    for (const name of ["WEBHOOK_SECRET", "NOTIFY_SECRET", "MCP_TOKEN_KEY"]) {
      expect(checkKeySecret(name, written[name]!)).toMatchObject({ ok: true });
    }
    expect(parseReceiptSeeds(written.RECEIPT_KEY)).toHaveLength(1);
    expect(written.API_TOKEN!.length).toBeGreaterThanOrEqual(32);
    expect(statSync(path.join(dir, "shop-agents/.dev.vars")).mode & 0o777).toBe(0o600);
  });

  it("never writes the same secret twice", async () => {
    expect((await init("other-agents")).code).toBe(0);
    const one = vars(read("shop-agents/.dev.vars"));
    const two = vars(read("other-agents/.dev.vars"));
    for (const name of Object.keys(STARTER_SECRETS)) {
      expect(one[name]).not.toBe(two[name]);
    }
  });

  it("binds and migrates what examples/worker does, under the worker's own name", () => {
    const toml = read("shop-agents/wrangler.toml");
    expect(wiring(toml)).toEqual(
      wiring(readFileSync(path.join(ROOT, "examples/worker/wrangler.toml"), "utf8")),
    );
    expect(toml).toMatch(/^name = "shop-agents"$/m);
    expect(read("shop-agents/src/index.ts")).toContain('resume: "shop-agents-resume"');
    const notify = toml
      .split("[[queues.consumers]]")
      .slice(1)
      .find((block) => /^queue = "shop-agents-notify"$/m.test(block));
    expect(notify).toMatch(new RegExp(`^max_retries = ${NOTIFY_MAX_DELIVERIES - 1}$`, "m"));
  });

  it("depends on this version, with the dev tools this repository pins", () => {
    const own = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));
    const pkg = JSON.parse(read("shop-agents/package.json"));
    expect(pkg.dependencies).toEqual({ "toolnexus-edge": `^${own.version}` });
    for (const tool of ["wrangler", "typescript", "@cloudflare/workers-types"]) {
      expect(pkg.devDependencies[tool]).toBe(own.devDependencies[tool]);
    }
    expect(pkg.scripts.test).toBe("node --test test/refund.test.mjs");
  });

  it("refuses a folder that holds anything, and touches nothing in it", async () => {
    mkdirSync(path.join(dir, "mine"));
    writeFileSync(path.join(dir, "mine/notes.txt"), "keep me");
    const result = await init("mine");
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/mine is not empty; .*never overwrites a file/);
    expect(read("mine/notes.txt")).toBe("keep me");
    expect(() => statSync(path.join(dir, "mine/wrangler.toml"))).toThrow();
  });

  it("refuses a path that is a file, and a missing folder argument", async () => {
    expect((await init("mine/notes.txt")).code).toBe(1);
    const missing = await init();
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("usage: toolnexus-edge init <dir>");
  });

  it("names the worker after its folder, as wrangler accepts names", () => {
    expect(workerName("My Agents_2")).toBe("my-agents-2");
    expect(workerName("___")).toBe("my-agents");
  });
});
