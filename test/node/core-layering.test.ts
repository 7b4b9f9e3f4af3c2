/**
 * The kernel's layering rule (DESIGN §1): nothing under `src/core/` imports `cloudflare:*`
 * or `node:*`, nor reaches up into `src/edge/` or `durable/`, so it runs unchanged in
 * workerd, Node, Deno and Bun. Checked over the source text, so a file split or moved
 * inside the kernel keeps the rule without anyone remembering it.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const CORE = path.resolve(import.meta.dirname, "../../src/core");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      return sources(full);
    }
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

/** Every module specifier a file names: static imports, re-exports and `import()`. */
function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["']([^"']+)["']/g)) {
    found.push(match[1]!);
  }
  return found;
}

describe("src/core layering", () => {
  const files = sources(CORE);

  it("finds the kernel's files, the client's pieces among them", () => {
    const names = files.map((f) => path.relative(CORE, f));
    expect(names).toEqual(
      expect.arrayContaining(["client/index.ts", "client/build.ts", "index.ts"]),
    );
  });

  it("sees the import forms it checks", () => {
    expect(
      specifiers(
        `import type { A } from "node:fs";\nexport { b } from './b';\nawait import("cloudflare:workers");`,
      ),
    ).toEqual(["node:fs", "./b", "cloudflare:workers"]);
  });

  it("imports no runtime-specific module and nothing outside src/core", () => {
    const offenders: string[] = [];
    for (const file of files) {
      for (const spec of specifiers(readFileSync(file, "utf8"))) {
        const outside =
          spec.startsWith(".") &&
          path.relative(CORE, path.resolve(path.dirname(file), spec)).startsWith("..");
        if (spec.startsWith("cloudflare:") || spec.startsWith("node:") || outside) {
          offenders.push(`${path.relative(CORE, file)}: ${spec}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });
});
