/**
 * Which of the worker's modules run when the worker starts, in the bundle `wrangler deploy`
 * builds (issue 26, cold start). esbuild keeps a module that is reachable through a dynamic
 * `import()` in a lazy wrapper (`__esm`) that runs on first use; this builds the worker
 * without minifying (so the wrappers keep their module paths), records each wrapper that
 * runs, and imports the bundle in a fresh Node process with a `cloudflare:workers` stub.
 *
 *   node scripts/startup-modules.mjs    lists the lazy modules that did not run at start-up
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const SELF = fileURLToPath(import.meta.url);

const STUB = `export class DurableObject { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }
export class WorkerEntrypoint { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }
export class WorkflowEntrypoint { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }
export const env = {};
`;
// `cloudflare:email` (src/edge/email/send.ts builds the messages the EMAIL binding sends).
const EMAIL_STUB = `export class EmailMessage { constructor(from, to, raw) { this.from = from; this.to = to; this.raw = raw; } }
`;

// esbuild's lazy-module helper, as it emits it unminified; the recording copy notes the
// module path (the name of the wrapper's only method) the first time the wrapper runs.
const HELPER = `var __esm = (fn, res) => function __init() {
  return fn && (res = (0, fn[__getOwnPropNames(fn)[0]])(fn = 0)), res;
};`;
const RECORDING = `var __esm = (fn, res) => function __init() {
  if (fn) (globalThis.__startupModules ??= []).push(__getOwnPropNames(fn)[0]);
  return fn && (res = (0, fn[__getOwnPropNames(fn)[0]])(fn = 0)), res;
};`;

const relative = (module) => module.replace(/^.*node_modules\//, "");

/**
 * `lazy`: every module the bundle holds in a lazy wrapper; `evaluated`: those of them that
 * ran while the worker module was imported (modules outside wrappers always run);
 * `collations`: localeCompare calls and Intl.Collator constructions during the import.
 */
export function startupModules() {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), "toolnexus-startup-"));
  try {
    execFileSync(
      path.join(ROOT, "node_modules", ".bin", "wrangler"),
      ["deploy", "--dry-run", "--no-minify", "--outdir", outdir],
      {
        cwd: ROOT,
        encoding: "utf8",
        timeout: 180_000,
        env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const code = fs.readFileSync(path.join(outdir, "worker.js"), "utf8");
    if (!code.includes(HELPER)) {
      throw new Error("esbuild's __esm helper changed shape: update scripts/startup-modules.mjs");
    }
    const lazy = [...code.matchAll(/^ {2}"([^"]+)"\(\) \{$/gm)].map((m) => relative(m[1]));
    fs.writeFileSync(path.join(outdir, "cloudflare-workers-stub.mjs"), STUB);
    fs.writeFileSync(path.join(outdir, "cloudflare-email-stub.mjs"), EMAIL_STUB);
    const instrumented = path.join(outdir, "instrumented.mjs");
    fs.writeFileSync(
      instrumented,
      code
        .replace(HELPER, RECORDING)
        .replaceAll(/(["'])cloudflare:workers\1/g, JSON.stringify("./cloudflare-workers-stub.mjs"))
        .replaceAll(/(["'])cloudflare:email\1/g, JSON.stringify("./cloudflare-email-stub.mjs")),
    );
    const out = execFileSync(process.execPath, [SELF, "--child", instrumented], {
      encoding: "utf8",
      timeout: 60_000,
    });
    const { modules, collations } = JSON.parse(out);
    return { lazy, evaluated: modules.map(relative), collations };
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
}

if (process.argv[1] === SELF) {
  if (process.argv[2] === "--child") {
    // A collation (localeCompare, Intl.Collator) builds ICU data on first use: tens of ms.
    let collations = 0;
    const localeCompare = String.prototype.localeCompare;
    String.prototype.localeCompare = function (...args) {
      collations += 1;
      return localeCompare.apply(this, args);
    };
    Intl.Collator = new Proxy(Intl.Collator, {
      apply(target, self, args) {
        collations += 1;
        return Reflect.apply(target, self, args);
      },
      construct(target, args, newTarget) {
        collations += 1;
        return Reflect.construct(target, args, newTarget);
      },
    });
    const worker = await import(pathToFileURL(process.argv[3]).href);
    if (typeof worker.default?.fetch !== "function") {
      throw new Error("the bundle has no default fetch handler");
    }
    process.stdout.write(
      JSON.stringify({ modules: globalThis.__startupModules ?? [], collations }),
    );
  } else {
    const startup = startupModules();
    const { lazy, evaluated } = startup;
    const ran = new Set(evaluated);
    const idle = lazy.filter((m) => !ran.has(m));
    const { collations } = startup;
    console.log(`${lazy.length} lazy modules, ${evaluated.length} of them ran at start-up`);
    console.log(`${collations} collations (localeCompare, Intl.Collator) at start-up`);
    console.log(`not evaluated at start-up (${idle.length}):`);
    for (const module of idle) {
      console.log(`  ${module}`);
    }
  }
}
