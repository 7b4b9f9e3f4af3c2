/**
 * `GET /v1/policy/disagreements?cursor=&limit=` (API token): the shadow policy's
 * disagreements with the live one, oldest first, `{ items, nextCursor }` (limit default 50,
 * at most 200). Read from the receipts store's object (./disagreement-store.ts says why there).
 */
import { Hono } from "hono";
import { bearerAuth } from "../http/auth";
import { ApiError } from "../http/errors";
import { NO_STORE } from "../http/headers";
import type { EdgeEnv } from "../settings";
import { receiptStub } from "../receipts/rpc";
import { decodeDisagreementCursor, MAX_DISAGREEMENT_PAGE } from "./disagreement-store";

export const DEFAULT_DISAGREEMENT_PAGE = 50;

export function policyRoutes() {
  return new Hono<{ Bindings: EdgeEnv }>().get("/policy/disagreements", bearerAuth(), async (c) => {
    const query = disagreementQuery(c.req.query());
    return c.json(await receiptStub(c.env).disagreements(query), 200, NO_STORE);
  });
}

function disagreementQuery(raw: Record<string, string>): { cursor?: string; limit: number } {
  const issues: Array<{ path: string; message: string }> = [];
  const query: { cursor?: string; limit: number } = { limit: DEFAULT_DISAGREEMENT_PAGE };
  if (raw.limit !== undefined) {
    const limit = /^[0-9]{1,3}$/.test(raw.limit) ? Number(raw.limit) : Number.NaN;
    if (!(limit >= 1 && limit <= MAX_DISAGREEMENT_PAGE)) {
      issues.push({
        path: "limit",
        message: `must be a whole number from 1 to ${MAX_DISAGREEMENT_PAGE}`,
      });
    } else {
      query.limit = limit;
    }
  }
  if (raw.cursor !== undefined) {
    if (decodeDisagreementCursor(raw.cursor) === undefined) {
      issues.push({ path: "cursor", message: "is not a cursor this service gave out" });
    } else {
      query.cursor = raw.cursor;
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
