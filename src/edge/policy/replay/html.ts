/**
 * The replay report as one HTML page with inline SVG charts (no script, no CDN): the changes
 * per kind, and per tool, as horizontal bars, then the table of every row.
 */
import type { ReplayReport, ReplayRow } from "./compare";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function replayHtml(report: ReplayReport, { policy }: { policy: string }): string {
  const byChange = totals(report.rows, (r) => r.change);
  const byTool = totals(report.rows, (r) => r.tool);
  const rows = report.rows
    .map(
      (r) =>
        `<tr><td>${escapeHtml(r.tool)}</td><td>${escapeHtml(r.group)}</td><td>${escapeHtml(r.change)}</td><td class="n">${r.count}</td></tr>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Policy replay: ${escapeHtml(policy)}</title>
<style>body{font:14px system-ui,sans-serif;margin:2rem;max-width:60rem}table{border-collapse:collapse}td,th{padding:.25rem .75rem;border-bottom:1px solid #ddd;text-align:left}.n{text-align:right}</style>
</head><body>
<h1>Policy replay</h1>
<p>Candidate <code>${escapeHtml(policy)}</code> against ${report.receipts} receipts: ${report.replayable} replayable,
${report.unchanged} unchanged, ${report.replayable - report.unchanged - report.failed} would change, ${report.failed} not answered.</p>
<h2>Changes by kind</h2>
${bars(byChange)}
<h2>Changes by tool</h2>
${bars(byTool)}
<h2>Every change</h2>
<table><thead><tr><th>tool</th><th>group</th><th>change</th><th class="n">calls</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</body></html>
`;
}

function totals(
  rows: readonly ReplayRow[],
  key: (r: ReplayRow) => string,
): Array<[string, number]> {
  const sums = new Map<string, number>();
  for (const row of rows) {
    sums.set(key(row), (sums.get(key(row)) ?? 0) + row.count);
  }
  return [...sums].sort((a, b) => b[1] - a[1]);
}

/** A horizontal bar chart as inline SVG. */
function bars(data: ReadonlyArray<[string, number]>): string {
  if (data.length === 0) {
    return "<p>No changes.</p>";
  }
  const max = Math.max(...data.map(([, n]) => n));
  const row = 24;
  const label = 200;
  const width = 400;
  const items = data
    .map(([name, n], i) => {
      const w = Math.max(2, Math.round((n / max) * width));
      const y = i * row;
      return `<text x="0" y="${y + 16}">${escapeHtml(name)}</text><rect x="${label}" y="${y + 4}" width="${w}" height="16" fill="#3b6ea5"><title>${escapeHtml(name)}: ${n}</title></rect><text x="${label + w + 6}" y="${y + 16}">${n}</text>`;
    })
    .join("");
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="${label + width + 60}" height="${data.length * row}" font-size="13">${items}</svg>`;
}
