/** The approval email's confirmation page in /openapi.json (document.ts spreads it in). */
import { html } from "./parts";

/** Open route: the page checks its own signed token (a personal approver link). */
const open: never[] = [];

const token = { name: "token", in: "path", required: true, schema: { type: "string" } } as const;

const PAGE_RESPONSES = {
  400: html("Invalid link (altered, or signed with another key), or no decision chosen"),
  404: html("Unknown run or request"),
  409: html(
    "Already decided, the run has nothing left to decide, or this link was already used (a link decides once)",
  ),
  410: html("The link has expired (with the request)"),
};

export const EMAIL_PAGE_PATHS = {
  "/email/{token}": {
    get: {
      operationId: "showEmailConfirmation",
      summary:
        "Confirmation page of an approval email's link (renders only: a prefetch decides nothing)",
      security: open,
      parameters: [
        token,
        {
          name: "decision",
          in: "query",
          required: false,
          description: "Which link of the email was opened; it only says so on the page",
          schema: { type: "string", enum: ["approve", "decline"] },
        },
      ],
      responses: {
        200: html("The request with Approve / Decline and the form's CSRF token"),
        ...PAGE_RESPONSES,
      },
    },
    post: {
      operationId: "decideFromEmail",
      summary:
        "Decide from an approval email (form: decision=approve|decline, reason, argsHash, csrf), channel email",
      security: open,
      parameters: [token],
      requestBody: {
        required: true,
        content: {
          "application/x-www-form-urlencoded": { schema: { type: "object" } },
          "multipart/form-data": { schema: { type: "object" } },
        },
      },
      responses: {
        200: html("Decided, or the vote recorded while more approvals are needed"),
        ...PAGE_RESPONSES,
        403: html(
          "Not recorded: the form's CSRF token is missing or not this link's, or the link's approver may not decide it (not_an_approver, own_request)",
        ),
        413: html("The form is over 16 KiB (reading stops there); nothing decided"),
      },
    },
  },
};
