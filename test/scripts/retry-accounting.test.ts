// The notify queue's retry count is stated in three places; they must agree.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { NOTIFY_MAX_DELIVERIES, retryDelaySeconds } from "../../src/edge/notify/notification";

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");

/** max_retries of the consumer of `queue` in a wrangler.toml. */
function maxRetries(toml: string, queue: string): number | undefined {
  for (const block of toml.split("[[queues.consumers]]").slice(1)) {
    if (new RegExp(`^queue = "${queue}"$`, "m").test(block)) {
      const match = /^max_retries = (\d+)$/m.exec(block);
      return match ? Number(match[1]) : undefined;
    }
  }
  return undefined;
}

describe("notify retry accounting", () => {
  it.each(["wrangler.toml", "test/fixtures/wrangler.mcp.toml"])(
    "%s: 1 send + max_retries = NOTIFY_MAX_DELIVERIES",
    (file) => {
      expect(maxRetries(read(file), "toolnexus-notify")).toBe(NOTIFY_MAX_DELIVERIES - 1);
    },
  );

  it("the docs say the same number, with the delays the consumer asks for", () => {
    const delays = Array.from({ length: NOTIFY_MAX_DELIVERIES - 1 }, (_, i) =>
      retryDelaySeconds(i + 1),
    );
    expect(delays).toEqual([5, 10, 20, 40]);
    const docs = read("docs/http-api.md");
    expect(docs).toContain(`after ${NOTIFY_MAX_DELIVERIES} deliveries`);
    expect(docs).toContain(`retried after ${delays.join(", ")} s`);
    expect(read("docs/getting-started.md")).toContain(`after ${NOTIFY_MAX_DELIVERIES} deliveries`);
  });
});

describe("the notify queue's batches", () => {
  // Without the flag a batch waits for its waitUntil work, and a handed-back slow delivery
  // would hold the next batch for its whole 10 s again (src/edge/notify/consumer.ts).
  it.each(["wrangler.toml", "examples/worker/wrangler.toml", "test/fixtures/wrangler.mcp.toml"])(
    "%s: the queue consumer does not wait for waitUntil work",
    (file) => {
      expect(read(file)).toMatch(
        /^compatibility_flags = \[[^\]]*"queue_consumer_no_wait_for_wait_until"[^\]]*\]$/m,
      );
    },
  );
});
