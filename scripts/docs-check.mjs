#!/usr/bin/env node
/**
 * `npm run check:docs` (and .ci/run): the docs are executed, so a doc that drifts from the
 * product fails CI. Every fenced block of README.md and docs/*.md is, by the rules of
 * scripts/lib/doc-blocks.mjs:
 *
 * - ts/js: type-checked, each block its own module, against the package's built types
 *   (`npm run build`; `toolnexus-edge`, `/core`, `/client` mapped to dist/), by the
 *   repository's TypeScript;
 * - json: parsed;
 * - sh: run in one bash session (`set -euo pipefail`, guides in the README's order, blocks
 *   in order, so `$RUN` from one block is there in the next) against a `wrangler dev` of
 *   this repository's worker that the check starts on a free port, with a `.dev.vars`
 *   written exactly as `npm start` writes it. Every curl fails the walk-through on an HTTP
 *   error, and `command  # → text` must print `text`. `npx toolnexus-edge` is the built bin;
 * - marked `<!-- illustrative: <reason> -->` on the line above: listed, not run;
 * - anything else: a failure.
 *
 * `node scripts/docs-check.mjs [--no-run] [files…]`: `--no-run` skips the walk-through
 * (no server); files default to README.md and docs/*.md.
 */
import { execFileSync, spawn } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { classify, extractBlocks, shellScript } from "./lib/doc-blocks.mjs";
import { startDevServer } from "./lib/dev-server.mjs";
import { ensureDevVars, parseDotenv, ROOT } from "./lib/dev-vars.mjs";

const LIMIT_MS = 300_000;
const args = process.argv.slice(2);
const run = !args.includes("--no-run");
const given = args.filter((arg) => !arg.startsWith("--"));

/** The README first, then the guides in the order its map lists them, then the rest. */
function docFiles() {
  if (given.length > 0) {
    return given.map((file) => path.relative(ROOT, path.resolve(file)));
  }
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  const mapped = [...readme.matchAll(/\]\((docs\/[\w.-]+\.md)\)/g)].map((m) => m[1]);
  const all = readdirSync(path.join(ROOT, "docs"))
    .filter((file) => file.endsWith(".md"))
    .map((file) => `docs/${file}`)
    .sort();
  return ["README.md", ...new Set([...mapped.filter((f) => all.includes(f)), ...all])];
}

const problems = [];
const counts = { typecheck: 0, run: 0, parse: 0, illustrative: 0 };
const typed = [];
const shell = [];

for (const file of docFiles()) {
  for (const block of extractBlocks(readFileSync(path.join(ROOT, file), "utf8"))) {
    const where = `${file}:${block.line}`;
    const what = classify(block);
    if (what.kind === "unmarked") {
      problems.push(`${where}: ${what.problem}`);
      continue;
    }
    counts[what.kind] += 1;
    if (what.kind === "parse") {
      try {
        JSON.parse(block.code);
      } catch (error) {
        problems.push(`${where}: the json block does not parse: ${error.message}`);
      }
    } else if (what.kind === "typecheck") {
      typed.push({ where, file, block, ...what });
    } else if (what.kind === "run") {
      shell.push({ where, file, block });
    }
  }
}

const watchdog = setTimeout(() => {
  console.error(`FAIL: check:docs did not finish within ${LIMIT_MS / 1000}s`);
  process.exit(1);
}, LIMIT_MS);

const sh = (command, argv, cwd = ROOT) =>
  execFileSync(command, argv, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

// The package's types (and the bin the walk-through runs) come from a fresh build.
sh("npm", ["run", "--silent", "build"]);

if (typed.length > 0) {
  problems.push(...typecheck(typed));
}
if (run && shell.length > 0 && problems.length === 0) {
  problems.push(...(await walkThrough(shell)));
}
clearTimeout(watchdog);

if (problems.length > 0) {
  console.error(`check:docs: ${problems.length} problem(s):\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(
  `check:docs: ${counts.typecheck} blocks type-checked, ${counts.parse} parsed, ${run ? counts.run : 0} run against wrangler dev${run ? "" : ` (${counts.run} not run: --no-run)`}, ${counts.illustrative} marked illustrative`,
);

/** Each ts/js block as its own module under .docs-check/, one tsc over all of them. */
function typecheck(blocks) {
  const dir = path.join(ROOT, ".docs-check");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const names = new Map();
  for (const { where, block, ext, given: declarations } of blocks) {
    const name = `${where.replace(/[/.:]/g, "_")}.${ext}`;
    names.set(name, where);
    // `export {}` makes every block a module (its own scope, top-level await allowed).
    writeFileSync(path.join(dir, name), `${block.code}\n${declarations}\nexport {};\n`);
  }
  writeFileSync(
    path.join(dir, "jsx.d.ts"),
    // The chat example's JSX, without React's types (react 19 ships none; nothing else needs them).
    "declare namespace JSX { interface IntrinsicElements { [element: string]: Record<string, unknown> } type Element = unknown; }\n",
  );
  const dist = (entry) => [path.join(ROOT, "dist", `${entry}.d.ts`)];
  writeFileSync(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2023",
        module: "ESNext",
        moduleResolution: "bundler",
        lib: ["ES2023", "DOM.Iterable"],
        types: ["@cloudflare/workers-types", "@types/node"],
        typeRoots: [path.join(ROOT, "node_modules/@types"), path.join(ROOT, "node_modules")],
        strict: true,
        allowJs: true,
        checkJs: true,
        jsx: "preserve",
        skipLibCheck: true,
        noEmit: true,
        paths: {
          "toolnexus-edge": dist("index"),
          "toolnexus-edge/core": dist("core"),
          "toolnexus-edge/client": dist("client"),
        },
      },
      include: ["*.ts", "*.tsx", "*.js", "*.jsx", path.join(ROOT, "worker-configuration.d.ts")],
    }),
  );
  try {
    sh(process.execPath, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", dir]);
    return [];
  } catch (error) {
    const output = `${error.stdout ?? ""}${error.stderr ?? ""}`;
    // `.docs-check/docs_kernel_md_10.ts(3,7): error …` → `docs/kernel.md:10 (block line 3): error …`
    const found = output
      .split("\n")
      .filter((line) => line.includes("error"))
      .map((line) =>
        line.replace(/^(?:\.docs-check\/)?([\w.-]+)\((\d+),\d+\)/, (all, name, row) =>
          names.has(name) ? `${names.get(name)} (block line ${row})` : all,
        ),
      );
    return found.length > 0 ? found : [`tsc failed:\n${output}`];
  }
}

/** The shell blocks, in order, in one bash session against a fresh `wrangler dev`. */
async function walkThrough(blocks) {
  const missing = ["bash", "curl", "jq", "openssl", "xxd"].filter((tool) => {
    try {
      execFileSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" });
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length > 0) {
    return [`the guides' walk-through needs ${missing.join(", ")} on PATH (apt-get install …)`];
  }
  const work = mkdtempSync(path.join(tmpdir(), "toolnexus-docs-"));
  // What `npm start` does first: .dev.vars from .dev.vars.example, secrets generated.
  ensureDevVars({ file: path.join(work, ".dev.vars") });
  const vars = parseDotenv(readFileSync(path.join(work, ".dev.vars"), "utf8"));
  // The rest of the clone the guides are read in, linked: its package.json (copied, so
  // `npx toolnexus-edge` is its own built bin), node_modules, dist/, src/, docs/ … — all but
  // its own .dev.vars and local state. Nothing comes from the network.
  copyFileSync(path.join(ROOT, "package.json"), path.join(work, "package.json"));
  for (const entry of readdirSync(ROOT)) {
    if (![".dev.vars", ".wrangler", ".git", "package.json"].includes(entry)) {
      symlinkSync(path.join(ROOT, entry), path.join(work, entry));
    }
  }
  let server;
  try {
    server = await startDevServer({ vars, timeoutMs: 90_000 });
    const script = [
      "set -euo pipefail",
      // Name the command that failed (its block is the last `--- file:line` printed).
      "trap 'echo \"check:docs: this command failed: $BASH_COMMAND\" >&2' ERR",
      // An HTTP error fails the walk-through (its body is still printed).
      'curl() { command curl --fail-with-body "$@"; }',
      '__expect() { case "$1" in *"$2"*) ;; *) echo "check:docs: $3 printed no \\"$2\\"" >&2; exit 1;; esac; }',
      ...blocks.map(({ where, file, block }) =>
        [
          `echo ${JSON.stringify(`--- ${where}`)}`,
          shellScript(block.code, { base: server.url, file, line: block.line }),
        ].join("\n"),
      ),
    ].join("\n");
    writeFileSync(path.join(work, "walk-through.sh"), script);
    const { code, output } = await bash(path.join(work, "walk-through.sh"), work);
    process.stdout.write(output);
    if (code !== 0) {
      return [
        `the shell walk-through failed (exit ${code}); wrangler dev's last lines:\n${server.tail(20)}`,
      ];
    }
    return [];
  } catch (error) {
    return [error.message];
  } finally {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

function bash(script, cwd) {
  return new Promise((resolve) => {
    const child = spawn("bash", [script], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, npm_config_yes: "false", npm_config_offline: "true" },
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.once("exit", (code) => resolve({ code, output }));
  });
}
