import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

// Two projects: everything runs in workerd (the real runtime, with local Durable
// Objects, queues and alarms); the kernel's tests run a second time under plain
// Node to prove src/core is runtime-agnostic.
// Secrets for the worker under test (never real ones); test/helpers/edge.ts uses the same values.
export const TEST_API_TOKEN = "test-token";
export const TEST_WEBHOOK_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

export default defineConfig({
  test: {
    projects: [
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: { bindings: { API_TOKEN: TEST_API_TOKEN, WEBHOOK_SECRET: TEST_WEBHOOK_SECRET } },
          }),
        ],
        test: { name: "workers", include: ["test/**/*.test.ts"], exclude: ["test/browser/**"] },
      },
      {
        test: { name: "node", environment: "node", include: ["test/core/**/*.test.ts"] },
      },
    ],
  },
});
