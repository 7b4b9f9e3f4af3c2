/**
 * The keys the tests, the dev server and the examples run with are strong enough for the
 * key check every secret goes through (src/edge/secret-key.ts: ≥ 24 bytes after whsec_),
 * so tightening the check never turns into a test-only failure.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkKeySecret } from "../../src/edge/secret-key";
import { TEST_VARS } from "../../scripts/lib/dev-server.mjs";
import { parseDotenv } from "../../scripts/lib/dev-vars.mjs";

const ROOT = path.resolve(import.meta.dirname, "../..");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

/** Every `whsec_…` literal in a file. */
const literals = (file: string) =>
  [...read(file).matchAll(/whsec_[A-Za-z0-9+/]{8,}=*/g)].map((m) => m[0]);

describe("the secrets tests and examples run with", () => {
  it.each([
    ["vitest.config.ts", literals("vitest.config.ts")],
    ["test/helpers/edge.ts", literals("test/helpers/edge.ts")],
    ["scripts/lib/dev-server.mjs", [TEST_VARS.WEBHOOK_SECRET, TEST_VARS.NOTIFY_SECRET]],
    [
      "bench/",
      ["bench/pipeline.mjs", "bench/inbox.mjs", "bench/lib/durable-harness.ts"].flatMap(literals),
    ],
    [
      "examples/worker/.dev.vars.example",
      Object.entries(parseDotenv(read("examples/worker/.dev.vars.example")))
        .filter(([name]) => name.endsWith("_SECRET"))
        .map(([, value]) => value),
    ],
  ])("%s: each passes the key check", (_where, secrets) => {
    for (const secret of secrets as string[]) {
      const checked = checkKeySecret("TEST", secret);
      expect(checked.ok, secret).toBe(true);
    }
  });

  it("the files hold keys at all (the regex finds them)", () => {
    expect(literals("vitest.config.ts").length).toBeGreaterThanOrEqual(2);
    // check:example runs the example with its .dev.vars.example as it is (issue 39): its keys live there.
    expect(literals("examples/worker/.dev.vars.example").length).toBeGreaterThanOrEqual(2);
  });
});
