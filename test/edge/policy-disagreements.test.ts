// GET /v1/policy/disagreements (issue 43 item 4): the shadow policy's disagreements, kept in
// the receipts store's object, listed oldest first with a cursor; API token; bad paging 400.
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { DisagreementEntry } from "../../src/edge/policy/run-tools";
import { receiptStub } from "../../src/edge/receipts/rpc";
import { api, BASE } from "../helpers/edge";

const entry = (n: number): DisagreementEntry => ({
  tool: "refund_order",
  callId: `call_${n}`,
  live: { policy: "in-code", decision: "allow" },
  shadow: { policy: "authzen-shadow", decision: "ask", rules: { group: "finance", quorum: 2 } },
  runId: `th_${n}.run_1`,
  threadId: `th_${n}`,
  agent: "support",
  at: new Date(Date.UTC(2026, 11, 4, 12, 0, n)).toISOString(),
});

describe("GET /v1/policy/disagreements", () => {
  it("needs the API token", async () => {
    const response = await SELF.fetch(`${BASE}/v1/policy/disagreements`);
    expect(response.status).toBe(401);
  });

  it("lists every disagreement, oldest first, page by page", async () => {
    const store = receiptStub(env);
    for (const n of [1, 2, 3]) {
      await store.addDisagreement(entry(n));
    }
    const first = await api("/v1/policy/disagreements?limit=2");
    expect(first.status).toBe(200);
    const page = (await first.json()) as { items: DisagreementEntry[]; nextCursor: string | null };
    expect(page.items).toEqual([entry(1), entry(2)]);
    expect(page.nextCursor).toEqual(expect.any(String));
    const second = (await (
      await api(`/v1/policy/disagreements?limit=2&cursor=${page.nextCursor}`)
    ).json()) as { items: DisagreementEntry[]; nextCursor: string | null };
    expect(second).toEqual({ items: [entry(3)], nextCursor: null });
  });

  it("refuses a limit or cursor it does not take", async () => {
    for (const query of ["limit=0", "limit=201", "limit=x", "cursor=r5"]) {
      const response = await api(`/v1/policy/disagreements?${query}`);
      expect(response.status, query).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
        "invalid_query",
      );
    }
  });
});
