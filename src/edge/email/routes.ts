/**
 * The pages an approval email's links open (email/links.ts): `GET /email/:token` shows the
 * request and a confirmation form and decides nothing, so a mail scanner that prefetches the
 * links changes nothing; `POST /email/:token` (with the form's CSRF token) decides, through
 * the ledger like every channel, as channel `email` and as the member the link names. A link
 * decides once: its second use is refused.
 */
import { type Context, Hono } from "hono";
import {
  ApproverLinkError,
  verifyApproverToken,
  type ApproverClaims,
} from "../approvals/approver-link";
import { renderApprovalPage, renderMessagePage } from "../approvals/page";
import { describedPageView, recordedPage } from "../approvals/link-pages";
import { MAX_FORM_BYTES } from "../approvals/routes";
import { limitBody } from "../http/body";
import { MAX_REASON_CHARS } from "../http/schemas";
import { decisionStatus } from "../http/status";
import { threadStub } from "../http/threads";
import { checkCsrf, csrfToken } from "../inbox/session";
import { pageHeaders } from "../pages/layout";
import { fieldsFromForm } from "../pages/schema-fields";
import type { DecisionOutcome, RequestDescription } from "../protocol";
import { type EdgeEnv, readConfig } from "../settings";
import { emailLinkId } from "./links";

type Ctx = Context<{ Bindings: EdgeEnv }>;
type Status = 200 | 400 | 403 | 404 | 409 | 410 | 413 | 500;

const page = (c: Ctx, html: string, status: Status = 200) => c.html(html, status, pageHeaders());

/** The ledger's duplicate: this link (or the same vote from another channel) was recorded before. */
const USED =
  "Nothing new was recorded: this link was already used, or your vote was recorded before. A link from an approval email decides once.";

/** The link's claims and the open request it names, or the page that says why not. */
async function opened(
  c: Ctx,
): Promise<
  Response | { claims: ApproverClaims; description: Extract<RequestDescription, { state: "open" }> }
> {
  let claims: ApproverClaims;
  try {
    claims = await verifyApproverToken(
      readConfig(c.env).webhookSecrets,
      c.req.param("token") ?? "",
    );
  } catch (error) {
    if (!(error instanceof ApproverLinkError)) {
      throw error;
    }
    return error.code === "expired"
      ? page(c, renderMessagePage("Link expired", "This approval link has expired.", "error"), 410)
      : page(
          c,
          renderMessagePage("Invalid link", "This approval link is not valid.", "error"),
          400,
        );
  }
  const description = await threadStub(c.env, claims.threadId).describeRequest(
    claims.runId,
    claims.requestId,
  );
  switch (description.state) {
    case "open":
      return { claims, description };
    case "decided": {
      const d = description.decision;
      const text = `This request was already decided: ${d.decision} (via ${d.channel}${d.decidedBy ? `, by ${d.decidedBy}` : ""}).`;
      return page(c, renderMessagePage("Already decided", text), 409);
    }
    case "closed":
      return page(
        c,
        renderMessagePage("No longer pending", `This run is ${description.status}.`, "error"),
        409,
      );
    default:
      return page(
        c,
        renderMessagePage("Not found", "This request does not exist (any more).", "error"),
        404,
      );
  }
}

/** The CSRF token of a link's form: bound to the link, so it is good for that link only. */
const csrfSubject = async (token: string) => `email-link:${await emailLinkId(token)}`;

export function emailRoutes() {
  return new Hono<{ Bindings: EdgeEnv }>()
    .get("/email/:token", async (c) => {
      const found = await opened(c);
      if (found instanceof Response) {
        return found;
      }
      const { claims, description } = found;
      const chosen = c.req.query("decision");
      return page(
        c,
        renderApprovalPage({
          ...describedPageView(description, {
            runId: claims.runId,
            actionPath: new URL(c.req.url).pathname,
          }),
          signedInAs:
            chosen === "approve" || chosen === "decline"
              ? `${claims.approver} (confirm to ${chosen})`
              : claims.approver,
          hidden: {
            csrf: await csrfToken(c, await csrfSubject(c.req.param("token"))),
          },
        }),
      );
    })
    .post(
      "/email/:token",
      limitBody(MAX_FORM_BYTES, (c) =>
        page(c, renderMessagePage("Form too large", "Nothing was decided.", "error"), 413),
      ),
      async (c) => {
        const found = await opened(c);
        if (found instanceof Response) {
          return found;
        }
        const { claims, description } = found;
        const token = c.req.param("token");
        const form = await c.req.parseBody();
        const text = (name: string) => (typeof form[name] === "string" ? form[name] : undefined);
        if (!(await checkCsrf(c, await csrfSubject(token), text("csrf") ?? ""))) {
          return page(
            c,
            renderMessagePage(
              "Form expired",
              "This form is not valid any more (or it did not come from the confirmation page). Open the link from the email again.",
              "error",
            ),
            403,
          );
        }
        const decision =
          form.decision === "approve" || form.decision === "decline" ? form.decision : undefined;
        if (!decision) {
          return page(
            c,
            renderMessagePage("Choose a decision", "Press Approve or Decline.", "error"),
            400,
          );
        }
        const reason = text("reason")?.trim().slice(0, MAX_REASON_CHARS);
        const version = text("argsHash");
        const data =
          description.request.kind === "input"
            ? fieldsFromForm(description.request.data?.schema, text)
            : undefined;
        const outcome: DecisionOutcome = await threadStub(c.env, claims.threadId).decide({
          runId: claims.runId,
          requestId: claims.requestId,
          decision,
          ...(data ? { data } : {}),
          ...(reason && decision === "decline" ? { reason } : {}),
          ...(decision === "approve" && version ? { argsHash: version } : {}),
          channel: "email",
          decidedBy: claims.approver,
          // The link's id: the ledger counts it once, so the link's second use is a replay.
          webhookId: await emailLinkId(token),
        });
        return outcomePage(c, { outcome, decision });
      },
    );
}

function outcomePage(
  c: Ctx,
  { outcome, decision }: { outcome: DecisionOutcome; decision: "approve" | "decline" },
): Response {
  if (outcome.ok && outcome.duplicate) {
    return page(c, renderMessagePage("Link already used", USED, "error"), 409);
  }
  if (outcome.ok) {
    return page(c, recordedPage(outcome, decision));
  }
  const details = outcome.issues?.length ? ` ${outcome.issues.join("; ")}` : "";
  return page(
    c,
    renderMessagePage("Decision not recorded", `${outcome.message}.${details}`, "error"),
    decisionStatus(outcome) as Status,
  );
}
