/**
 * The run timeline page: a waterfall of the run's model calls, tool calls and requests on
 * one time scale, each tool call's arguments and result and each request's votes and
 * decision behind a collapsed `<details>`. Every value is escaped with the pages' `esc`
 * (tool arguments and results are attacker-controlled as far as the page is concerned);
 * the only script is `LIVE_SCRIPT`, run by its nonce.
 */
import { esc, layout, prettyJson } from "../pages/layout";
import type { RunView } from "../protocol";
import type { Timeline, TimelineRow } from "./model";
import { LIVE_SCRIPT } from "./live-script";

export interface TimelinePageView {
  run: RunView;
  timeline: Timeline;
  /** The per-response CSP nonce (see `timelineHeaders`). */
  nonce: string;
  /** Same-origin path of the run's Server-Sent Events for this viewer; absent: no live updates. */
  eventsPath?: string;
}

const STYLE = `
body{max-width:60rem}
.summary{color:#555}.waterfall{list-style:none;padding:0;margin:1rem 0}
.row{display:grid;grid-template-columns:16rem 1fr;gap:.5rem;align-items:start;border-top:1px solid #eee;padding:.35rem 0}
.label{overflow-wrap:anywhere}.dur{color:#555;font-size:.85em}
.track{position:relative;height:1.1rem;background:#fafafa;margin-top:.2rem}
.bar{position:absolute;top:0;bottom:0;min-width:2px;border-radius:2px}
.model .bar{background:#5b7db8}.tool .bar{background:#3d8f5a}.tool.error .bar{background:#b8433d}
.request .bar{background:#d9a13b}.open .bar{opacity:.6}
.mark{position:absolute;top:-2px;bottom:-2px;width:2px;background:#333}
.row details{grid-column:1/-1}.votes{margin:.25rem 0;padding-left:1.2rem}
pre{max-height:20rem}`;

export function renderTimelinePage(view: TimelinePageView): string {
  const { run, timeline } = view;
  const rows = timeline.rows.map((row, i) => renderRow(row, i, timeline)).join("\n");
  const marks = timeline.marks
    .map((m) => `<li>${esc(m.label)} at ${esc(offset(m.at - timeline.start))}</li>`)
    .join("");
  const events = view.eventsPath ? ` data-events="${esc(view.eventsPath)}"` : "";
  const body = `<h1>Run timeline</h1>
<section id="timeline"${events}>
<p class="summary">Run <code id="run-id">${esc(run.runId)}</code> of agent <code>${esc(run.agent)}</code>:
<strong id="run-status">${esc(run.status)}</strong>, ${esc(duration(timeline.end - timeline.start))} shown,
${run.turns} model turn(s), ${run.toolCallCount} tool call(s), ${run.usage.totalTokens} tokens.</p>
<blockquote id="input">${esc(run.input)}</blockquote>
<ol class="waterfall">
${rows || '<li class="empty">Nothing recorded yet.</li>'}
</ol>
${marks ? `<ul id="marks">${marks}</ul>` : ""}
${run.text ? `<h2>Answer</h2>\n<p id="answer">${esc(run.text)}</p>` : ""}
${run.error ? `<p id="error" class="error"><code>${esc(run.error.code)}</code> ${esc(run.error.message)}</p>` : ""}
</section>
${view.eventsPath ? '<p id="live" class="summary">live</p>' : ""}
<script nonce="${esc(view.nonce)}">${LIVE_SCRIPT}</script>`;
  return layout(`Run ${run.runId}`, body, STYLE);
}

function renderRow(row: TimelineRow, index: number, timeline: Timeline): string {
  const bar = barOf(row.start, row.end, timeline);
  const took =
    row.kind === "tool" && row.waiting
      ? "waits for a decision"
      : esc(duration(row.end - row.start) + (row.open ? " so far" : ""));
  switch (row.kind) {
    case "model":
      return `<li class="row model${row.open ? " open" : ""}">
<div class="label">Model call <span class="dur">${took}${row.tokens !== undefined ? `, ${row.tokens} tokens` : ""}</span></div>
<div class="track">${bar}</div>
${row.text ? `<details id="d${index}"><summary>Text</summary><pre>${esc(row.text)}</pre></details>` : ""}
</li>`;
    case "tool":
      return `<li class="row tool${row.isError ? " error" : ""}${row.open ? " open" : ""}">
<div class="label">Tool <code>${esc(row.name)}</code> <span class="dur">${took}</span></div>
<div class="track">${bar}</div>
<details id="d${index}"><summary>Arguments and result</summary>
<h3>Arguments</h3><pre class="args">${esc(prettyJson(row.args))}</pre>
<h3>Result${row.isError ? " (error)" : ""}</h3><pre class="result">${esc(row.output ?? (row.waiting ? "(not run: waits for a decision)" : row.open ? "(running)" : ""))}</pre>
</details>
</li>`;
    case "request": {
      const ticks = row.marks
        .map(
          (m) =>
            `<span class="mark" style="left:${pct(m.at - timeline.start, timeline)}%" title="${esc(m.label)}"></span>`,
        )
        .join("");
      const votes = row.votes
        .map(
          (v) =>
            `<li>${esc(v.by)}: ${esc(v.decision)} via ${esc(v.channel)} at ${esc(offset(v.at - timeline.start))}${v.edited === undefined ? "" : `, edited the arguments to <code class="edit">${esc(JSON.stringify(v.edited))}</code>`}${v.reset ? " (reset by a later edit)" : ""}</li>`,
        )
        .join("");
      const marks = row.marks
        .map((m) => `<li>${esc(m.label)} at ${esc(offset(m.at - timeline.start))}</li>`)
        .join("");
      const decided = row.decision
        ? `<p class="decision">Decided: <strong>${esc(row.decision.decision)}</strong>${row.decision.by ? ` by ${esc(row.decision.by)}` : ""} via ${esc(row.decision.channel)}${row.decision.reason ? ` (${esc(row.decision.reason)})` : ""}</p>`
        : '<p class="decision">Waiting for a decision.</p>';
      return `<li class="row request${row.open ? " open" : ""}">
<div class="label">${esc(capitalized(row.requestKind || "request"))}: ${esc(row.prompt)} <span class="dur">${took}</span></div>
<div class="track">${bar}${ticks}</div>
<details id="d${index}"><summary>Asked ${row.asked.length ? esc(row.asked.join(", ")) : "anyone with a link"}</summary>
<p>Request <code>${esc(row.requestId)}</code></p>
${marks ? `<ul class="marks">${marks}</ul>` : ""}
${votes ? `<ul class="votes">${votes}</ul>` : ""}
${decided}
</details>
</li>`;
    }
    default: {
      const unknown: never = row;
      return unknown;
    }
  }
}

function barOf(start: number, end: number, timeline: Timeline): string {
  const left = pct(start - timeline.start, timeline);
  const width = Math.max(0, Math.min(100 - left, pct(end - start, timeline)));
  return `<span class="bar" style="left:${left}%;width:${width.toFixed(2)}%"></span>`;
}

function pct(ms: number, timeline: Timeline): number {
  const total = Math.max(1, timeline.end - timeline.start);
  return Math.round((Math.max(0, ms) / total) * 10_000) / 100;
}

/** "850 ms", "3.2 s", "4 min 5 s", "3 h 5 min". */
export function duration(ms: number): string {
  const v = Math.max(0, Math.round(ms));
  if (v < 1000) {
    return `${v} ms`;
  }
  if (v < 60_000) {
    return `${(v / 1000).toFixed(1)} s`;
  }
  if (v < 3_600_000) {
    return `${Math.floor(v / 60_000)} min ${Math.floor((v % 60_000) / 1000)} s`;
  }
  return `${Math.floor(v / 3_600_000)} h ${Math.floor((v % 3_600_000) / 60_000)} min`;
}

const offset = (ms: number) => `+${duration(ms)}`;
const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The pages' headers with the one relaxation this page needs: its own script by nonce,
 * and EventSource/fetch to the same origin. Nothing else is loaded from anywhere.
 */
export function timelineHeaders(nonce: string): Record<string, string> {
  return {
    "content-type": "text/html; charset=utf-8",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": `default-src 'none'; script-src 'nonce-${nonce}'; connect-src 'self'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
  };
}

/** A fresh nonce per response (128 random bits, base64url). */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replaceAll("=", "");
}
