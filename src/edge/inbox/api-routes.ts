import { Hono } from "hono";
import type { EdgeEnv } from "../settings";
import { bearerAuth } from "../http/auth";
import { ApiError } from "../http/errors";
import { issuesOf } from "../http/schemas";
import { ApprovalsQuerySchema, ApproverLinkCreateSchema } from "./schemas";
import { zValidator } from "@hono/zod-validator";
import { invalidBody, limitBody, strictJson } from "../http/body";
import { publicBase } from "../approvals/links";
import { approverLink } from "./session";
import type { ApproverGroupsInit } from "../approvals/groups";
import { DEFAULT_GROUP } from "./item";
import { cursorFits, decodeCursor, listingFingerprint, type InboxListQuery } from "./find/listing";
import { NO_STORE } from "../http/headers";
import { inboxGroups, inboxMember } from "./groups";
import { inboxStub, type InboxCounts, type InboxPage } from "./rpc";
import { filtersOf } from "./find/filter-query";

/**
 * `GET /v1/approvals` (Bearer): one group's inbox, page by page, read from its InboxObject
 * only. `POST /v1/approvers/links` (Bearer): a sign-in link to `/inbox` for one approver.
 */
export function approvalsRoutes(options: { approverGroups?: ApproverGroupsInit } = {}) {
  return new Hono<{ Bindings: EdgeEnv }>()
    .post(
      "/approvers/links",
      bearerAuth(),
      limitBody(4096),
      strictJson(),
      zValidator("json", ApproverLinkCreateSchema, invalidBody),
      async (c) => {
        const body = c.req.valid("json");
        const { member, groups } = inboxMember(c.env, body.approver, options.approverGroups);
        // A sign-in is for approvers: someone in no group (or a look-alike of a member) gets none.
        if (!groups.some((g) => g !== DEFAULT_GROUP)) {
          throw new ApiError(
            403,
            "not_an_approver",
            `${JSON.stringify(body.approver)} is not a member of any approver group`,
          );
        }
        return c.json(await approverLink(c, publicBase(c), member), 201, NO_STORE);
      },
    )
    .get("/approvals", bearerAuth(), async (c) => {
      const parsed = ApprovalsQuerySchema.safeParse(c.req.query());
      if (!parsed.success) {
        throw new ApiError(400, "invalid_query", {
          message: "query does not match the schema",
          issues: issuesOf(parsed.error),
        });
      }
      const query = parsed.data;
      const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      if (query.cursor !== undefined && !cursor) {
        throw new ApiError(400, "invalid_query", {
          message: "cursor is not one this API returned",
          issues: [{ path: "cursor", message: "invalid cursor" }],
        });
      }
      if (!inboxGroups(c.env, options.approverGroups).has(query.group)) {
        throw new ApiError(404, "group_not_found", {
          message: `no approver group ${JSON.stringify(query.group)}`,
          issues: [{ path: "group", message: "unknown group" }],
        });
      }
      const listing: InboxListQuery = {
        status: query.status,
        limit: query.limit,
        ...filtersOf(query),
      };
      if (cursor && !cursorFits(cursor, query.group, listing)) {
        throw new ApiError(400, "invalid_query", {
          message:
            "cursor belongs to another listing (group, status, filters or sort differ): start again without it",
          issues: [{ path: "cursor", message: "cursor of a different listing" }],
        });
      }
      const inbox = inboxStub(c.env, query.group);
      const [page, counts]: [InboxPage, InboxCounts] = await Promise.all([
        inbox.list({
          ...listing,
          ...(cursor ? { cursor } : {}),
          fingerprint: listingFingerprint(query.group, listing),
        }),
        inbox.counts(listing),
      ]);
      const { rowsRead: countRowsRead, ...totals } = counts;
      return c.json(
        {
          items: page.items,
          nextCursor: page.nextCursor,
          counts: { group: query.group, ...totals },
        },
        200,
        {
          // What the page cost the inbox's SQLite: its own rows, never the whole inbox (see bench/).
          "x-rows-read": String(page.rowsRead),
          // The counts on top: two rows without filters; the matching rows' index range with them.
          "x-count-rows-read": String(countRowsRead),
        },
      );
    });
}
