import { Hono, type Context } from "hono";
import { crossSitePage } from "../browser/cross-site-page";
import { sameSiteWrites } from "../browser/writes";
import { decisionStatus } from "../http/status";
import type { EdgeEnv } from "../settings";
import type { ApproverGroupsInit } from "../approvals/groups";
import { renderMessagePage } from "../approvals/page";
import { pageHeaders } from "../pages/layout";
import { ApiError } from "../http/errors";
import { readRawBody } from "../http/body";
import { threadOf, threadStub } from "../http/threads";
import { inboxStub } from "./rpc";
import type { InboxItem } from "./item";
import { itemEditedArgs, renderInboxPage, type InboxPageView } from "./page";
import { checkCsrf, csrfToken, readApproverLink, startSession } from "./session";
import type { DecisionOutcome } from "../protocol";
import { MAX_REASON_CHARS } from "../http/schemas";
import { NO_STORE_NO_REFERRER } from "../http/headers";
import { type InboxVisitor, inboxSignedIn, signInPage } from "./signed-in";
import { fieldsFromForm } from "../pages/schema-fields";
import { dashboardRoutes } from "./dashboard/routes";
import { openOrder, pageFilters, type PageFilters } from "./find/page-filters";

type Ctx = Context<{ Bindings: EdgeEnv }>;

/** Page forms are small: a decision, a reason, the CSRF token. */
export const MAX_FORM_BYTES = 16 * 1024;
const OPEN_LIMIT = 100;
const DECIDED_LIMIT = 20;

const page = (c: Ctx, html: string, status: 200 | 400 | 401 | 403 | 404 | 409 | 413 | 500 = 200) =>
  c.html(html, status, pageHeaders());

/**
 * `/inbox`: the signed-in approver's open requests across threads, and what was decided.
 * GET renders; only POST decides, with a CSRF token bound to the approver.
 */
export function inboxRoutes(options: { approverGroups?: ApproverGroupsInit }) {
  const signedIn = (c: Ctx) => inboxSignedIn(c, options.approverGroups);

  const render = async (
    c: Ctx,
    who: InboxVisitor,
    {
      notice,
      status = 200,
      filters = {},
    }: {
      notice?: InboxPageView["notice"];
      status?: 200 | 400 | 403 | 404 | 409 | 500;
      filters?: PageFilters;
    } = {},
  ) => {
    const { sort, ...only } = filters;
    const pages = await Promise.all(
      who.groups.map(async (group) => {
        const inbox = inboxStub(c.env, group);
        const [open, decided, counts] = await Promise.all([
          inbox.list({ status: "open", limit: OPEN_LIMIT, ...filters }),
          inbox.list({ status: "decided", limit: DECIDED_LIMIT, ...only }),
          inbox.counts({ status: "open", limit: OPEN_LIMIT, ...only }),
        ]);
        const { rowsRead: _, ...totals } = counts;
        return { open: open.items, decided: decided.items, counts: { group, ...totals } };
      }),
    );
    const open = unique(pages.flatMap((p) => p.open)).sort(openOrder(sort));
    const decided = unique(pages.flatMap((p) => p.decided))
      .sort((a, b) => decidedAt(b) - decidedAt(a))
      .slice(0, DECIDED_LIMIT);
    const html = renderInboxPage({
      member: who.member,
      groups: who.groups,
      open,
      decided,
      csrf: await csrfToken(c, who.identity),
      ...(notice ? { notice } : {}),
      now: Date.now(),
      find: { filters, counts: pages.map((p) => p.counts) },
    });
    return page(c, html, status);
  };

  return new Hono<{ Bindings: EdgeEnv }>()
    .route("/", dashboardRoutes(options))
    .get("/inbox/signin/:token", async (c) => {
      const approver = await readApproverLink(c, c.req.param("token"));
      if (!approver) {
        const html = renderMessagePage(
          "Invalid sign-in link",
          "This sign-in link is not valid or has expired. Ask for a new one.",
          "error",
        );
        return page(c, html, 400);
      }
      await startSession(c, approver);
      // The sign-in URL is a credential: not cached, not sent on as the inbox's referrer.
      for (const [name, value] of Object.entries(NO_STORE_NO_REFERRER)) {
        c.header(name, value);
      }
      return c.redirect("/inbox", 303);
    })
    .get("/inbox", async (c) => {
      const who = await signedIn(c);
      if (!who) {
        return page(c, signInPage(), 401);
      }
      const filters = pageFilters(c.req.query());
      if (!filters.ok) {
        const html = renderMessagePage("Invalid filter", filters.message, "error");
        return page(c, html, 400);
      }
      return render(c, who, { filters: filters.value });
    })
    .use(
      "/inbox/decide",
      sameSiteWrites((c) => page(c, crossSitePage(), 403)),
    )
    .post("/inbox/decide", async (c) => {
      const who = await signedIn(c);
      if (!who) {
        return page(c, signInPage(), 401);
      }
      let raw: string;
      try {
        raw = await readRawBody(c, MAX_FORM_BYTES);
      } catch (error) {
        if (error instanceof ApiError && error.status === 413) {
          const html = renderMessagePage("Form too large", "The form is over 16 KiB.", "error");
          return page(c, html, 413);
        }
        throw error;
      }
      const form = new URLSearchParams(raw);
      if (!(await checkCsrf(c, who.identity, form.get("csrf") ?? ""))) {
        const html = renderMessagePage(
          "Form expired",
          "This form is no longer valid (it was opened in another session or too long ago). Reload the inbox and try again.",
          "error",
        );
        return page(c, html, 403);
      }
      const decision = form.get("decision");
      const runId = form.get("runId") ?? "";
      const requestId = form.get("requestId") ?? "";
      const threadId = threadOf(runId);
      if (
        (decision !== "approve" && decision !== "decline" && decision !== "revoke") ||
        !threadId ||
        !requestId
      ) {
        return render(c, who, {
          notice: { kind: "error", text: "Choose Approve or Decline." },
          status: 400,
        });
      }
      // Only what the approver's inboxes show may be decided here.
      const item = await findItem(c, who.groups, { runId, requestId });
      if (!item) {
        return render(c, who, {
          notice: { kind: "error", text: "That request is not in your inbox." },
          status: 404,
        });
      }
      const reason = form.get("reason")?.trim().slice(0, MAX_REASON_CHARS) || undefined;
      const args = decision === "approve" ? itemEditedArgs(item, form) : undefined;
      const version = form.get("argsHash") ?? "";
      const data =
        decision === "approve" && item.kind === "input"
          ? fieldsFromForm(item.schema, (name) => form.get(name) ?? undefined)
          : undefined;
      const outcome: DecisionOutcome = await threadStub(c.env, threadId).decide({
        runId,
        requestId,
        decision,
        ...(decision === "decline" && reason ? { reason } : {}),
        ...(args ? { args } : {}),
        ...(data ? { data } : {}),
        ...(decision === "approve" && version ? { argsHash: version } : {}),
        channel: "inbox",
        decidedBy: who.member,
        ...(who.delegations ? { delegations: who.delegations } : {}), // issue 42
      });
      if (!outcome.ok) {
        const status = decisionStatus(outcome) as 400 | 403 | 404 | 409 | 500;
        return render(c, who, {
          notice: { kind: "error", text: `Not recorded: ${outcome.message}` },
          status,
        });
      }
      if (!outcome.decision && outcome.needed !== undefined) {
        const text = `Vote recorded (${outcome.votes ?? 0} of ${outcome.needed} approvals): ${item.prompt}`;
        return render(c, who, { notice: { kind: "ok", text } });
      }
      const word =
        decision === "approve"
          ? args
            ? "Approved with edits"
            : "Approved"
          : decision === "revoke"
            ? "Undone (the approval is revoked)"
            : "Declined";
      return render(c, who, { notice: { kind: "ok", text: `${word}: ${item.prompt}` } });
    });
}

async function findItem(
  c: Ctx,
  groups: string[],
  { runId, requestId }: { runId: string; requestId: string },
): Promise<InboxItem | undefined> {
  for (const group of groups) {
    const item = await inboxStub(c.env, group).get(runId, requestId);
    if (item) {
      return item;
    }
  }
  return undefined;
}

function unique(items: InboxItem[]): InboxItem[] {
  const seen = new Map<string, InboxItem>();
  for (const item of items) {
    const key = `${item.runId} ${item.requestId}`;
    const known = seen.get(key);
    if (!known || known.version < item.version) {
      seen.set(key, item);
    }
  }
  return [...seen.values()];
}

function decidedAt(item: InboxItem): number {
  return Date.parse(item.decision?.decidedAt ?? item.updatedAt);
}
