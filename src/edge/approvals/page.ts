/**
 * HTML for approval links: pure string rendering, no scripts, no external assets.
 * Every value that reaches the page is escaped: prompts and arguments come from the
 * model and from tools, so they are attacker-controlled as far as the page is concerned.
 */

import { argEditFields, esc, layout, prettyJson, utcAndRelative } from "../pages/layout";
import { askedByOf } from "../agents/asked-by";
import { renderSchemaFields } from "../pages/schema-fields";

/** What the approval page shows for one pending request. */
export interface ApprovalPageView {
  prompt: string;
  kind: string;
  args: unknown;
  toolName?: string;
  runId: string;
  requestId: string;
  /** RFC 3339, shown as given. */
  expiresAt?: string;
  /** Where the decision form POSTs (the same `/approve/:token` path). */
  actionPath: string;
  /** `Request.data`; for `kind: "input"`, `data.schema` (flat JSON Schema) yields fields. */
  data?: Record<string, unknown>;
  /** The run's context: its agent, the user's input, who asked, its metadata. */
  agent?: string;
  input?: string;
  requestedBy?: string | null;
  metadata?: unknown;
  /** With approver rules: the votes so far and how many apply the request. */
  votes?: Array<{ decidedBy: string; decision: string; at: string; reset?: boolean }>;
  approvals?: number;
  needed?: number;
  /** Who is deciding (Access or a personal link); absent: an anonymous link. */
  signedInAs?: string;
  /** The version of `args`: the form carries it, so an approval of replaced arguments is refused. */
  argsHash?: string;
  /** Top-level keys of `args` the approver may change (personal pages with `editable` rules). */
  editableKeys?: string[];
  /** Extra hidden form fields (the email confirmation page's CSRF token). */
  hidden?: Record<string, string>;
  /** Set when this visitor may not decide here: why, and how to get a personal link. */
  readOnly?: string;
  /** The render time, for "in 14 minutes" (default: now). */
  now?: number;
}

/**
 * The approval page: prompt, tool, arguments, expiry, and ONE POST form whose two submit
 * buttons send `decision=approve|decline` (plus optional `reason` and `field:<name>` inputs).
 * GET renders this page only; deciding requires the POST, so link scanners can't decide.
 *
 * @example c.html(renderApprovalPage({ ...request, args, runId, requestId, actionPath: c.req.path }), 200, pageHeaders())
 */
export function renderApprovalPage(view: ApprovalPageView): string {
  const heading = view.kind === "input" ? "Input requested" : "Approval requested";
  const details = [
    view.toolName !== undefined ? row("Tool", `<code id="tool">${esc(view.toolName)}</code>`) : "",
    row("Kind", esc(view.kind)),
    row("Run", `<code>${esc(view.runId)}</code>`),
    row("Request", `<code>${esc(view.requestId)}</code>`),
    view.agent !== undefined ? row("Agent", `<code id="agent">${esc(view.agent)}</code>`) : "",
    askedByOf(view.data?.path)
      ? row("Asked by", `<span id="asked-by">${esc(askedByOf(view.data?.path) ?? "")}</span>`)
      : "",
    view.requestedBy
      ? row("Requested by", `<span id="requested-by">${esc(view.requestedBy)}</span>`)
      : "",
    view.expiresAt !== undefined
      ? row(
          "Expires",
          `<time id="expires" datetime="${esc(view.expiresAt)}">${esc(utcAndRelative(view.expiresAt, view.now ?? Date.now()))}</time>`,
        )
      : "",
  ].join("");
  const context = [
    view.input !== undefined
      ? `<h2>The user asked</h2>\n<blockquote id="input">${esc(view.input)}</blockquote>`
      : "",
    view.metadata !== undefined && view.metadata !== null
      ? `<h2>Run metadata</h2>\n<pre id="metadata">${esc(prettyJson(view.metadata))}</pre>`
      : "",
    view.needed !== undefined ? renderVotes(view) : "",
  ].join("\n");
  const who = view.signedInAs
    ? `<p id="signed-in">Deciding as <strong>${esc(view.signedInAs)}</strong></p>`
    : "";
  const form = view.readOnly
    ? `<p id="read-only" class="error">${esc(view.readOnly)}</p>`
    : `<form method="POST" action="${esc(view.actionPath)}">
${Object.entries(view.hidden ?? {})
  .map(([name, value]) => `<input type="hidden" name="${esc(name)}" value="${esc(value)}">\n`)
  .join(
    "",
  )}${view.argsHash ? `<input type="hidden" name="argsHash" value="${esc(view.argsHash)}">\n` : ""}${view.kind === "input" ? renderSchemaFields(view.data?.schema) : ""}${renderArgEdits(view)}<label for="reason">Reason <span class="hint">(optional)</span></label>
<textarea id="reason" name="reason" rows="3" maxlength="1000"></textarea>
<div class="actions">
<button type="submit" class="approve" name="decision" value="approve">Approve</button>
<button type="submit" class="decline" name="decision" value="decline" formnovalidate>Decline</button>
</div>
</form>`;
  const body = `<h1>${heading}</h1>
<p id="prompt">${esc(view.prompt)}</p>
<dl>${details}</dl>
<h2>Arguments</h2>
<pre id="args">${esc(prettyJson(view.args))}</pre>
${context}
${who}
${form}`;
  return layout(heading, body);
}

/**
 * A result or error page ("This link has expired", "Decision recorded: approved", …).
 *
 * @example c.html(renderMessagePage("Expired", "This link has expired", "error"), 410, pageHeaders())
 */
export function renderMessagePage(
  title: string,
  message: string,
  status: "ok" | "error" = "ok",
): string {
  return layout(
    title,
    `<h1 class="${status}">${esc(title)}</h1>\n<p id="message" class="${status}">${esc(message)}</p>`,
  );
}

/**
 * "Edit arguments": one JSON field per editable key, prefilled with the current value. Left
 * as they are, the fields change nothing (unchanged keys are not edits).
 */
function renderArgEdits(view: ApprovalPageView): string {
  const keys = view.editableKeys ?? [];
  if (keys.length === 0) {
    return "";
  }
  const fields = argEditFields(view.args, keys, "arg");
  return `<details id="edit-args"><summary>Edit arguments</summary>
${fields}
<p class="hint">Values are JSON (a bare word is taken as text). Approving edited arguments resets earlier approvals.</p>
</details>
`;
}

function renderVotes(view: ApprovalPageView): string {
  const items = (view.votes ?? []).map(
    (v) =>
      `<li>${esc(v.decidedBy)}: ${esc(v.decision)}${v.reset ? " (reset by a later edit)" : ""}, ${esc(utcAndRelative(v.at, view.now ?? Date.now()))}</li>`,
  );
  return `<h2>Votes</h2>
<p id="votes">${view.approvals ?? 0} of ${view.needed} approvals</p>
${items.length ? `<ul>${items.join("")}</ul>` : "<p>No votes yet.</p>"}`;
}

function row(term: string, definition: string): string {
  return `<dt>${term}</dt><dd>${definition}</dd>`;
}
