/**
 * What a newcomer copies must be true: both .dev.vars.example files name every variable
 * the edge reads (its EdgeEnv, Slack, Access, email and Teams settings) and every variable of this wave
 * (docs/architecture.md §7: MCP_TOKEN_KEY, RECEIPT_KEY, CORS_ORIGINS, OTEL_*), the
 * README's commands work as pasted (`curl -sN`, an install line that does not assume the
 * checkout's folder name), and the demo's knobs are documented.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

/** The `NAME?:` members of the env interfaces the edge reads. */
function envNames(): string[] {
  const names = new Set<string>();
  for (const file of [
    "src/edge/settings/core.ts",
    "src/edge/settings/slack.ts",
    "src/edge/settings/access.ts",
    "src/edge/settings/cors.ts",
    "src/edge/settings/email.ts",
    "src/edge/settings/teams.ts",
  ]) {
    for (const [, name] of read(file).matchAll(/^\s+([A-Z][A-Z0-9_]+)\?: string;/gm)) {
      names.add(name!);
    }
  }
  return [...names];
}

const WAVE = [
  "MCP_TOKEN_KEY",
  "RECEIPT_KEY",
  "CORS_ORIGINS",
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_HEADERS",
];

describe.each([".dev.vars.example", "examples/worker/.dev.vars.example"])("%s", (file) => {
  const text = read(file);
  const named = (name: string) => new RegExp(`^#? ?${name}=`, "m").test(text);

  it("names every variable the edge reads, set or commented out", () => {
    const names = envNames();
    expect(names).toEqual(
      expect.arrayContaining(["API_TOKEN", "WEBHOOK_SECRET", "APPROVER_GROUPS"]),
    );
    expect(names.filter((name) => !named(name))).toEqual([]);
  });

  it("names every variable of this wave", () => {
    expect(WAVE.filter((name) => !named(name))).toEqual([]);
  });

  it("says wrangler dev must be restarted after editing .dev.vars", () => {
    expect(text).toMatch(/[Rr]estart wrangler dev/);
  });
});

describe("the READMEs and the guides", () => {
  // The README is a map; what a newcomer pastes lives in the guides it links (docs/*.md).
  const readme = ["README.md", ...readdirSync(path.join(ROOT, "docs")).map((f) => `docs/${f}`)]
    .filter((file) => file.endsWith(".md"))
    .map(read)
    .join("\n");
  const example = read("examples/worker/README.md");

  it("stream events with curl -sN (no progress meter mixed into the events)", () => {
    for (const text of [readme, example]) {
      expect(text).not.toMatch(/curl -N /);
      expect(text).toMatch(/curl -sN /);
    }
  });

  it("install the packed tarball by a path that does not assume the checkout's folder name", () => {
    expect(readme).not.toContain("../toolnexus-edge/");
    expect(readme).toContain('npm install "$TARBALL"');
  });

  it("document --port, DEMO_URL and DEMO_APPROVAL_TIMEOUT", () => {
    expect(readme).toMatch(/--port 8788/);
    expect(example).toMatch(/--port 8788/);
    expect(readme).toMatch(/DEMO_URL=/);
    expect(readme).toMatch(/DEMO_APPROVAL_TIMEOUT/);
    expect(read(".dev.vars.example")).toMatch(/^# DEMO_APPROVAL_TIMEOUT=/m);
  });
});
