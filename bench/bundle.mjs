/**
 * Scenario 5 — bundle. Builds the deployable worker with
 * `wrangler deploy --dry-run --minify --outdir` (the real worker at the root; the bare
 * pipeline worker in bench/pipeline-baseline as the baseline), reports minified and
 * gzipped sizes, and approximates startup (module evaluation) in Node: the bundle's
 * `cloudflare:workers` import is pointed at a small stub, and a fresh Node process
 * times `import()` of it (parse + compile + top-level evaluation), once per sample.
 *
 *   node bundle.mjs [--samples 30]
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { BENCH, ROOT } from "./lib/build.mjs";
import { childResult } from "./lib/child.mjs";
import { summarize, table, ms, ratio, kib, mib, arg, machine } from "./lib/stats.mjs";

const STUB = `export class DurableObject { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }
export class WorkerEntrypoint { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }
export class WorkflowEntrypoint { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }
export const env = {};
`;
// src/edge/email/send.ts builds its message with cloudflare:email (only when an email is sent).
const EMAIL_STUB = `export class EmailMessage { constructor(from, to, raw) { this.from = from; this.to = to; this.raw = raw; } }
`;

function wranglerBin() {
  const local = path.join(ROOT, "node_modules", ".bin", "wrangler");
  if (!fs.existsSync(local)) {
    throw new Error("wrangler not found: run `npm ci` at the repository root first");
  }
  return local;
}

/**
 * The bundle's minified bytes per dependency, from esbuild's metafile (wrangler's
 * `--metafile`): npm packages by name, the product's own code by folder.
 */
function byDependency(metafile) {
  const meta = JSON.parse(fs.readFileSync(metafile, "utf8"));
  const [, output] = Object.entries(meta.outputs).find(([file]) => file.endsWith(".js"));
  const sizes = new Map();
  for (const [file, info] of Object.entries(output.inputs)) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1];
    const own = /^(src\/(?:core|edge|client)|durable)\//.exec(file)?.[1] ?? file;
    const key = pkg === "zod" && /\/locales\//.test(file) ? "zod (locales)" : (pkg ?? own);
    sizes.set(key, (sizes.get(key) ?? 0) + info.bytesInOutput);
  }
  return [...sizes].sort((a, b) => b[1] - a[1]);
}

/** The ten input modules with the most bytes in the bundle: where the next regression shows. */
function largestModules(metafile) {
  const meta = JSON.parse(fs.readFileSync(metafile, "utf8"));
  const [, output] = Object.entries(meta.outputs).find(([file]) => file.endsWith(".js"));
  return Object.entries(output.inputs)
    .map(([file, info]) => [file.replace(/^.*node_modules\//, ""), info.bytesInOutput])
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10);
}

/** Builds one worker; returns the bundle path, its sizes and wrangler's own size line. */
function buildWorker(label, cwd, outdir, minify = true) {
  fs.rmSync(outdir, { recursive: true, force: true });
  const metafile = path.join(outdir, "meta.json");
  const output = execFileSync(
    wranglerBin(),
    [
      "deploy",
      "--dry-run",
      // wrangler.toml minifies; --no-minify shows what that setting is worth.
      minify ? "--minify" : "--no-minify",
      "--outdir",
      outdir,
      "--metafile",
      metafile,
    ],
    {
      cwd,
      encoding: "utf8",
      timeout: 180_000,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const main = fs
    .readdirSync(outdir)
    .filter((f) => f.endsWith(".js") && !f.endsWith(".map"))
    .map((f) => path.join(outdir, f));
  const code = Buffer.concat(main.map((f) => fs.readFileSync(f)));
  const wrangler = /Total Upload: ([^\n]+)/.exec(output)?.[1]?.trim() ?? "?";
  const stubbed = path.join(outdir, "stubbed.mjs");
  fs.writeFileSync(path.join(outdir, "cloudflare-workers-stub.mjs"), STUB);
  fs.writeFileSync(path.join(outdir, "cloudflare-email-stub.mjs"), EMAIL_STUB);
  const text = fs
    .readFileSync(main[0], "utf8")
    .replaceAll(/(["'])cloudflare:workers\1/g, JSON.stringify("./cloudflare-workers-stub.mjs"))
    .replaceAll(/(["'])cloudflare:email\1/g, JSON.stringify("./cloudflare-email-stub.mjs"));
  fs.writeFileSync(stubbed, text);
  return {
    label,
    files: main.length,
    minified: code.length,
    gzip: zlib.gzipSync(code, { level: 9 }).length,
    wrangler,
    stubbed,
    mcp: /elicitation\/create/.test(text),
    dependencies: fs.existsSync(metafile) ? byDependency(metafile) : [],
    largest: fs.existsSync(metafile) ? largestModules(metafile) : [],
  };
}

/**
 * The same bundle parsed but never evaluated: its code as the body of a function nobody
 * calls (V8 still reads and pre-parses all of it). Its import time is the floor that
 * laziness cannot go under; only fewer bytes lower it.
 */
function parsedOnly(build, outdir) {
  const file = path.join(outdir, "parsed-only.mjs");
  writeParsedOnly(fs.readFileSync(build.stubbed, "utf8"), file);
  return { ...build, label: "the worker parsed, not evaluated (startup's floor)", stubbed: file };
}

/**
 * Writes `code` as the body of a function nobody calls, with its static imports and its
 * export list taken out (they are not allowed there); returns the body. Wherever esbuild left
 * an import (a lazy module's stay where that module starts), it goes; dynamic import() stays.
 */
function writeParsedOnly(code, file) {
  const text = code
    .replaceAll(
      /import\s*(?:\*\s*as\s+[\w$]+|\{[^}]*\}|[\w$]+(?:\s*,\s*(?:\{[^}]*\}|\*\s*as\s+[\w$]+))?)\s*from\s*"[^"]*";?|import\s*"[^"]*";?/g,
      "",
    )
    .replace(/export\{[^}]*\};?/, "");
  fs.writeFileSync(file, `export default { fetch() {} };\nfunction notCalled() {\n${text}\n}\n`);
  return text;
}

/**
 * The product's own code alone (src/, durable/), minified as wrangler minifies it, with every
 * npm package left out, parsed but never evaluated. No dependency swap and no laziness can take
 * startup under this row; only less product code can.
 */
async function ownCodeParsedOnly(outdir) {
  const { build } = await import("esbuild");
  fs.mkdirSync(outdir, { recursive: true });
  const outfile = path.join(outdir, "own-code.mjs");
  await build({
    entryPoints: [path.join(ROOT, "src", "worker.ts")],
    outfile,
    bundle: true,
    minify: true,
    format: "esm",
    platform: "neutral",
    conditions: ["workerd", "worker", "browser"],
    packages: "external",
    external: ["cloudflare:*", "node:*"],
    logLevel: "error",
  });
  const file = path.join(outdir, "own-code-parsed-only.mjs");
  const text = writeParsedOnly(fs.readFileSync(outfile, "utf8"), file);
  const minified = Buffer.byteLength(text);
  return {
    label: "its own code alone (no npm package), parsed, not evaluated",
    files: 1,
    minified,
    gzip: zlib.gzipSync(text, { level: 9 }).length,
    wrangler: "—",
    stubbed: file,
    mcp: false,
    dependencies: [],
    largest: [],
  };
}

const importOnce = (file) =>
  childResult(path.join(BENCH, "lib", "import-bundle.mjs"), [file], `import of ${file}`, 30_000);

export async function main() {
  const samples = Number(arg("samples", 30));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "toolnexus-bundle-"));
  try {
    const builds = [
      buildWorker(
        "bare pipeline worker (baseline)",
        path.join(BENCH, "pipeline-baseline"),
        path.join(tmp, "baseline"),
      ),
      buildWorker("toolnexus-edge worker (src/worker.ts)", ROOT, path.join(tmp, "product")),
      buildWorker("the same, built with --no-minify", ROOT, path.join(tmp, "unminified"), false),
    ];
    builds.push(parsedOnly(builds[1], path.join(tmp, "product")));
    builds.push(await ownCodeParsedOnly(path.join(tmp, "own")));
    const startup = builds.map(() => []);
    const cpu = builds.map(() => []);
    const heap = builds.map(() => []);
    for (let i = 0; i < samples; i += 1) {
      for (const [j, b] of builds.entries()) {
        const m = await importOnce(b.stubbed);
        startup[j].push(m.ms);
        cpu[j].push(m.cpuMs);
        heap[j].push(m.heap);
      }
    }
    const [base] = builds;
    const baseStart = summarize(startup[0]);
    const baseCpu = summarize(cpu[0]);
    const baseHeap = summarize(heap[0]);
    const rows = builds.map((b, j) => {
      const s = summarize(startup[j]);
      const c = summarize(cpu[j]);
      const h = summarize(heap[j]);
      return [
        b.label,
        kib(b.minified),
        kib(b.gzip),
        ratio(b.gzip, base.gzip),
        b.wrangler,
        b.mcp ? "yes" : "no",
        ms(s.median),
        ms(s.p95),
        ratio(s.median, baseStart.median),
        ms(c.median),
        ratio(c.median, baseCpu.median),
        mib(h.median),
        ratio(h.median, baseHeap.median),
      ];
    });
    const out = table(
      `Bundle — wrangler deploy --dry-run --minify; startup = import() of the bundle in a fresh Node process with a cloudflare:workers stub (${samples} samples each)`,
      [
        "worker",
        "minified KiB",
        "gzip -9 KiB",
        "gzip ×baseline",
        "wrangler's report",
        "MCP client in bundle",
        "startup median ms",
        "startup p95 ms",
        "startup ×baseline",
        "startup CPU median ms",
        "startup CPU ×baseline",
        "heap after import MiB",
        "heap ×baseline",
      ],
      rows,
    );
    const product = builds[1];
    const deps = table(
      "Bundle by dependency — the minified worker's bytes per npm package (product code by folder), from wrangler's --metafile",
      ["dependency", "minified KiB", "share"],
      product.dependencies.map(([name, bytes]) => [
        name,
        kib(bytes),
        `${((100 * bytes) / product.minified).toFixed(1)} %`,
      ]),
    );
    const largest = table(
      "The ten largest modules of the minified worker (esbuild's bytes in output per input file)",
      ["module", "minified KiB", "share"],
      product.largest.map(([name, bytes]) => [
        name,
        kib(bytes),
        `${((100 * bytes) / product.minified).toFixed(1)} %`,
      ]),
    );
    console.log(out);
    console.log(deps);
    console.log(largest);
    console.log(`machine: ${machine()}\n`);
    return `${out}\n${deps}\n${largest}`;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
}
