/**
 * The inbox's batch decisions, as pages (issue 42 item 1): a checkbox on each card, a form
 * that sends the checked ones to a pre-flight table (agent, tool, arguments, requester,
 * expiry, votes so far), and the results after the approver confirmed. Plain forms, no
 * script: the checkboxes sit on the cards and join the batch form by its id (`form="batch"`),
 * so the cards keep their own Approve / Decline forms. Every value is escaped.
 */
import { esc, layout, prettyJson, time } from "../pages/layout";
import type { InboxItem } from "../inbox/item";
import { MAX_REASON_CHARS } from "../http/schemas";
import type { BatchResult } from "./decide-batch";

const STYLE = `
.select{display:inline-flex;gap:.35rem;align-items:center;font-weight:400;margin:0}
.select input{width:auto}#batch{display:flex;flex-wrap:wrap;gap:.5rem;margin:1rem 0}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.3rem .4rem;border-bottom:1px solid #eee;vertical-align:top}
td pre{margin:0;padding:.3rem;font-size:.85rem}.meta{color:#555;font-size:.9rem}`;

/** The checkbox on an open card: its value names the request ("<runId> <requestId>"). */
export function selectBox(item: InboxItem): string {
  const value = `${item.runId} ${item.requestId}`;
  return `<label class="select"><input type="checkbox" name="select" value="${esc(value)}" form="batch"> Select for a batch decision</label>\n`;
}

/** The batch form the checkboxes join: review the selected requests before deciding them. */
export function batchBar(csrf: string, open: number): string {
  if (open === 0) {
    return "";
  }
  return `<style>${STYLE}</style>
<form id="batch" method="POST" action="/inbox/batch">
<input type="hidden" name="csrf" value="${esc(csrf)}">
<button type="submit" name="decision" value="approve">Review approving the selected</button>
<button type="submit" name="decision" value="decline">Review declining the selected</button>
</form>`;
}

/** The pre-flight table: what will be decided, and a confirm button. */
export function renderPreflight(view: {
  decision: "approve" | "decline";
  items: InboxItem[];
  /** Selected requests that are not (any more) in the approver's inboxes. */
  missing: string[];
  csrf: string;
  now: number;
}): string {
  const { decision, items, now } = view;
  const verb = decision === "approve" ? "Approve" : "Decline";
  const rows = items.map(
    (item) => `<tr data-request="${esc(item.requestId)}">
<td>${esc(item.prompt)}<input type="hidden" name="item" value="${esc(`${item.runId} ${item.requestId} ${item.argsHash}`)}"></td>
<td>${esc(item.agent)}</td><td>${item.tool ? `<code>${esc(item.tool)}</code>` : "—"}</td>
<td><pre class="args">${esc(prettyJson(item.args))}</pre></td>
<td>${item.requestedBy ? esc(item.requestedBy) : "—"}</td>
<td>${item.expiresAt ? time(Date.parse(item.expiresAt), now) : "no expiry"}</td>
<td class="votes">${votesSoFar(item)}</td></tr>`,
  );
  const missing = view.missing.length
    ? `<p id="missing" class="error">Not in your inbox (decided, or not yours to decide): ${view.missing.map(esc).join(", ")}</p>`
    : "";
  const reason =
    decision === "decline"
      ? `<label for="reason">Reason (every agent is told)</label>
<input id="reason" type="text" name="reason" maxlength="${MAX_REASON_CHARS}">`
      : "";
  const body = `<h1>${verb} ${items.length} ${items.length === 1 ? "request" : "requests"}?</h1>
<p class="meta">Check what each one does. Each is decided on its own: one that cannot be decided does not stop the others.</p>
${missing}
<form method="POST" action="/inbox/batch">
<input type="hidden" name="csrf" value="${esc(view.csrf)}">
<input type="hidden" name="decision" value="${decision}">
<input type="hidden" name="confirm" value="1">
<table id="preflight"><thead><tr><th>Request</th><th>Agent</th><th>Tool</th><th>Arguments</th><th>Requested by</th><th>Expires</th><th>Votes so far</th></tr></thead>
<tbody>
${rows.join("\n")}
</tbody></table>
${reason}
<div class="actions"><button type="submit" class="${decision === "approve" ? "approve" : ""}" id="confirm">${verb} ${items.length}</button> <a href="/inbox">Back to the inbox</a></div>
</form>`;
  return layout(`${verb} ${items.length} requests?`, body, STYLE);
}

/** What happened to each item of a confirmed batch. */
export function renderBatchResults(view: {
  decision: "approve" | "decline";
  results: Array<BatchResult & { prompt?: string }>;
}): string {
  const rows = view.results.map(
    (r) =>
      `<tr data-request="${esc(r.requestId)}" data-status="${r.status}"><td>${esc(r.prompt ?? r.requestId)}</td><td class="outcome">${esc(outcomeText(r, view.decision))}</td></tr>`,
  );
  const done = view.results.filter((r) => r.status < 300).length;
  const body = `<h1>${done} of ${view.results.length} recorded</h1>
<table id="results"><thead><tr><th>Request</th><th>Outcome</th></tr></thead>
<tbody>
${rows.join("\n")}
</tbody></table>
<p><a href="/inbox">Back to the inbox</a></p>`;
  return layout("Batch decision", body, STYLE);
}

function outcomeText(r: BatchResult, decision: "approve" | "decline"): string {
  if (r.status >= 300) {
    return `Not recorded (${r.code ?? r.status}): ${r.message ?? ""}`;
  }
  if (r.duplicate) {
    return "Already recorded";
  }
  if (r.needed !== undefined && decision === "approve" && (r.votes ?? 0) < r.needed) {
    return `Vote recorded (${r.votes ?? 0} of ${r.needed} approvals)`;
  }
  return decision === "approve" ? "Approved" : "Declined";
}

function votesSoFar(item: InboxItem): string {
  if (item.needed === null) {
    return "—";
  }
  const live = item.votes.filter((v) => !v.reset && v.decision === "approve");
  const who = live.map((v) => esc(v.decidedBy)).join(", ");
  return `${live.length} of ${item.needed}${who ? ` (${who})` : ""}`;
}
