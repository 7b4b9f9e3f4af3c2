/**
 * Differential view of two V8 .cpuprofile files of the same workload count: self time
 * per function (name + location, bundle-agnostic for Node internals) in B minus A,
 * largest first. `--per N` divides by N (e.g. runs) to show µs per run.
 *
 *   node lib/profile-diff.mjs a.cpuprofile b.cpuprofile [--per 1000] [--top 30]
 */
import fs from "node:fs";

const [fa, fb] = process.argv.slice(2);
const per = Number(process.argv[process.argv.indexOf("--per") + 1]) || 1;
const top = Number(process.argv[process.argv.indexOf("--top") + 1]) || 30;
const load = (file) => {
  const p = JSON.parse(fs.readFileSync(file, "utf8"));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const out = new Map();
  p.samples.forEach((id, i) => {
    const f = byId.get(id).callFrame;
    const where = f.url ? `${f.url.replace(/^.*\//, "")}:${f.lineNumber + 1}` : "";
    const k = `${f.functionName || "(anonymous)"} ${where}`.trim();
    out.set(k, (out.get(k) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  });
  return out;
};
const a = load(fa);
const b = load(fb);
const keys = new Set([...a.keys(), ...b.keys()]);
const rows = [...keys].map((k) => [
  k,
  (b.get(k) ?? 0) - (a.get(k) ?? 0),
  a.get(k) ?? 0,
  b.get(k) ?? 0,
]);
const sum = (m) => [...m].filter(([k]) => !k.startsWith("(idle)")).reduce((s, [, v]) => s + v, 0);
console.log(
  `busy: A ${(sum(a) / per).toFixed(3)} ms, B ${(sum(b) / per).toFixed(3)} ms, B−A ${((sum(b) - sum(a)) / per).toFixed(3)} ms (per ${per === 1 ? "profile" : "unit"})`,
);
console.log("   B−A µs      A µs      B µs  function");
rows
  .filter(([k]) => !k.startsWith("(idle)"))
  .sort((x, y) => y[1] - x[1])
  .slice(0, top)
  .forEach(([k, d, x, y]) => {
    console.log(
      `${((1000 * d) / per).toFixed(1).padStart(8)}  ${((1000 * x) / per).toFixed(1).padStart(8)}  ${((1000 * y) / per).toFixed(1).padStart(8)}  ${k}`,
    );
  });
