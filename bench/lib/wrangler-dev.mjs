/**
 * Starts a worker under `wrangler dev` (the root's wrangler; workerd with local
 * Durable Objects and queues) on free loopback ports with fresh state, waits until it
 * answers, and stops it (its whole process group, by id). Bounded in time.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { ROOT } from "./build.mjs";
import { freePort } from "../../scripts/lib/dev-server.mjs";

// The same helper `npm run check:dev` uses.
export { freePort } from "../../scripts/lib/dev-server.mjs";

/** KEY=value lines of a dotenv file (comments and blanks skipped). */
export function readVars(file) {
  const vars = {};
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    const m = /^\s*([A-Z_][A-Z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (m) {
      vars[m[1]] = m[2].replace(/^"(.*)"$/, "$1");
    }
  }
  return vars;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * @param {{ cwd: string, vars?: Record<string,string>, ready: string, timeoutMs?: number }} options
 *   `ready` is a path that answers (any status below 500) once the worker is up.
 */
export async function startWranglerDev(options) {
  // A free port is free when asked, not when wrangler binds it: with benches started side by
  // side (npm run bench:smoke runs three at a time) another server may take it in between.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (attempt >= 4 || !/Address already in use/.test(String(error?.message))) {
        throw error;
      }
    }
  }
}

async function startOnce({
  cwd,
  vars = {},
  ready,
  timeoutMs = 90_000,
  persistTo,
  outputChars = 20_000, // how much of wrangler's output `output()` keeps (the last characters)
}) {
  const bin = path.join(ROOT, "node_modules", ".bin", "wrangler");
  if (!fs.existsSync(bin)) {
    throw new Error("wrangler not found: run `npm ci` at the repository root first");
  }
  // `persistTo`: the caller's state folder, kept across restarts (bench/recovery.mjs).
  const state = persistTo ?? fs.mkdtempSync(path.join(os.tmpdir(), "toolnexus-bench-dev-"));
  const port = await freePort();
  const inspectorPort = await freePort();
  // A dev registry of its own: wrangler dev reloads workerd whenever another wrangler dev on the
  // machine registers or leaves the shared one (~/.wrangler/registry), answering requests in
  // flight with 503 "Your worker restarted mid-request"; these workers bind no other worker.
  const registry = fs.mkdtempSync(path.join(os.tmpdir(), "toolnexus-bench-registry-"));
  const args = [
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    String(inspectorPort),
    "--persist-to",
    state,
    "--show-interactive-dev-session=false",
    "--log-level",
    "warn",
    ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
  ];
  const child = spawn(bin, args, {
    cwd,
    detached: true, // its own process group: stop() ends workerd too
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      NO_COLOR: "1",
      FORCE_COLOR: "0",
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      WRANGLER_REGISTRY_PATH: registry,
    },
  });
  let output = "";
  const onData = (chunk) => {
    output = (output + chunk.toString("utf8")).slice(-outputChars);
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  let exited = false;
  const exit = new Promise((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  const kill = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {}
  };
  const onProcessExit = () => kill("SIGKILL");
  process.once("exit", onProcessExit);
  const stop = async () => {
    process.off("exit", onProcessExit);
    if (!exited) {
      kill("SIGTERM");
      await Promise.race([exit, sleep(5_000)]);
      kill("SIGKILL");
    }
    if (!persistTo) {
      fs.rmSync(state, { recursive: true, force: true });
    }
    fs.rmSync(registry, { recursive: true, force: true });
  };
  /** The process dies at once (SIGKILL to workerd too), its state left as it was. */
  const crash = async () => {
    process.off("exit", onProcessExit);
    kill("SIGKILL");
    await exit;
    fs.rmSync(registry, { recursive: true, force: true });
  };
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (exited) {
        throw new Error(`wrangler dev exited before it was ready:\n${output.slice(-3000)}`);
      }
      if (Date.now() > deadline) {
        throw new Error(
          `wrangler dev not ready within ${timeoutMs / 1000}s:\n${output.slice(-3000)}`,
        );
      }
      try {
        const res = await fetch(`${origin}${ready}`, { signal: AbortSignal.timeout(2_000) });
        await res.arrayBuffer();
        if (res.status < 500) {
          break;
        }
      } catch {}
      await sleep(250);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  // `pid`: wrangler's, which leads the process group that workerd runs in (edge-peers.mjs reads
  // the group's CPU time from /proc).
  return { origin, inspectorPort, pid: child.pid, stop, crash, output: () => output };
}

/**
 * Builds the worker in `dir` once (`wrangler deploy --dry-run --outdir`) into a fresh
 * temporary folder with a copy of its wrangler.toml pointing at the built module
 * (`no_bundle`). `wrangler dev` then serves that snapshot: edits made to the sources
 * while the benchmark runs cannot reload the worker mid-measurement. `minify: false`
 * builds it unminified, so that a CPU profile names the product's functions.
 */
export async function snapshotWorker(dir, { minify = true } = {}) {
  const { execFileSync } = await import("node:child_process");
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "toolnexus-bench-worker-"));
  execFileSync(
    path.join(ROOT, "node_modules", ".bin", "wrangler"),
    ["deploy", "--dry-run", "--outdir", out, ...(minify ? [] : ["--no-minify"])],
    {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 180_000,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
    },
  );
  const toml = fs
    .readFileSync(path.join(dir, "wrangler.toml"), "utf8")
    .replace(/^main\s*=.*$/m, 'main = "worker.js"\nno_bundle = true');
  fs.writeFileSync(path.join(out, "wrangler.toml"), toml);
  for (const f of fs.readdirSync(out)) {
    if (f.endsWith(".map")) {
      fs.rmSync(path.join(out, f));
    }
  }
  return { dir: out, remove: () => fs.rmSync(out, { recursive: true, force: true }) };
}
