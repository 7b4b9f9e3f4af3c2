/**
 * The receipt routes, as a sub-app the edge mounts at its root (`app.route("/", …)`), with their
 * data sources injected: the run's receipts come from its thread's object, the export from the
 * receipts store, the keys from `RECEIPT_KEY`.
 *
 * - `GET /v1/runs/:runId/receipts` (API token) → `{ receipts: [<compact JWS>, …] }`, chain order.
 * - `GET /v1/receipts?since=&limit=&cursor=&threadId=` (API token) → NDJSON, one JSON string (a
 *   JWS) per line, every thread or only `threadId`'s (one conversation's chain, verifiable on its
 *   own); the next page's cursor in `next-cursor` (absent on the last page).
 * - `GET /.well-known/receipt-keys.json` → the JWKS (public; every configured key).
 */
import { Hono } from "hono";
import { bearerAuth } from "../http/auth";
import type { EdgeEnv } from "../settings";
import { ApiError } from "../http/errors";
import { NO_STORE } from "../http/headers";
import { THREAD_ID } from "../http/schemas";
import type { ReceiptJwks } from "./verify";
import type { ReceiptEnv } from "./receipt-keys";
import {
  decodeReceiptCursor,
  MAX_RECEIPT_PAGE,
  type ReceiptPage,
  type ReceiptPageQuery,
} from "./receipt-store";

export const DEFAULT_RECEIPT_PAGE = 100;

/** The worker environment the sources are handed (the edge's, with `RECEIPT_KEY`). */
export type ReceiptRouteEnv = EdgeEnv & ReceiptEnv;

export interface ReceiptSources {
  /** The run's receipts in chain order, or null for a run that does not exist. */
  runReceipts(env: ReceiptRouteEnv, runId: string): Promise<string[] | null>;
  /** A page of the export (the query already checked). */
  receiptPage(env: ReceiptRouteEnv, query: ReceiptPageQuery): Promise<ReceiptPage>;
  /** The public keys; throws `ConfigError` when `RECEIPT_KEY` is unset or malformed. */
  receiptKeys(env: ReceiptRouteEnv): Promise<ReceiptJwks>;
}

/**
 * @example app.route("/", receiptRoutes({ runReceipts, receiptPage, receiptKeys: (env) => receiptKeys(env.RECEIPT_KEY).then(receiptJwks) }))
 */
export function receiptRoutes(sources: ReceiptSources) {
  return new Hono<{ Bindings: ReceiptRouteEnv }>()
    .get("/v1/runs/:runId/receipts", bearerAuth(), async (c) => {
      const runId = c.req.param("runId");
      const receipts = await sources.runReceipts(c.env, runId);
      if (!receipts) {
        throw new ApiError(404, "run_not_found", `no run ${runId}`);
      }
      return c.json({ receipts }, 200, NO_STORE);
    })
    .get("/v1/receipts", bearerAuth(), async (c) => {
      const query = pageQuery(c.req.query());
      const page = await sources.receiptPage(c.env, query);
      const body = page.receipts.map((jws) => `${JSON.stringify(jws)}\n`).join("");
      return c.body(body, 200, {
        ...NO_STORE,
        "content-type": "application/x-ndjson; charset=utf-8",
        ...(page.nextCursor ? { "next-cursor": page.nextCursor } : {}),
      });
    })
    .get("/.well-known/receipt-keys.json", async (c) => {
      // Public keys, cached briefly: a rotation is seen within five minutes.
      return c.json(await sources.receiptKeys(c.env), 200, {
        "cache-control": "public, max-age=300",
      });
    });
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/** `since`, `limit`, `cursor` and `threadId`, checked; each problem named in a 400 `invalid_query`. */
export function pageQuery(raw: Record<string, string>): ReceiptPageQuery {
  const issues: Array<{ path: string; message: string }> = [];
  const query: ReceiptPageQuery = { limit: DEFAULT_RECEIPT_PAGE };
  if (raw.since !== undefined) {
    const since = Date.parse(raw.since);
    if (!RFC3339.test(raw.since) || !Number.isFinite(since)) {
      issues.push({
        path: "since",
        message: "must be an RFC 3339 time, e.g. 2026-07-01T00:00:00Z",
      });
    } else {
      query.since = since;
    }
  }
  if (raw.limit !== undefined) {
    const limit = /^[0-9]{1,4}$/.test(raw.limit) ? Number(raw.limit) : Number.NaN;
    if (!(limit >= 1 && limit <= MAX_RECEIPT_PAGE)) {
      issues.push({
        path: "limit",
        message: `must be a whole number from 1 to ${MAX_RECEIPT_PAGE}`,
      });
    } else {
      query.limit = limit;
    }
  }
  if (raw.cursor !== undefined) {
    if (decodeReceiptCursor(raw.cursor) === null) {
      issues.push({ path: "cursor", message: "is not a cursor this service gave out" });
    } else {
      query.cursor = raw.cursor;
    }
  }
  if (raw.threadId !== undefined) {
    if (!THREAD_ID.test(raw.threadId)) {
      issues.push({ path: "threadId", message: "is 1 to 128 letters, digits, '_' or '-'" });
    } else {
      query.threadId = raw.threadId;
    }
  }
  if (issues.length > 0) {
    throw new ApiError(400, "invalid_query", {
      message: issues.map((i) => `${i.path} ${i.message}`).join("; "),
      issues,
    });
  }
  return query;
}
