import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

// Two projects: everything runs in workerd (the real runtime, with local Durable
// Objects, queues and alarms); the kernel's tests run a second time under plain
// Node to prove src/core is runtime-agnostic.
export default defineConfig({
  test: {
    projects: [
      {
        plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" } })],
        test: { name: "workers", include: ["test/**/*.test.ts"], exclude: ["test/browser/**"] },
      },
      {
        test: { name: "node", environment: "node", include: ["test/core/**/*.test.ts"] },
      },
    ],
  },
});
