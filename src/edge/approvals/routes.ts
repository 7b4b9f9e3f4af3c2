import { crossSitePage } from "../browser/cross-site-page";
import { sameSiteWrites } from "../browser/writes";
import { Hono, type Context } from "hono";
import { decisionStatus } from "../http/status";
import { readConfig, type EdgeEnv, settings } from "../settings";
import {
  ApprovalTokenError,
  digestArgs,
  verifyApprovalToken,
  type ApprovalClaims,
} from "./approval-token";
import { renderApprovalPage, renderMessagePage } from "./page";
import { describedPageView, recordedPage } from "./link-pages";
import { pageHeaders } from "../pages/layout";
import { threadStub } from "../http/threads";
import { approvalSubject } from "./links";
import type { DecisionOutcome, RequestDescription } from "../protocol";
import { limitBody } from "../http/body";
import {
  ApproverLinkError,
  isApproverToken,
  verifyApproverToken,
  type ApproverClaims,
} from "./approver-link";
import { accessIdentity } from "./access";
import { rulesOf } from "../../core/approvers/rules";
import { editableKeys, editedArgs } from "./arg-edits";
import { MAX_REASON_CHARS } from "../http/schemas";
import { fieldsFromForm } from "../pages/schema-fields";

/** Who an anonymous approval link decides as (it names no person). */
export const ANONYMOUS_LINK = "anonymous link";

type Ctx = Context<{ Bindings: EdgeEnv }>;

const PERSONAL_LINK_NEEDED =
  "This request has approver rules, so this anonymous link can only show it. To decide, open it through Cloudflare Access, or ask the run's owner for a personal link (POST /v1/runs/:runId/links with your name).";

/** Two buttons, a reason and a few input fields fit many times over; 20,000 fields do not. */
export const MAX_FORM_BYTES = 16 * 1024;

const page = (
  c: Ctx,
  html: string,
  status: 200 | 400 | 401 | 403 | 404 | 409 | 410 | 413 | 500 = 200,
) => c.html(html, status, pageHeaders());

const TOKEN_PROBLEMS: Record<ApprovalTokenError["code"], [string, string]> = {
  expired: ["Link expired", "This approval link has expired. Ask for a new one."],
  tampered: [
    "Invalid link",
    "This approval link is not valid (it was altered or signed with another key).",
  ],
  malformed: ["Invalid link", "This approval link is not valid."],
};

/** What a link names: the run and request, and for a personal link the approver. */
interface Opened {
  claims: { threadId: string; runId: string; requestId: string };
  description: Extract<RequestDescription, { state: "open" }>;
  /** Who is deciding: Cloudflare Access, else the personal link's approver; none: anonymous. */
  identity?: string;
}

/**
 * Verifies the token (an anonymous approval link or a personal `p.` link) and loads what
 * it points at; any problem becomes a clear page, never a stack trace.
 */
async function open(c: Ctx): Promise<Response | Opened> {
  const token = c.req.param("token") ?? "";
  const secrets = readConfig(c.env).webhookSecrets;
  let claims: ApprovalClaims | ApproverClaims | undefined;
  let problem: { code: ApprovalTokenError["code"] } | undefined;
  try {
    claims = isApproverToken(token)
      ? await verifyApproverToken(secrets, token)
      : await verifyApprovalToken(secrets, token);
  } catch (error) {
    if (!(error instanceof ApprovalTokenError) && !(error instanceof ApproverLinkError)) {
      throw error;
    }
    problem = error;
  }
  if (!claims) {
    const [title, message] = TOKEN_PROBLEMS[problem?.code ?? "malformed"];
    return page(
      c,
      renderMessagePage(title, message, "error"),
      problem?.code === "expired" ? 410 : 400,
    );
  }
  const fromAccess = await accessIdentity(settings(c.env).access, c.req.raw.headers);
  const identity = fromAccess ?? ("approver" in claims ? claims.approver : undefined);
  const description: RequestDescription = await threadStub(c.env, claims.threadId).describeRequest(
    claims.runId,
    claims.requestId,
  );
  switch (description.state) {
    case "open":
      // An anonymous link is bound to the arguments it was sent with; a personal one shows
      // the arguments as they stand (an approver's edit changes them).
      if (
        "argsDigest" in claims &&
        (await digestArgs(approvalSubject(description.request))) !== claims.argsDigest
      ) {
        return page(
          c,
          renderMessagePage(
            "Invalid link",
            "This link does not match the request it names.",
            "error",
          ),
          400,
        );
      }
      return { claims, description, ...(identity ? { identity } : {}) };
    case "decided": {
      const d = description.decision;
      return page(
        c,
        renderMessagePage(
          "Already decided",
          `This request was already decided: ${d.decision} (via ${d.channel}${d.decidedBy ? `, by ${d.decidedBy}` : ""}).`,
        ),
        409,
      );
    }
    case "closed":
      return page(
        c,
        renderMessagePage(
          "No longer pending",
          `This run is ${description.status}; there is nothing left to decide.`,
          "error",
        ),
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

/** The approval page: GET only renders (link scanners must not decide); POST decides. */
export function approvalRoutes() {
  return new Hono<{ Bindings: EdgeEnv }>()
    .get("/approve/:token", async (c) => {
      const opened = await open(c);
      if (opened instanceof Response) {
        return opened;
      }
      const { claims, description, identity } = opened;
      const { request } = description;
      const args = description.args ?? approvalSubject(request);
      const editable = identity ? editableKeys(args, rulesOf(request)?.editable) : [];
      return page(
        c,
        renderApprovalPage({
          ...describedPageView(description, {
            runId: claims.runId,
            actionPath: new URL(c.req.url).pathname,
          }),
          ...(editable.length > 0 ? { editableKeys: editable } : {}),
          ...(identity ? { signedInAs: identity } : {}),
          ...(rulesOf(request) && !identity ? { readOnly: PERSONAL_LINK_NEEDED } : {}),
        }),
      );
    })
    .post(
      "/approve/:token",
      sameSiteWrites((c) => page(c, crossSitePage(), 403)),
      limitBody(MAX_FORM_BYTES, (c) =>
        page(
          c,
          renderMessagePage(
            "Form too large",
            `The form is larger than ${MAX_FORM_BYTES / 1024} KiB; nothing was decided.`,
            "error",
          ),
          413,
        ),
      ),
      async (c) => {
        const opened = await open(c);
        if (opened instanceof Response) {
          return opened;
        }
        const { claims, description, identity } = opened;
        // Anonymous links decide only requests without approver rules.
        if (rulesOf(description.request) && !identity) {
          return page(
            c,
            renderMessagePage("Not recorded: who is deciding?", PERSONAL_LINK_NEEDED, "error"),
            403,
          );
        }
        const form = await c.req.parseBody();
        const decision =
          form.decision === "approve"
            ? "approve"
            : form.decision === "decline"
              ? "decline"
              : undefined;
        if (!decision) {
          return page(
            c,
            renderMessagePage("Choose a decision", "Press Approve or Decline.", "error"),
            400,
          );
        }
        const reason =
          typeof form.reason === "string" && form.reason.trim()
            ? form.reason.trim().slice(0, MAX_REASON_CHARS)
            : undefined;
        const text = (name: string) => (typeof form[name] === "string" ? form[name] : undefined);
        const version = text("argsHash");
        const args =
          decision === "approve" && identity
            ? editedArgs(
                description.args,
                editableKeys(description.args, rulesOf(description.request)?.editable),
                text,
              )
            : undefined;
        const data =
          description.request.kind === "input"
            ? fieldsFromForm(description.request.data?.schema, (name) => {
                const value = form[name];
                return typeof value === "string" ? value : undefined;
              })
            : undefined;
        const outcome: DecisionOutcome = await threadStub(c.env, claims.threadId).decide({
          runId: claims.runId,
          requestId: claims.requestId,
          decision,
          ...(data ? { data } : {}),
          ...(reason && decision === "decline" ? { reason } : {}),
          ...(args ? { args } : {}),
          ...(decision === "approve" && version ? { argsHash: version } : {}),
          channel: "page",
          decidedBy: identity ?? ANONYMOUS_LINK,
        });
        if (outcome.ok) {
          return page(c, recordedPage(outcome, decision));
        }
        if (outcome.code === "args_changed" && outcome.current) {
          return page(
            c,
            renderMessagePage(
              "The arguments changed",
              `Nothing was recorded: since this page was loaded the arguments became ${JSON.stringify(outcome.current.args)}. Open the link again to review and approve them.`,
              "error",
            ),
            409,
          );
        }
        const details = outcome.issues?.length ? ` ${outcome.issues.join("; ")}` : "";
        return page(
          c,
          renderMessagePage("Decision not recorded", `${outcome.message}.${details}`, "error"),
          decisionStatus(outcome) as 400 | 403 | 404 | 409 | 500,
        );
      },
    );
}
