/**
 * The `/inbox` page: the signed-in approver's open requests across threads, with Approve /
 * Decline (with a reason) on each, and the recently decided ones. Server-rendered, no
 * script, every value escaped (prompts and arguments come from models and tools); the
 * approval page's headers and CSP apply. Times are UTC plus "in 14 minutes", computed at
 * render, so the page needs no clock of its own.
 */
import { argEditFields, esc, layout, prettyJson, time } from "../pages/layout";
import { renderSchemaFields } from "../pages/schema-fields";

import type { InboxItem } from "./item";
import { type FindView, renderCounts, renderFindForm } from "./find/form";
import { hasFilters } from "./find/listing";
import { editableKeys, editedArgs } from "../approvals/arg-edits";
// Batch decisions (issue 42): the card's checkbox and the form it joins live in their own module.
import { batchBar, selectBox } from "../batch/inbox-page";

export interface InboxPageView {
  /** Who is signed in (member id). */
  member: string;
  groups: string[];
  open: InboxItem[];
  decided: InboxItem[];
  /** One CSRF token for every form of the page. */
  csrf: string;
  /** The result of the POST that rendered this page, if any. */
  notice?: { kind: "ok" | "error"; text: string };
  now: number;
  /** The filters in force and the counts per group on top (issue 42). */
  find?: FindView;
}

const STYLE = `
.item{border:1px solid #ccc;border-radius:.4rem;padding:.75rem 1rem;margin:1rem 0}
.item h3{margin:.1rem 0 .5rem;font-size:1.05rem}.meta{color:#555;font-size:.9rem}
.decline{display:flex;gap:.5rem;align-items:flex-start;margin-top:.5rem}
.decline input{flex:1}.notice{padding:.5rem .75rem;border-radius:.3rem;background:#f1f7f2}
.notice.error{background:#fbeeee}table{border-collapse:collapse;width:100%}
td,th{text-align:left;padding:.3rem .4rem;border-bottom:1px solid #eee;vertical-align:top}
td,.meta,code{overflow-wrap:anywhere}caption{text-align:left;font-weight:600}.n{text-align:right}
nav a{margin-right:1rem}#counts{max-width:24rem;margin:.5rem 0 1rem}
#find{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.25rem .75rem;margin:0 0 1rem}
#find label{margin-top:.25rem}select{width:100%;font:inherit;padding:.4rem;box-sizing:border-box}
.find-actions{display:flex;gap:1rem;align-items:center;align-self:end;padding-top:.5rem}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
@media (max-width:32rem){body{margin:1rem auto}#decided thead{display:none}#decided tr,#decided td{display:block}
#decided tr{border-bottom:1px solid #ccc;padding:.4rem 0}#decided td{border:0;padding:.1rem 0}.item{padding:.6rem .7rem}}`;

export function renderInboxPage(view: InboxPageView): string {
  const notice = view.notice
    ? `<p id="notice" class="notice ${view.notice.kind}">${esc(view.notice.text)}</p>`
    : "";
  const open = view.open.length
    ? view.open.map((item, i) => openItem(item, view, i)).join("\n")
    : `<p id="empty">Nothing is waiting for you.</p>`;
  const decided = view.decided.length
    ? `<table id="decided"><thead><tr><th>Request</th><th>Outcome</th><th>By</th><th>When</th></tr></thead><tbody>
${view.decided.map((item) => decidedRow(item, view)).join("\n")}
</tbody></table>`
    : `<p>Nothing decided yet.</p>`;
  const filtered = view.find ? hasFilters(view.find.filters) : false;
  const find = view.find
    ? `${renderCounts(view.find, filtered)}\n${renderFindForm(view.find)}\n`
    : "";
  const body = `<h1>Approvals</h1>
<nav><a href="/inbox">Inbox</a><a href="/inbox/dashboard">Dashboard</a><a href="/inbox/delegations">Delegations</a></nav>
<p class="meta">Signed in as <strong id="member">${esc(view.member)}</strong> · groups: ${view.groups.map(esc).join(", ")}</p>
${notice}
${find}<h2>Waiting for a decision (${view.open.length}${filtered ? " matching" : ""})</h2>
${moreThanShown(view)}
${batchBar(view.csrf, view.open.length)}
<div id="open">
${open}
</div>
<h2>Recently decided</h2>
${decided}`;
  return layout("Approvals", body, STYLE);
}

function openItem(item: InboxItem, view: InboxPageView, index: number): string {
  const hidden = `<input type="hidden" name="csrf" value="${esc(view.csrf)}">
<input type="hidden" name="runId" value="${esc(item.runId)}">
<input type="hidden" name="requestId" value="${esc(item.requestId)}">`;
  // Approvals carry the version of the arguments on screen: a stale page is refused, not counted.
  const version = `<input type="hidden" name="argsHash" value="${esc(item.argsHash)}">`;
  const votes =
    item.needed !== null
      ? `<p class="meta">${item.votes.filter((v) => !v.reset && v.decision === "approve").length} of ${item.needed} approvals</p>`
      : "";
  return `<section class="item" data-request="${esc(item.requestId)}">
${selectBox(item)}<h3 class="prompt">${esc(item.prompt)}</h3>
<p class="meta">${item.expiring ? `<strong class="expiring">Expires soon</strong> · ` : ""}${item.tool ? `<code>${esc(item.tool)}</code> · ` : ""}agent ${esc(item.agent)} · ${item.askedBy ? `sub-agent ${esc(item.askedBy)} · ` : ""}${item.requestedBy ? `asked by ${esc(item.requestedBy)} · ` : ""}${expiry(item, view.now)}</p>
<p class="meta">User's request: ${esc(clip(item.input, 300))}</p>
<pre class="args">${esc(prettyJson(item.args))}</pre>
${edited(item)}${votes}<form method="POST" action="/inbox/decide">
${hidden}
${version}
${item.kind === "input" ? renderSchemaFields(item.schema, `field-${item.requestId}`) : ""}<button type="submit" class="approve" name="decision" value="approve">Approve</button>
</form>
<form method="POST" action="/inbox/decide" class="decline">
${hidden}
<label class="sr" for="reason-${index}">Reason for declining</label>
<input type="text" id="reason-${index}" name="reason" maxlength="1000" placeholder="Reason (the agent is told)">
<button type="submit" name="decision" value="decline">Decline</button>
</form>
${editForm(item, `${hidden}\n${version}`)}</section>`;
}

/**
 * The page shows the first requests of each group (routes.ts `OPEN_LIMIT`): when the groups
 * hold more, say so, and how to narrow them down, instead of a silently short list.
 */
function moreThanShown(view: InboxPageView): string {
  const total = (view.find?.counts ?? []).reduce((sum, c) => sum + c.matching, 0);
  return total > view.open.length
    ? `<p class="meta" id="more">Showing ${view.open.length} of ${total}: filter or sort to find the others.</p>\n`
    : "";
}

/** Arguments the rules let an approver change: one field each (JSON), inside <details>. */
export function itemEditableKeys(item: InboxItem): string[] {
  return editableKeys(item.args, item.editable);
}

/** The full arguments an inbox edit form asks for; undefined when it edits nothing. */
export function itemEditedArgs(
  item: InboxItem,
  form: URLSearchParams,
): Record<string, unknown> | undefined {
  return editedArgs(item.args, itemEditableKeys(item), (name) => form.get(name) ?? undefined);
}

function editForm(item: InboxItem, hidden: string): string {
  const keys = itemEditableKeys(item);
  if (keys.length === 0) {
    return "";
  }
  const fields = argEditFields(item.args, keys, `edit-${item.requestId}`);
  return `<details class="edit"><summary>Edit arguments</summary>
<form method="POST" action="/inbox/decide">
${hidden}
${fields}
<p class="meta">Values are JSON (a bare word is taken as text). Approving edited arguments resets earlier approvals.</p>
<button type="submit" name="decision" value="approve">Approve with these arguments</button>
</form>
</details>
`;
}

function decidedRow(item: InboxItem, view: InboxPageView): string {
  const now = view.now;
  const d = item.decision;
  const when = d ? time(Date.parse(d.decidedAt), now) : "";
  const reason = d?.reason ? ` — ${esc(clip(d.reason, 200))}` : "";
  // The prompt was written for the first arguments: show those decided on, and who edited them.
  const args = item.editedBy
    ? `<br><code class="args">${esc(clip(JSON.stringify(item.args) ?? "", 200))}</code> <span class="meta">edited by ${esc(item.editedBy)}</span>`
    : "";
  return `<tr data-request="${esc(item.requestId)}"><td>${esc(clip(item.prompt, 120))}${args}</td><td class="outcome">${esc(d?.outcome ?? "")}${reason}${undoForm(item, view)}</td><td>${esc(d?.decidedBy ?? "—")} via ${esc(d?.channel ?? "?")}</td><td>${when}</td></tr>`;
}

/**
 * An approval still in its undo window (rule `delay`): an Undo button revokes it, and the call
 * is declined `revoked by <you>` (docs/undo.md).
 */
function undoForm(item: InboxItem, view: InboxPageView): string {
  const until = item.heldUntil ? Date.parse(item.heldUntil) : Number.NaN;
  if (item.decision?.outcome !== "approved" || !(until > view.now)) {
    return "";
  }
  return `<form method="POST" action="/inbox/decide" class="undo">
<input type="hidden" name="csrf" value="${esc(view.csrf)}">
<input type="hidden" name="runId" value="${esc(item.runId)}">
<input type="hidden" name="requestId" value="${esc(item.requestId)}">
<span class="meta">runs ${time(until, view.now)}</span> <button type="submit" name="decision" value="revoke">Undo</button>
</form>`;
}

/** Says the arguments on screen are an approver's edit, not the agent's. */
function edited(item: InboxItem): string {
  return item.editedBy
    ? `<p class="meta edited">Arguments edited by ${esc(item.editedBy)}; earlier approvals were reset.</p>\n`
    : "";
}

function expiry(item: InboxItem, now: number): string {
  return item.expiresAt ? `expires ${time(Date.parse(item.expiresAt), now)}` : "no expiry";
}

function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}
