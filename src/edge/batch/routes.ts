/**
 * `POST /v1/approvals/batch` (issue 42 item 1): several decisions in one call, each through its
 * thread's ledger (decide-batch.ts). Who decides: the API token's caller, named by
 * `x-toolnexus-user` (channel `webhook`: the token holder is a trusted backend, as the signed
 * webhook's is), or a browser behind Cloudflare Access (channel `inbox`), whose writes follow
 * the browser rules (src/edge/browser/writes.ts: same-site `Origin`, JSON bodies only). The
 * inbox's session cookie is scoped to `/inbox`, so the inbox page posts its batch form to
 * `/inbox/batch` (./inbox-routes.ts) instead.
 */
import { Hono } from "hono";
import { jsonWrites, sameSiteWrites } from "../browser/writes";
import { jsonDepth, limitBody, MAX_JSON_DEPTH, parseBody, readRawBody } from "../http/body";
import { ApiError } from "../http/errors";
import { protocolAuth, type ProtocolVars } from "../protocols/identity";
import { threadStub } from "../http/threads";
import { NO_STORE } from "../http/headers";
import type { ApproverGroupsInit } from "../approvals/groups";
import { decideBatch, MAX_BATCH_ITEMS } from "./decide-batch";
import { BatchSchema, MAX_BATCH_BYTES } from "./schemas";
import { withDelegations } from "../delegations/lookup";

export function batchRoutes(options: { approverGroups?: ApproverGroupsInit } = {}) {
  return new Hono<ProtocolVars>()
    .use("/approvals/batch", sameSiteWrites())
    .use("/approvals/batch", protocolAuth())
    .use("/approvals/batch", jsonWrites())
    .post("/approvals/batch", limitBody(MAX_BATCH_BYTES), async (c) => {
      const text = await readRawBody(c, MAX_BATCH_BYTES);
      if (text.trim() === "") {
        throw new ApiError(400, "invalid_json", "body is empty: expected { decisions: [...] }");
      }
      tooMany(text);
      const body = parseBody(BatchSchema, text);
      const user = c.var.caller.user;
      const results = await decideBatch(body.decisions, {
        decide: (threadId, input) => threadStub(c.env, threadId).decide(input),
        who: {
          ...(user === null ? {} : { decidedBy: user }),
          channel: c.var.caller.via === "access" ? "inbox" : "webhook",
          ...(await withDelegations(c.env, user ?? undefined, options.approverGroups)),
        },
      });
      return c.json({ results }, 200, NO_STORE);
    });
}

/** More items than a batch may hold is its own code, before the schema's item-by-item issues. */
function tooMany(text: string): void {
  if (jsonDepth(text) > MAX_JSON_DEPTH) {
    return; // parseBody answers it
  }
  let count = 0;
  try {
    const decisions = (JSON.parse(text) as { decisions?: unknown })?.decisions;
    count = Array.isArray(decisions) ? decisions.length : 0;
  } catch {
    return; // parseBody answers bad JSON
  }
  if (count > MAX_BATCH_ITEMS) {
    throw new ApiError(400, "too_many_decisions", {
      message: `a batch holds at most ${MAX_BATCH_ITEMS} decisions, got ${count}: send the rest in another batch`,
      issues: [{ path: "decisions", message: `at most ${MAX_BATCH_ITEMS} items` }],
    });
  }
}
