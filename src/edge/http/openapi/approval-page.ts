/** The approval page's part of /openapi.json (document.ts spreads it in). */
import { html } from "./parts";

/** Open routes say so: no credential (the page checks its own signed token). */
const open: never[] = [];

/** The approval page answers every problem with a page, never a stack trace. */
const PAGE_RESPONSES = {
  400: html("Invalid link (altered, or signed with another key), or an invalid form"),
  404: html("Unknown run or request"),
  409: html("Already decided, or the run has nothing left to decide"),
  410: html("The link has expired"),
};
export const APPROVAL_PAGE_PATHS = {
  "/approve/{token}": {
    get: {
      operationId: "showApprovalPage",
      summary: "Approval page (renders only)",
      security: open,
      parameters: [{ name: "token", in: "path", required: true, schema: { type: "string" } }],
      responses: { 200: html("The request with Approve / Decline"), ...PAGE_RESPONSES },
    },
    post: {
      operationId: "decideOnApprovalPage",
      summary:
        "Decide from the approval page (form: decision=approve|decline, reason, field:<name>)",
      security: open,
      parameters: [{ name: "token", in: "path", required: true, schema: { type: "string" } }],
      requestBody: {
        required: true,
        content: {
          "application/x-www-form-urlencoded": { schema: { type: "object" } },
          "multipart/form-data": { schema: { type: "object" } },
        },
      },
      responses: {
        200: html("Decided (or an identical repeat)"),
        ...PAGE_RESPONSES,
        403: html(
          "Not recorded: an anonymous link on a request with approver rules (a personal link or Access sign-in is needed), or this approver may not decide it (not_an_approver, own_request), or the form was posted from another site (an Origin that is neither this worker's nor in CORS_ORIGINS)",
        ),
        413: html("The form is over 16 KiB (reading stops there); nothing decided"),
      },
    },
  },
};
