/**
 * The top of the `/inbox` page: counts per group, and a GET form that filters and sorts the
 * list (the same names as `GET /v1/approvals`). Plain labelled inputs: Enter submits, Tab
 * reaches every field, and the filters stay in the URL so a view can be bookmarked or shared.
 */
import { esc } from "../../pages/layout";
import type { InboxFilters, InboxSort } from "./listing";

export interface GroupCounts {
  group: string;
  open: number;
  decided: number;
  /** Open requests matching the filters. */
  matching: number;
}

export interface FindView {
  filters: InboxFilters & { sort?: InboxSort };
  counts: GroupCounts[];
}

export function renderCounts(view: FindView, filtered: boolean): string {
  const head = filtered ? "<th>Matching</th>" : "";
  const rows = view.counts
    .map(
      (c) =>
        `<tr data-group="${esc(c.group)}"><td>${esc(c.group)}</td><td class="n">${c.open}</td>${filtered ? `<td class="n">${c.matching}</td>` : ""}<td class="n">${c.decided}</td></tr>`,
    )
    .join("\n");
  return `<table id="counts"><caption>Requests per group</caption>
<thead><tr><th>Group</th><th>Open</th>${head}<th>Decided</th></tr></thead><tbody>
${rows}
</tbody></table>`;
}

const SORTS: Array<[InboxSort | "", string]> = [
  ["", "Longest waiting"],
  ["expires", "Expiring soonest"],
  ["surfaced", "Surfaced first"],
];

export function renderFindForm(view: FindView): string {
  const f = view.filters;
  const field = (name: keyof InboxFilters, label: string, type = "text") =>
    `<div class="field"><label for="find-${name}">${label}</label>
<input type="${type}" id="find-${name}" name="${name}" maxlength="200" value="${esc(f[name] ?? "")}"></div>`;
  const options = SORTS.map(
    ([value, label]) =>
      `<option value="${value}"${(f.sort ?? "") === value ? " selected" : ""}>${label}</option>`,
  ).join("");
  return `<form id="find" method="GET" action="/inbox" role="search" aria-label="Find requests">
${field("q", "Text (prompt or arguments)", "search")}
${field("agent", "Agent")}
${field("tool", "Tool")}
${field("requestedBy", "Requested by")}
<div class="field"><label for="find-sort">Order</label>
<select id="find-sort" name="sort">${options}</select></div>
<div class="find-actions"><button type="submit">Find</button> <a href="/inbox">Clear filters</a></div>
</form>`;
}
