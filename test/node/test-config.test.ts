/**
 * The workers projects run with the test configuration whatever the developer's
 * .dev.vars holds: the config they are given sits in a directory without one.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { isolatedWranglerConfig } from "../helpers/isolated-config.mjs";

const dir = mkdtempSync(path.join(tmpdir(), "toolnexus-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function bindingsOf(configPath: string): Record<string, unknown> {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(configPath);
  return (workerOptions.bindings ?? {}) as Record<string, unknown>;
}

describe("test configuration", () => {
  it("a developer's .dev.vars reaches wrangler's config, but not the isolated copy", () => {
    const project = path.join(dir, "project");
    const source = path.join(project, "wrangler.toml");
    isolatedWranglerConfig("wrangler.toml", project); // a copy of ours with an absolute main
    writeFileSync(
      path.join(project, ".dev.vars"),
      "LLM_BASE_URL=https://api.openai.com/v1\nLLM_MODEL=gpt-4o-mini\nPUBLIC_URL=https://x.example\n",
    );
    expect(bindingsOf(source)).toMatchObject({ LLM_BASE_URL: "https://api.openai.com/v1" });

    const isolated = isolatedWranglerConfig(source, path.join(dir, "isolated"));
    const bindings = bindingsOf(isolated);
    expect(bindings).not.toHaveProperty("LLM_BASE_URL");
    expect(bindings).not.toHaveProperty("LLM_MODEL");
    expect(bindings).not.toHaveProperty("PUBLIC_URL");
    // Everything else is the same configuration.
    const { workerOptions: a } = unstable_getMiniflareWorkerOptions(source);
    const { workerOptions: b } = unstable_getMiniflareWorkerOptions(isolated);
    expect(b.durableObjects).toEqual(a.durableObjects);
    expect(b.queueProducers).toEqual(a.queueProducers);
    expect(b.queueConsumers).toEqual(a.queueConsumers);
  });

  it("the copy points at the same entry module", () => {
    const isolated = isolatedWranglerConfig("wrangler.toml", path.join(dir, "entry"));
    const main = /^main = "(.+)"$/m.exec(readFileSync(isolated, "utf8"))?.[1];
    expect(main).toBe(path.resolve("src/worker.ts"));
  });
});
