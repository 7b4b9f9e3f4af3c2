/**
 * `npm run typecheck` checks worker-configuration.d.ts against wrangler.toml and the
 * variables .dev.vars.example names, whatever the developer's own .dev.vars holds
 * (scripts/worker-types.mjs): a copy of the project with a .dev.vars full of optional
 * variables still passes, and a binding added to wrangler.toml still fails it.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const project = mkdtempSync(path.join(tmpdir(), "toolnexus-types-"));
afterAll(() => rmSync(project, { recursive: true, force: true }));

for (const file of ["wrangler.toml", ".dev.vars.example", "worker-configuration.d.ts"]) {
  cpSync(path.join(ROOT, file), path.join(project, file));
}
// Copied, not linked: the script finds the project from its own location.
cpSync(path.join(ROOT, "scripts"), path.join(project, "scripts"), { recursive: true });
for (const dir of ["node_modules", "src", "durable"]) {
  symlinkSync(path.join(ROOT, dir), path.join(project, dir));
}

const checkTypes = () =>
  spawnSync(process.execPath, ["scripts/worker-types.mjs", "--check"], {
    cwd: project,
    encoding: "utf8",
  });

it("passes with a developer's .dev.vars that sets optional variables, in its own order", () => {
  writeFileSync(
    path.join(project, ".dev.vars"),
    [
      "NOTIFY_SECRET=whsec_bm90aWZ5",
      "LLM_BASE_URL=https://api.openai.com/v1",
      "LLM_API_KEY=sk-test",
      "SLACK_BOT_TOKEN=xoxb-1",
      "SLACK_SIGNING_SECRET=s",
      "API_TOKEN=mine",
      "",
    ].join("\n"),
  );
  const result = checkTypes();
  expect(result.stdout).toContain("worker-configuration.d.ts is up to date");
  expect(result.status).toBe(0);
}, 60_000);

it("fails when wrangler.toml gains a binding the committed types lack", () => {
  appendFileSync(path.join(project, "wrangler.toml"), '\n[vars]\nREGION = "eu"\n');
  const result = checkTypes();
  expect(result.stderr).toContain("out of date with wrangler.toml: run `npm run types`");
  expect(result.status).toBe(1);
}, 60_000);
