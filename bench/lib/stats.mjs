/** Sample statistics and the one table format every benchmark prints. */
import os from "node:os";
import fs from "node:fs";

export function quantile(sorted, q) {
  if (sorted.length === 0) {
    return NaN;
  }
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    median: quantile(sorted, 0.5),
    p95: quantile(sorted, 0.95),
    min: sorted[0],
    max: sorted[sorted.length - 1],
  };
}

export const ms = (v) =>
  Number.isFinite(v) ? (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(3)) : "–";
export const ratio = (v, base) =>
  Number.isFinite(v) && base > 0 ? `${(v / base).toFixed(2)}×` : "–";
export const mib = (bytes) => (Number.isFinite(bytes) ? (bytes / 1048576).toFixed(1) : "–");
export const kib = (bytes) => (Number.isFinite(bytes) ? (bytes / 1024).toFixed(1) : "–");

/** A GitHub-flavoured markdown table. `rows` are arrays of cells (strings). */
export function table(title, header, rows) {
  const widths = header.map((h, i) =>
    Math.max(String(h).length, ...rows.map((r) => String(r[i]).length)),
  );
  const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(" | ")} |`;
  const out = [
    `### ${title}`,
    "",
    line(header),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...rows.map(line),
    "",
  ];
  return out.join("\n");
}

export function machine() {
  let cpu = os.cpus()[0]?.model ?? "unknown";
  try {
    const info = fs.readFileSync("/proc/cpuinfo", "utf8");
    cpu = /model name\s*:\s*(.+)/.exec(info)?.[1]?.trim() ?? cpu;
  } catch {}
  return `nproc ${os.availableParallelism?.() ?? os.cpus().length}, ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`;
}

/** Fisher–Yates, so interleaved runs do not always run in the same order. */
export function shuffled(items) {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
