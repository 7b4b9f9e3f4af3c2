/**
 * Issue 39 item 7: one conversation's receipts exported without filtering every thread's by
 * hand: `GET /v1/receipts?threadId=` is the same NDJSON export, only that thread's chain, which
 * verifies on its own against the published JWKS.
 */
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { api, BASE, signedDecision, waitForStatus } from "../../helpers/edge";
import { receiptPayload } from "../../helpers/receipts";
import { startPending, until } from "../../helpers/durable";
import { importJwks, verifyReceiptChain } from "../../../src/edge/receipts/verify";
import { ReceiptStore } from "../../../src/edge/receipts/receipt-store";
import type { SignedReceipt } from "../../../src/edge/receipts/receipt";
import { withScratchSql } from "./helpers";

/** Every line of one thread's export, page after page (two to a page: paging is exercised). */
async function threadExport(threadId: string): Promise<string[]> {
  const lines: string[] = [];
  let cursor: string | null = null;
  do {
    const response = await api(
      `/v1/receipts?threadId=${threadId}&limit=2${cursor ? `&cursor=${cursor}` : ""}`,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/x-ndjson");
    lines.push(
      ...(await response.text())
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as string),
    );
    cursor = response.headers.get("next-cursor");
  } while (cursor);
  return lines;
}

/** A run on `threadId` (or a new thread) decided by a signed decline, finished. */
async function decided(threadId?: string) {
  const {
    runId,
    threadId: thread,
    request,
  } = await startPending("Refund order 42 for $120", threadId ? { threadId } : {});
  const response = await signedDecision({ runId, requestId: request.id, decision: "decline" });
  expect(response.status).toBe(202);
  await waitForStatus(runId, ["done"]);
  return { runId, threadId: thread };
}

describe("GET /v1/receipts?threadId=", { timeout: 30_000 }, () => {
  it("exports one thread's whole chain, in order, verifiable on its own; no other thread's", async () => {
    const first = await decided();
    await decided(first.threadId);
    await decided(first.threadId);
    const other = await decided();

    const lines = await until(async () => {
      const found = await threadExport(first.threadId);
      return found.length === 3 && found;
    }, "the thread's three receipts in the export");
    expect(lines.map((jws) => receiptPayload(jws).seq)).toEqual([1, 2, 3]);
    expect(new Set(lines.map((jws) => receiptPayload(jws).threadId))).toEqual(
      new Set([first.threadId]),
    );
    const keys = await (await SELF.fetch(`${BASE}/.well-known/receipt-keys.json`)).json();
    expect(await verifyReceiptChain(lines, await importJwks(keys as never))).toEqual({
      ok: true,
      receipts: 3,
      threads: 1,
    });
    expect(
      await until(
        async () => (await threadExport(other.threadId)).length === 1 || undefined,
        "the other thread's receipt",
      ),
    ).toBe(true);
    expect(await threadExport("th_nobody")).toEqual([]);
  });

  it("a malformed threadId is 400 invalid_query naming it", async () => {
    const response = await api("/v1/receipts?threadId=not%20a%20thread");
    expect(response.status).toBe(400);
    const body = await response.json<{
      error: { code: string; issues: Array<{ path: string }> };
    }>();
    expect(body.error.code).toBe("invalid_query");
    expect(body.error.issues.map((i) => i.path)).toEqual(["threadId"]);
  });

  it("the store filters by thread, with since and the cursor", async () => {
    const r = (threadId: string, seq: number, at: string): SignedReceipt => ({
      threadId,
      seq,
      runId: `${threadId}.run_x`,
      at,
      jws: `jws-${threadId}-${seq}`,
    });
    await withScratchSql((sql) => {
      const store = new ReceiptStore(sql);
      store.accept([
        r("a", 1, "2026-07-01T10:00:00Z"),
        r("b", 1, "2026-07-01T10:00:01Z"),
        r("a", 2, "2026-07-01T10:00:02Z"),
        r("b", 2, "2026-07-01T10:00:03Z"),
        r("a", 3, "2026-07-01T10:00:04Z"),
      ]);
      const page = store.page({ limit: 2, threadId: "a" });
      expect(page.receipts).toEqual(["jws-a-1", "jws-a-2"]);
      expect(store.page({ limit: 2, threadId: "a", cursor: page.nextCursor ?? "" })).toEqual({
        receipts: ["jws-a-3"],
        nextCursor: null,
      });
      const since = Date.parse("2026-07-01T10:00:02Z");
      expect(store.page({ limit: 10, threadId: "b", since }).receipts).toEqual(["jws-b-2"]);
      expect(store.page({ limit: 10, threadId: "c" }).receipts).toEqual([]);
    });
  });
});
