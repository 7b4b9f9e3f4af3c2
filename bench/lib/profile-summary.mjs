/**
 * Summarizes a V8 .cpuprofile (from `node --cpu-prof`): the top functions by self
 * time and by total (inclusive) time, with their source location.
 *
 *   node lib/profile-summary.mjs file.cpuprofile [--top 30] [--filter text] [--bundle file.js]
 *
 * Self time is also grouped by source module for frames in an esbuild bundle: each
 * module's code follows a "// path/to/module.ts" comment there. `--bundle` names the
 * bundle file when the profile's URLs are not local paths (e.g. a workerd profile).
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";

const [file] = process.argv.slice(2);
const top = Number(process.argv[process.argv.indexOf("--top") + 1]) || 30;
const filterAt = process.argv.indexOf("--filter");
const filter = filterAt > 0 ? process.argv[filterAt + 1] : undefined;
const profile = JSON.parse(fs.readFileSync(file, "utf8"));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) {
  for (const c of n.children ?? []) {
    parent.set(c, n.id);
  }
}

const self = new Map();
const deltas = profile.timeDeltas;
profile.samples.forEach((id, i) => {
  self.set(id, (self.get(id) ?? 0) + (deltas[i] ?? 0) / 1000);
});
const total = [...self.values()].reduce((a, b) => a + b, 0);

const key = (n) => {
  const f = n.callFrame;
  const where = f.url
    ? `${f.url.replace(/^.*\//, "")}:${f.lineNumber + 1}:${f.columnNumber + 1}`
    : "";
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
    if (seen.has(k)) {
      continue;
    }
    seen.add(k);
    totalBy.set(k, (totalBy.get(k) ?? 0) + t);
  }
}
const show = (title, map) => {
  console.log(`\n${title} (of ${total.toFixed(1)} ms sampled)`);
  [...map]
    .filter(([k]) => !filter || k.includes(filter))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([k, t]) => {
      console.log(
        `${t.toFixed(1).padStart(8)} ms ${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`,
      );
    });
};
show("self time", selfBy);
show("total time", totalBy);

// Self time by bundled source module.
const bundleArg =
  process.argv.indexOf("--bundle") > 0
    ? process.argv[process.argv.indexOf("--bundle") + 1]
    : undefined;
const modulesOf = new Map();
function moduleAt(url, line) {
  let file =
    bundleArg && !url.startsWith("file:") && !url.startsWith("node:") && url !== ""
      ? bundleArg
      : undefined;
  if (!file && url.startsWith("file:")) {
    file = fileURLToPath(url);
  }
  if (!file || !fs.existsSync(file)) {
    return undefined;
  }
  if (!modulesOf.has(file)) {
    const starts = [];
    fs.readFileSync(file, "utf8")
      .split("\n")
      .forEach((text, i) => {
        const m =
          /^\/\/ ((?:\.\.\/)*(?:src|durable|node_modules|bench)\/\S+\.(?:ts|js|mjs|cjs))$/.exec(
            text,
          );
        if (m) {
          starts.push([i, m[1].replace(/^(\.\.\/)+/, "")]);
        }
      });
    modulesOf.set(file, starts);
  }
  const starts = modulesOf.get(file);
  let lo = 0,
    hi = starts.length - 1,
    found;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid][0] <= line) {
      found = starts[mid][1];
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found ?? "(bundle prelude)";
}
const byModule = new Map();
let idle = 0;
for (const [id, t] of self) {
  const f = byId.get(id).callFrame;
  if (f.functionName === "(idle)") {
    idle += t;
  }
  const mod = moduleAt(f.url, f.lineNumber);
  if (!mod) {
    continue;
  }
  const group = mod.startsWith("node_modules/")
    ? mod
        .split("/")
        .slice(0, mod.split("/")[1].startsWith("@") ? 3 : 2)
        .join("/")
    : mod;
  byModule.set(group, (byModule.get(group) ?? 0) + t);
}
if (byModule.size) {
  const inBundle = [...byModule.values()].reduce((a, b) => a + b, 0);
  console.log(
    `\nself time in bundled modules: ${inBundle.toFixed(1)} ms = ${((100 * inBundle) / (total - idle)).toFixed(1)}% of ${(total - idle).toFixed(1)} ms busy (not idle)`,
  );
  [...byModule]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([k, t]) => {
      console.log(
        `${t.toFixed(1).padStart(8)} ms ${((100 * t) / (total - idle)).toFixed(1).padStart(5)}%  ${k}`,
      );
    });
}
