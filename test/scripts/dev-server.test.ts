// The dev server the browser tests and `check:dev` start runs with the test configuration,
// whatever the developer's .dev.vars holds: wrangler's --env-file replaces .dev.vars.
import { describe, expect, it } from "vitest";
import { devServerArgs, TEST_VARS } from "../../scripts/lib/dev-server.mjs";

describe("startDevServer's command line", () => {
  it("hands wrangler exactly one env file (so .dev.vars is not read)", () => {
    const args = devServerArgs({
      port: 1,
      inspectorPort: 2,
      stateDir: "/tmp/x",
      envFile: "/tmp/x/dev.vars",
    });
    expect(args.filter((a: string) => a === "--env-file")).toHaveLength(1);
    expect(args[args.indexOf("--env-file") + 1]).toBe("/tmp/x/dev.vars");
  });

  it("the test configuration has no model endpoint and no public URL", () => {
    expect(Object.keys(TEST_VARS).sort()).toEqual([
      "API_TOKEN",
      "APPROVER_GROUPS",
      "CALLBACK_ALLOW",
      "NOTIFY_SECRET",
      "RECEIPT_KEY", // decisions always sign receipts (issue 30)
      "WEBHOOK_SECRET",
    ]);
  });
});
