/**
 * Issue 39 item 7 (docs/node-versions.md): which Node the product needs and which only the
 * tooling does, read from package-lock.json. Runtime dependencies must all accept the floor of
 * package.json's `engines` (Node 20.0.0); the development packages that refuse Node 20.19 —
 * npm's `EBADENGINE` warnings on `npm ci` there — are exactly the AI SDK's six and the MCP
 * conformance suite's `content-type` (its GitHub client's, which the suite's runs never load).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const lock = JSON.parse(readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as {
  packages: Record<string, { version?: string; dev?: boolean; engines?: { node?: string } }>;
};
const manifest = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  engines: { node: string };
};

type Version = [number, number, number];
const parse = (text: string): Version => {
  const [major = 0, minor = 0, patch = 0] = text.replace(/^v/, "").split(".").map(Number);
  return [major, minor, patch];
};
const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** One comparator of an npm range (`>=20.19.0`, `^20.19.0`, `<21`, `20.x`, `>= 0.8`). */
function accepts(comparator: string, version: Version): boolean {
  const match =
    /^(\^|~|>=|<=|>|<|=)?\s*v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?(?:-[\w.]+)?$/.exec(
      comparator.trim(),
    );
  if (!match) {
    throw new Error(`a range this test cannot read: ${comparator}`);
  }
  const [, op = "=", major, minor, patch] = match;
  const bound: Version = [Number(major), Number(minor) || 0, Number(patch) || 0];
  const c = compare(version, bound);
  switch (op) {
    case ">=":
      return c >= 0;
    case ">":
      return c > 0;
    case "<=":
      return c <= 0;
    case "<":
      return c < 0;
    case "^":
      return c >= 0 && version[0] === bound[0];
    case "~":
      return c >= 0 && version[0] === bound[0] && version[1] === bound[1];
    default:
      return minor === undefined || minor === "x" ? version[0] === bound[0] : c === 0;
  }
}

/** An npm range: `||`-separated sets of space-separated comparators (`>= 0.8` is one). */
function satisfies(version: string, range: string): boolean {
  const v = parse(version);
  return range
    .split("||")
    .some((set) =>
      (set.trim().match(/(?:\^|~|>=|<=|>|<|=)?\s*v?\d[\w.*-]*/g) ?? []).every((c) => accepts(c, v)),
    );
}

function refusing(version: string, { dev }: { dev: boolean }): string[] {
  const names = new Set<string>();
  for (const [where, entry] of Object.entries(lock.packages)) {
    const range = entry.engines?.node;
    if (where && range && Boolean(entry.dev) === dev && !satisfies(version, range)) {
      names.add(where.replace(/^.*node_modules\//, ""));
    }
  }
  return [...names].sort();
}

describe("Node versions (docs/node-versions.md)", () => {
  it("reads npm ranges as npm does", () => {
    expect(satisfies("20.20.2", "^20.19.0 || >=22.12.0")).toBe(true);
    expect(satisfies("20.18.0", "^20.19.0 || >=22.12.0")).toBe(false);
    expect(satisfies("21.0.0", ">=22.12.0 || >=20.19.0 <21.0.0")).toBe(false);
    expect(satisfies("20.0.0", ">= 0.8")).toBe(true);
    expect(satisfies("20.20.2", ">=22")).toBe(false);
  });

  it("the product: every runtime dependency accepts the floor of package.json's engines", () => {
    expect(manifest.engines.node).toBe(">=20");
    expect(refusing("20.0.0", { dev: false })).toEqual([]);
  });

  it("the tooling: on Node 20.19 exactly the AI SDK's six development packages and the conformance suite's content-type warn", () => {
    expect(refusing("20.19.0", { dev: true })).toEqual([
      "@ai-sdk/gateway",
      "@ai-sdk/mcp",
      "@ai-sdk/provider",
      "@ai-sdk/provider-utils",
      "@ai-sdk/react",
      "ai",
      "content-type", // @modelcontextprotocol/conformance → @octokit/request (docs/node-versions.md)
    ]);
    // Node 22.12 (recommended): nothing the repository installs on Linux x64 refuses it.
    const wasm = ["@napi-rs/wasm-runtime", "@rolldown/binding-wasm32-wasi"];
    expect(refusing("22.12.0", { dev: true }).filter((n) => !wasm.includes(n))).toEqual([]);
  });
});
