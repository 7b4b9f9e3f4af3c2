// scripts/lib/doc-blocks.mjs: which fenced blocks of the docs `npm run check:docs` type-checks,
// parses or runs, which it lists as illustrative, and which fail it (scripts/docs-check.mjs).
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { classify, extractBlocks, shellScript } from "../../scripts/lib/doc-blocks.mjs";

const doc = [
  "# A guide",
  "",
  "<!-- given: declare const apiKey: string; -->",
  "```ts",
  "const client = createClient({ apiKey });",
  "```",
  "",
  "- a list item with an indented block:",
  "",
  "  ```sh",
  "  curl -s localhost:8787/healthz   # → ok",
  "  ```",
  "",
  "<!-- illustrative: a tree, as a collector draws it -->",
  "```",
  "invoke_agent support",
  "```",
  "",
  "```toml",
  "[observability]",
  "```",
  "",
  "<!-- illustrative:   -->",
  "```yaml",
  "a: 1",
  "```",
  "",
  "```json",
  '{ "ok": true }',
  "```",
].join("\n");

describe("extractBlocks", () => {
  const blocks = extractBlocks(doc);

  it("finds every fence, indented ones too, with its line, language and marker", () => {
    expect(blocks.map((b) => [b.line, b.lang])).toEqual([
      [4, "ts"],
      [10, "sh"],
      [15, ""],
      [19, "toml"],
      [24, "yaml"],
      [28, "json"],
    ]);
    expect(blocks[0]!.marker).toBe("<!-- given: declare const apiKey: string; -->");
    expect(blocks[1]!.code).toBe("curl -s localhost:8787/healthz   # → ok");
    expect(blocks[3]!.marker).toBeUndefined();
  });

  it("takes only the comment on the line directly above the fence", () => {
    const [block] = extractBlocks("<!-- illustrative: why -->\n\n```sh\nls\n```");
    expect(block!.marker).toBeUndefined();
    expect(classify(block!).kind).toBe("run");
  });

  it("reads a marker that spans lines", () => {
    const [block] = extractBlocks("<!-- illustrative: needs\n  an account -->\n```sh\nls\n```");
    expect(classify(block!)).toEqual({ kind: "illustrative", reason: "needs an account" });
  });
});

describe("classify", () => {
  const uses = extractBlocks(doc).map(classify);

  it("type-checks ts with the declarations given above it, runs sh, parses json", () => {
    expect(uses[0]).toEqual({
      kind: "typecheck",
      ext: "ts",
      given: "declare const apiKey: string;",
    });
    expect(uses[1]).toEqual({ kind: "run" });
    expect(uses[5]).toEqual({ kind: "parse" });
  });

  it("lists a marked block as illustrative, with its reason", () => {
    expect(uses[2]).toEqual({ kind: "illustrative", reason: "a tree, as a collector draws it" });
  });

  it("fails an unmarked block it cannot run, check or parse, and a marker without a reason", () => {
    expect(uses[3]).toMatchObject({ kind: "unmarked" });
    expect(uses[3]!.kind === "unmarked" && uses[3]!.problem).toMatch(/toml block.*illustrative/);
    expect(uses[4]).toEqual({ kind: "unmarked", problem: "an illustrative marker needs a reason" });
    expect(classify({ lang: "" })).toMatchObject({ kind: "unmarked" });
  });

  it("refuses a given marker on a block that is not type-checked", () => {
    expect(classify({ lang: "sh", marker: "<!-- given: declare const x: 1; -->" })).toMatchObject({
      kind: "unmarked",
    });
  });
});

describe("shellScript", () => {
  const options = { base: "http://127.0.0.1:4321", file: "docs/guide.md", line: 10 };

  it("points the guides' localhost:8787 at the server the check started", () => {
    expect(shellScript("curl -s localhost:8787/a http://127.0.0.1:8787/b", options)).toBe(
      "curl -s 127.0.0.1:4321/a http://127.0.0.1:4321/b",
    );
  });

  it("checks `# → text` after a one-line command, and leaves descriptions alone", () => {
    const script = shellScript(
      [
        "echo 'status: done'   # → done",
        'echo pending   # → "Run … is pending …"',
        "# → a comment line of its own",
        "echo one \\",
        "  two   # → two",
      ].join("\n"),
      options,
    );
    const lines = script.split("\n");
    expect(lines[0]).toBe(
      `__out=$(echo 'status: done'); printf '%s\\n' "$__out"; __expect "$__out" 'done' 'docs/guide.md:11'`,
    );
    expect(lines.slice(1)).toEqual([
      'echo pending   # → "Run … is pending …"',
      "# → a comment line of its own",
      "echo one \\",
      "  two   # → two",
    ]);
  });

  it("an expectation that is not printed fails the script, one that is passes", () => {
    const prelude =
      '__expect() { case "$1" in *"$2"*) ;; *) echo "$3 printed no $2" >&2; exit 1;; esac; }';
    const run = (code: string) => {
      try {
        execFileSync(
          "bash",
          ["-euo", "pipefail", "-c", `${prelude}\n${shellScript(code, options)}`],
          {
            stdio: "pipe",
          },
        );
        return "passed";
      } catch (error) {
        return String((error as { stderr: Buffer }).stderr);
      }
    };
    expect(run("echo done   # → done")).toBe("passed");
    expect(run("echo failed   # → done")).toBe("docs/guide.md:11 printed no done\n");
  });
});
