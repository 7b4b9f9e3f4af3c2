/**
 * The size budget of the deployable worker (issue 26): built as `wrangler deploy` builds
 * it (wrangler.toml's settings), gzipped, compared with the budget in
 * scripts/bundle-size.mjs. Bytes, not time: the same tree and lockfile give the same size.
 */
import { describe, expect, it } from "vitest";
import { BUDGET_GZIP_BYTES, measureBundle } from "../../scripts/bundle-size.mjs";

describe("the worker bundle", () => {
  it("stays within its gzipped size budget", { timeout: 240_000 }, () => {
    const size = measureBundle();
    expect(size.largest).toHaveLength(10);
    expect(size.gzip, `gzip -9 bytes (budget ${BUDGET_GZIP_BYTES})`).toBeLessThanOrEqual(
      BUDGET_GZIP_BYTES,
    );
  });
});
