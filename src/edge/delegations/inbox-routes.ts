/**
 * `GET|POST /inbox/delegations` (issue 42): delegation for a member signed in to the inbox
 * (its session cookie is scoped to `/inbox`, so the page cannot use the JSON API). GET
 * renders ./inbox-page.ts; POST (CSRF token, same-site) creates a delegation from the member
 * (`to`, `until` as UTC, optional `groups`) or ends one they gave or hold (`end=<id>`), with
 * the API's checks (./create.ts), and renders the page again with what happened.
 */
import { Hono, type Context } from "hono";
import { crossSitePage } from "../browser/cross-site-page";
import { sameSiteWrites } from "../browser/writes";
import { type EdgeEnv, settings } from "../settings";
import type { ApproverGroupsInit } from "../approvals/groups";
import { pageHeaders } from "../pages/layout";
import { ApiError } from "../http/errors";
import { readRawBody } from "../http/body";
import { checkCsrf, csrfToken } from "../inbox/session";
import { type InboxVisitor, inboxSignedIn, signInPage } from "../inbox/signed-in";
import { MAX_FORM_BYTES } from "../inbox/routes";
import { newDelegation } from "./create";
import { renderDelegationsPage } from "./inbox-page";
import { delegationStub } from "./rpc";

type Ctx = Context<{ Bindings: EdgeEnv }>;
type Notice = { kind: "ok" | "error"; text: string };

export function inboxDelegationRoutes(options: { approverGroups?: ApproverGroupsInit }) {
  const render = async (
    c: Ctx,
    who: InboxVisitor,
    { notice, status = 200 }: { notice?: Notice; status?: 200 | 400 | 403 | 404 } = {},
  ) => {
    const directory = settings(c.env).approvers(options.approverGroups);
    const now = Date.now();
    const html = renderDelegationsPage({
      member: who.member,
      groups: directory.groupsOfMember(who.member),
      delegations: await delegationStub(c.env).listDelegations({ now, member: who.member }),
      csrf: await csrfToken(c, who.identity),
      ...(notice ? { notice } : {}),
      now,
    });
    return c.html(html, status, pageHeaders());
  };
  return new Hono<{ Bindings: EdgeEnv }>()
    .use(
      "/inbox/delegations",
      sameSiteWrites((c) => c.html(crossSitePage(), 403, pageHeaders())),
    )
    .get("/inbox/delegations", async (c) => {
      const who = await inboxSignedIn(c, options.approverGroups);
      return who ? render(c, who) : c.html(signInPage(), 401, pageHeaders());
    })
    .post("/inbox/delegations", async (c) => {
      const who = await inboxSignedIn(c, options.approverGroups);
      if (!who) {
        return c.html(signInPage(), 401, pageHeaders());
      }
      const form = new URLSearchParams(await readRawBody(c, MAX_FORM_BYTES));
      if (!(await checkCsrf(c, who.identity, form.get("csrf") ?? ""))) {
        return render(c, who, {
          notice: { kind: "error", text: "This form expired: try again." },
          status: 403,
        });
      }
      const end = form.get("end");
      if (end) {
        const stub = delegationStub(c.env);
        const found = await stub.getDelegation(end);
        if (!found || (found.from !== who.member && found.to !== who.member)) {
          return render(c, who, {
            notice: { kind: "error", text: "No such delegation of yours." },
            status: 404,
          });
        }
        await stub.endDelegation(end, Date.now());
        const text = `Ended: ${found.from} → ${found.to}.`;
        return render(c, who, { notice: { kind: "ok", text } });
      }
      const until = form.get("until") ?? "";
      try {
        const delegation = newDelegation(settings(c.env).approvers(options.approverGroups), {
          body: {
            from: who.member,
            to: form.get("to") ?? "",
            // A datetime-local field has no zone: the page says it is UTC.
            until: /Z|[+-]\d\d:\d\d$/.test(until) ? until : `${until}Z`,
            groups: form.getAll("groups"),
          },
          caller: who.member,
          now: Date.now(),
        });
        await delegationStub(c.env).addDelegation(delegation);
        const text = `${delegation.to} decides for you until ${delegation.until}.`;
        return render(c, who, { notice: { kind: "ok", text } });
      } catch (error) {
        if (error instanceof ApiError && (error.status === 400 || error.status === 403)) {
          const text = `Not delegated: ${error.message}`;
          return render(c, who, { notice: { kind: "error", text }, status: error.status });
        }
        throw error;
      }
    });
}
