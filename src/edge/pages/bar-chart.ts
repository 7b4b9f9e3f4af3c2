/**
 * A horizontal bar chart as inline SVG, drawn on the server: no script, no fonts or files
 * from elsewhere, so it renders offline and under the pages' CSP. It scales to its box
 * (`viewBox`, width 100%), so it stays readable in a phone-width window; `role="img"` with a
 * title and each bar's label and value as text keeps it readable without seeing it.
 */
import { esc } from "./layout";

export interface Bar {
  label: string;
  value: number;
  /** What is written after the bar ("12 min", "3"). */
  text: string;
  /** Second colour, for the second series of a pair (p90 beside p50, 30 days beside 7). */
  second?: boolean;
}

const WIDTH = 320;
const ROW = 22;
const LABEL = 118;
const VALUE = 58;
const LABEL_CHARS = 18;

export function barChart(id: string, title: string, bars: readonly Bar[]): string {
  if (bars.length === 0) {
    return `<p class="meta" id="${esc(id)}">${esc(title)}: nothing yet.</p>`;
  }
  const max = Math.max(...bars.map((b) => b.value), 0);
  const span = WIDTH - LABEL - VALUE;
  const height = bars.length * ROW + 4;
  const rows = bars
    .map((bar, i) => {
      const y = 2 + i * ROW;
      const length = max > 0 ? Math.max(bar.value > 0 ? 1 : 0, (bar.value / max) * span) : 0;
      const label = clip(bar.label, LABEL_CHARS);
      return `<g><title>${esc(`${bar.label}: ${bar.text}`)}</title>
<text x="${LABEL - 6}" y="${y + 15}" text-anchor="end">${esc(label)}</text>
<rect x="${LABEL}" y="${y + 3}" width="${length.toFixed(1)}" height="${ROW - 7}" class="${bar.second ? "bar2" : "bar"}"/>
<text x="${(LABEL + length + 4).toFixed(1)}" y="${y + 15}">${esc(bar.text)}</text></g>`;
    })
    .join("\n");
  return `<figure class="chart"><svg id="${esc(id)}" viewBox="0 0 ${WIDTH} ${height}" width="100%" role="img" aria-labelledby="${esc(id)}-t" xmlns="http://www.w3.org/2000/svg">
<title id="${esc(id)}-t">${esc(title)}</title>
${rows}
</svg><figcaption>${esc(title)}</figcaption></figure>`;
}

/** Chart styles for the page's <style> (the SVG inherits them: no style attribute needed). */
export const CHART_STYLE = `
.chart{margin:.5rem 0 1.25rem}.chart svg{display:block;max-width:100%;height:auto;font:11px system-ui,sans-serif}
.chart text{fill:#1a1a1a}.bar{fill:#2f6db5}.bar2{fill:#c77d1a}figcaption{font-size:.85rem;color:#555}`;

function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}
