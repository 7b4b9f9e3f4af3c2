/**
 * `GET /inbox/dashboard`: the picture of the signed-in member's groups (dashboard/page.ts),
 * one `stats` call per group's `InboxObject`, nothing read from threads. Signed-in members
 * only, like `/inbox`; no query parameters (any is a 400 page, so a typo is not silently
 * ignored).
 */
import { Hono } from "hono";
import type { EdgeEnv } from "../../settings";
import type { ApproverGroupsInit } from "../../approvals/groups";
import { pageHeaders } from "../../pages/layout";
import { renderMessagePage } from "../../approvals/page";
import { inboxSignedIn, signInPage } from "../signed-in";
import { inboxStub } from "../rpc";
import { renderDashboard } from "./page";

export function dashboardRoutes(options: { approverGroups?: ApproverGroupsInit }) {
  return new Hono<{ Bindings: EdgeEnv }>().get("/inbox/dashboard", async (c) => {
    const who = await inboxSignedIn(c, options.approverGroups);
    if (!who) {
      return c.html(signInPage(), 401, pageHeaders());
    }
    const unknown = Object.keys(c.req.query());
    if (unknown.length > 0) {
      const html = renderMessagePage(
        "Invalid query",
        `The dashboard takes no parameters (got ${unknown.join(", ")}).`,
        "error",
      );
      return c.html(html, 400, pageHeaders());
    }
    const now = Date.now();
    const groups = await Promise.all(
      who.groups.map(async (group) => ({ group, stats: await inboxStub(c.env, group).stats(now) })),
    );
    return c.html(renderDashboard({ member: who.member, groups, now }), 200, pageHeaders());
  });
}
