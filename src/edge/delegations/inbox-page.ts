/**
 * `/inbox/delegations` as a page (issue 42): the signed-in member's running delegations —
 * those they gave and those they hold, each with an End button — and a form to name who
 * decides for them until when. Plain forms with the inbox's CSRF token, no script.
 */
import { esc, layout, time } from "../pages/layout";
import type { Delegation } from "./rpc";

const STYLE = `table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.3rem .4rem;border-bottom:1px solid #eee}
.groups label{display:inline-flex;gap:.3rem;font-weight:400;margin-right:1rem}.groups input{width:auto}`;

export function renderDelegationsPage(view: {
  member: string;
  /** The member's own groups (a delegation may be limited to some of them). */
  groups: string[];
  delegations: Delegation[];
  csrf: string;
  notice?: { kind: "ok" | "error"; text: string };
  now: number;
}): string {
  const rows = view.delegations.map((d) => {
    const gave = d.from === view.member;
    return `<tr data-delegation="${esc(d.id)}"><td>${gave ? `You → ${esc(d.to)}` : `${esc(d.from)} → you`}</td>
<td>${d.groups ? d.groups.map(esc).join(", ") : "all their groups"}</td><td>${time(Date.parse(d.until), view.now)}</td>
<td><form method="POST" action="/inbox/delegations"><input type="hidden" name="csrf" value="${esc(view.csrf)}"><input type="hidden" name="end" value="${esc(d.id)}"><button type="submit">End</button></form></td></tr>`;
  });
  const notice = view.notice
    ? `<p id="notice" class="${view.notice.kind}">${esc(view.notice.text)}</p>`
    : "";
  const groups = view.groups
    .map((g) => `<label><input type="checkbox" name="groups" value="${esc(g)}"> ${esc(g)}</label>`)
    .join("");
  const body = `<h1>Delegations</h1>
<p class="meta">Signed in as <strong>${esc(view.member)}</strong> · <a href="/inbox">Back to the inbox</a></p>
${notice}
${rows.length ? `<table id="delegations"><thead><tr><th>Who</th><th>Groups</th><th>Until</th><th></th></tr></thead><tbody>${rows.join("\n")}</tbody></table>` : `<p id="none">No delegation is running.</p>`}
<h2>Away? Name who decides for you</h2>
<form method="POST" action="/inbox/delegations" id="delegate">
<input type="hidden" name="csrf" value="${esc(view.csrf)}">
<label for="to">Who decides for you (an approver)</label><input id="to" name="to" required maxlength="320">
<label for="until">Until (UTC)</label><input id="until" name="until" type="datetime-local" required>
<p class="groups">Only these groups (none ticked: all of yours): ${groups}</p>
<div class="actions"><button type="submit" class="approve">Delegate</button></div>
</form>`;
  return layout("Delegations", body, STYLE);
}
