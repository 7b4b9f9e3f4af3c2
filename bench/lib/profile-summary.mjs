/**
 * Summarizes a V8 .cpuprofile (from `node --cpu-prof`): the top functions by self
 * time and by total (inclusive) time, with their source location.
 *
 *   node lib/profile-summary.mjs file.cpuprofile [--top 30] [--filter text]
 */
import fs from "node:fs";

const [file] = process.argv.slice(2);
const top = Number(process.argv[process.argv.indexOf("--top") + 1]) || 30;
const filterAt = process.argv.indexOf("--filter");
const filter = filterAt > 0 ? process.argv[filterAt + 1] : undefined;
const profile = JSON.parse(fs.readFileSync(file, "utf8"));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const self = new Map();
const deltas = profile.timeDeltas;
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (deltas[i] ?? 0) / 1000));
const total = [...self.values()].reduce((a, b) => a + b, 0);

const key = (n) => {
  const f = n.callFrame;
  const where = f.url ? `${f.url.replace(/^.*\//, "")}:${f.lineNumber + 1}:${f.columnNumber + 1}` : "";
  return `${f.functionName || "(anonymous)"} ${where}`.trim();
};
const selfBy = new Map();
const totalBy = new Map();
for (const [id, t] of self) {
  const n = byId.get(id);
  selfBy.set(key(n), (selfBy.get(key(n)) ?? 0) + t);
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const k = key(byId.get(cur));
    if (seen.has(k)) continue;
    seen.add(k);
    totalBy.set(k, (totalBy.get(k) ?? 0) + t);
  }
}
const show = (title, map) => {
  console.log(`\n${title} (of ${total.toFixed(1)} ms sampled)`);
  [...map].filter(([k]) => !filter || k.includes(filter)).sort((a, b) => b[1] - a[1]).slice(0, top)
    .forEach(([k, t]) => console.log(`${t.toFixed(1).padStart(8)} ms ${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`));
};
show("self time", selfBy);
show("total time", totalBy);
