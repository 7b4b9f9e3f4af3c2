// The receipt routes as a sub-app (the lead mounts it): token, query checks, NDJSON with a
// next-cursor header, and the JWKS — with the data sources injected.
import { env } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { errorHandler } from "../../../src/edge/http/errors";
import { receiptJwks, receiptKeys } from "../../../src/edge/receipts/receipt-keys";
import type { ReceiptPageQuery } from "../../../src/edge/receipts/receipt-store";
import { RECEIPT_PATHS } from "../../../src/edge/receipts/openapi";
import { receiptRoutes, type ReceiptRouteEnv } from "../../../src/edge/receipts/routes";
import { SEED_A } from "./helpers";

const queries: ReceiptPageQuery[] = [];
const app = new Hono<{ Bindings: ReceiptRouteEnv }>()
  .route(
    "/",
    receiptRoutes({
      runReceipts: async (_env, runId) => (runId === "th_1.run_known" ? ["a.b.c", "d.e.f"] : null),
      receiptPage: async (_env, query) => {
        queries.push(query);
        return { receipts: ["a.b.c", 'q"u.o.te'], nextCursor: query.cursor ? null : "r2" };
      },
      receiptKeys: async (e) => receiptJwks(await receiptKeys(e.RECEIPT_KEY)),
    }),
  )
  .onError(errorHandler(() => {}));

const auth = { authorization: "Bearer test-token" };
const call = (path: string, headers: Record<string, string> = auth, extra: object = {}) =>
  app.request(path, { headers }, { ...env, ...extra });

describe("receipt routes", () => {
  it("GET /v1/runs/:runId/receipts needs the API token and answers 404 for an unknown run", async () => {
    expect((await call("/v1/runs/th_1.run_known/receipts", {})).status).toBe(401);
    const ok = await call("/v1/runs/th_1.run_known/receipts");
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ receipts: ["a.b.c", "d.e.f"] });
    expect(ok.headers.get("cache-control")).toBe("no-store");
    const missing = await call("/v1/runs/th_1.run_nope/receipts");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: "run_not_found" } });
  });

  it("GET /v1/receipts is NDJSON of JSON strings with the next cursor in a header", async () => {
    expect((await call("/v1/receipts", {})).status).toBe(401);
    queries.length = 0;
    const first = await call("/v1/receipts?since=2026-07-01T10:00:00Z");
    expect(first.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
    expect(first.headers.get("next-cursor")).toBe("r2");
    const text = await first.text();
    expect(text.split("\n")).toEqual(['"a.b.c"', '"q\\"u.o.te"', ""]);
    expect(
      text
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line)),
    ).toEqual(["a.b.c", 'q"u.o.te']);
    const last = await call("/v1/receipts?cursor=r2&limit=1000");
    expect(last.headers.has("next-cursor")).toBe(false);
    expect(queries).toEqual([
      { limit: 100, since: Date.parse("2026-07-01T10:00:00Z") },
      { limit: 1000, cursor: "r2" },
    ]);
  });

  it("answers 400 invalid_query naming each bad parameter", async () => {
    for (const [query, path] of [
      ["limit=0", "limit"],
      ["limit=1001", "limit"],
      ["limit=ten", "limit"],
      ["limit=1.5", "limit"],
      ["since=yesterday", "since"],
      ["since=2026-07-01", "since"],
      ["since=2026-13-45T99:00:00Z", "since"],
      ["cursor=abc", "cursor"],
    ]) {
      const res = await call(`/v1/receipts?${query}`);
      expect(res.status, query).toBe(400);
      const body = (await res.json()) as {
        error: { code: string; issues: Array<{ path: string }> };
      };
      expect(body.error.code).toBe("invalid_query");
      expect(body.error.issues.map((i) => i.path)).toEqual([path]);
    }
  });

  it("GET /.well-known/receipt-keys.json is the public JWKS, or a config_error without a key", async () => {
    const res = await call("/.well-known/receipt-keys.json", {}, { RECEIPT_KEY: SEED_A });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(receiptJwks(await receiptKeys(SEED_A)));
    const unset = await call("/.well-known/receipt-keys.json", {}, { RECEIPT_KEY: undefined });
    expect(unset.status).toBe(500);
    expect(await unset.json()).toMatchObject({
      error: { code: "config_error", message: expect.stringMatching(/^RECEIPT_KEY is not set/) },
    });
  });

  it("are the routes its OpenAPI part documents", () => {
    const served = app.routes.map((r) => `${r.method} ${r.path}`).filter((r) => !r.includes("*"));
    const documented = Object.entries(RECEIPT_PATHS).flatMap(([path, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`),
    );
    expect([...new Set(served)].sort()).toEqual(documented.sort());
  });
});
