// scripts/check-references.mjs (run by `npm run lint:layout`) fails on a reference that does
// not resolve and passes on ones that do: checked on fixture files written for the test.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const DIR = path.join(ROOT, "test", "scripts", `.references-${process.pid}`);

function check(name: string, text: string): { ok: boolean; output: string } {
  mkdirSync(DIR, { recursive: true });
  const file = path.join(DIR, name);
  writeFileSync(file, text);
  try {
    const output = execFileSync(process.execPath, ["scripts/check-references.mjs", file], {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    return { ok: true, output };
  } catch (error) {
    const failed = error as { stderr: string };
    return { ok: false, output: failed.stderr };
  }
}

afterAll(() => rmSync(DIR, { recursive: true, force: true }));

describe("check-references", () => {
  it("passes paths, sections and section names that exist", () => {
    const result = check(
      "good.ts",
      [
        "/**",
        " * Keys (src/edge/approvals/keys.ts), the lock (durable/thread/drive/drive-lock.ts),",
        ' * the folder src/edge/settings/, docs/architecture.md §6 "Groups", §1 of',
        ' * docs/architecture.md §1, README, "Limits", bench/README.md §5, and a',
        " * git-ignored build output (dist/cli.mjs); bench/README §4 is bench/README.md's.",
        " */",
        'const inString = "src/edge/keys.ts is in a string, not a comment";',
        "",
      ].join("\n"),
    );
    expect(result.output).toContain("every path and section cited in 1 files exists");
    expect(result.ok).toBe(true);
  });

  it("fails on a moved file, a missing section, a missing section name and a missing document", () => {
    const result = check(
      "stale.ts",
      [
        "// The keys live in src/edge/keys.ts (moved to src/edge/approvals/).",
        '/* See docs/architecture.md §9 and docs/architecture.md §6 "Quorum dances". */',
        '// Identity: DESIGN.md §6 "Identity"; the old folder durable/ledgers/.',
        "",
      ].join("\n"),
    );
    expect(result.ok).toBe(false);
    const lines = result.output.split("\n").map((line) => line.trim());
    const at = path.relative(ROOT, path.join(DIR, "stale.ts"));
    expect(lines).toContain(`${at}:1: src/edge/keys.ts does not exist`);
    expect(lines).toContain(`${at}:2: docs/architecture.md has no §9`);
    expect(lines).toContain(`${at}:2: docs/architecture.md §6 has no "Quorum dances"`);
    expect(lines).toContain(`${at}:3: DESIGN.md §6: no such document`);
    expect(lines).toContain(`${at}:3: folder durable/ledgers/ does not exist`);
  });

  it("checks a markdown file's prose and links, not its code blocks", () => {
    const result = check(
      "doc.md",
      [
        "# A doc",
        "",
        "The lock is in `durable/drive-lock.ts`; see [the README](../../../README.md#decision-receipts).",
        "",
        "```ts",
        'import { x } from "./src/not/a/reference.ts";',
        "```",
        "",
      ].join("\n"),
    );
    expect(result.ok).toBe(false);
    const problems = result.output.split("\n").filter((line) => line.includes("does not exist"));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(":3: durable/drive-lock.ts does not exist");
  });
});
