/**
 * Starts the real worker under `wrangler dev` (workerd, local Durable Objects, queues
 * and alarms) on a free loopback port, for checks and browser tests, and stops it.
 *
 * Startup is bounded: a wrangler that exits, fails to build or is not healthy within
 * `timeoutMs` rejects with the tail of its output, never hangs the caller.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT } from "./dev-vars.mjs";

/** A port nobody listens on right now (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** What workerd logs when the worker breaks at run time (eval is forbidden there, for one). */
export const RUNTIME_ERROR =
  /EvalError|Code generation from strings disallowed|Uncaught|500 Internal Server Error/;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ESC is the point (strips ANSI colour codes)
const ANSI = /\x1b\[[0-9;]*m/g;

/** The repository's wrangler, run with node: also for projects without their own (examples/worker in CI). */
const WRANGLER = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");

/**
 * What `wrangler dev` runs with in tests and checks, whatever the developer's .dev.vars
 * holds (an LLM_BASE_URL or PUBLIC_URL there would change what the checks see). The
 * vitest projects do the same (test/helpers/isolated-config.mjs).
 */
export const TEST_VARS = {
  API_TOKEN: "test-token",
  WEBHOOK_SECRET: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  NOTIFY_SECRET: "whsec_bm90aWZ5LW9ubHkgdGVzdCBrZXksIG5vdCBmb3IgZGVjaXNpb25z",
  CALLBACK_ALLOW: "127.0.0.1 localhost",
  RECEIPT_KEY: "F3HL9lvndctt0UUF3146arEoGToztgEFdYFQfT+IfcQ=",
  // The approver groups .dev.vars.example offers the demo agent's rules.
  APPROVER_GROUPS: JSON.stringify({
    finance: ["ann@example.com", { id: "bob", identities: ["bob@example.com"] }],
    "support-leads": ["lead@example.com"],
    managers: ["max@example.com"],
  }),
};

/**
 * The command line: wrangler's `--env-file` replaces .dev.vars (and .env) entirely, so
 * exactly `vars` reach the worker.
 */
export function devServerArgs({ port, inspectorPort, stateDir, envFile, config, script }) {
  return [
    WRANGLER,
    "dev",
    ...(script ? [script] : []),
    ...(config ? ["--config", config] : []),
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    String(inspectorPort),
    "--persist-to",
    path.join(stateDir, "state"),
    "--show-interactive-dev-session=false",
    "--log-level",
    "info",
    "--env-file",
    envFile,
  ];
}

/**
 * @param {{ timeoutMs?: number, log?: (line: string) => void, cwd?: string, vars?: Record<string, string>, stateDir?: string, config?: string, script?: string }} options
 *   `cwd`: the worker project (default: this repository); `vars`: exactly the variables
 *   the worker gets (default {@link TEST_VARS}); `stateDir`: where the local Durable
 *   Objects, queues and alarms persist — given, it is kept at stop(), so a second server
 *   started on it is the same deployment after a restart (default: a fresh temporary one);
 *   `config` and `script`: another wrangler configuration and entry module (a test
 *   fixture's), relative to `cwd`; `port`: listen there (a restarted server keeps its URL,
 *   so clients and sign-in redirects made before a restart still reach it; default: a free one).
 * @returns {Promise<{ url: string, port: number, apiToken: string, webhookSecrets: string[], notifySecrets: string[], output: () => string, stop: () => Promise<void>, crash: () => Promise<void> }>}
 */
export async function startDevServer({
  timeoutMs = 60_000,
  log = () => {},
  cwd = ROOT,
  vars = TEST_VARS,
  stateDir: keptStateDir,
  config,
  script,
  port: fixedPort,
} = {}) {
  const credentials = {
    apiToken: vars.API_TOKEN,
    webhookSecrets: (vars.WEBHOOK_SECRET ?? "").split(/\s+/).filter(Boolean),
    notifySecrets: (vars.NOTIFY_SECRET ?? "").split(/\s+/).filter(Boolean),
  };
  const stateDir = keptStateDir ?? mkdtempSync(path.join(tmpdir(), "toolnexus-dev-"));
  mkdirSync(stateDir, { recursive: true }); // a kept state folder may not exist before its first start
  const envFile = path.join(stateDir, "dev.vars");
  writeFileSync(
    envFile,
    Object.entries(vars)
      // Single quotes are literal in dotenv (a JSON value keeps its double quotes).
      .map(
        ([name, value]) => `${name}=${value.includes("'") ? JSON.stringify(value) : `'${value}'`}`,
      )
      .join("\n"),
    { mode: 0o600 },
  );
  const args = devServerArgs({
    port: fixedPort ?? (await freePort()),
    inspectorPort: await freePort(),
    stateDir,
    envFile,
    config,
    script,
  });
  log(`wrangler dev with the test configuration (${Object.keys(vars).join(", ")}), not .dev.vars`);
  const url = `http://127.0.0.1:${args[args.indexOf("--port") + 1]}`;

  const child = spawn(process.execPath, args, {
    cwd,
    detached: true, // its own process group, so stop() also ends workerd
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      NO_COLOR: "1",
      FORCE_COLOR: "0",
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false", // the Request.cf lookup needs the internet
    },
  });
  let output = "";
  const onData = (chunk) => {
    output += chunk.toString("utf8").replace(ANSI, "");
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  let exited = null;
  const exitPromise = new Promise((resolve) => {
    child.once("exit", (code, signal) => {
      exited = { code, signal };
      resolve();
    });
    child.once("error", (error) => {
      exited = { code: null, signal: null, error };
      output += `\nspawn error: ${error.message}`;
      resolve();
    });
  });
  const killGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const removeState = () => {
    if (keptStateDir) {
      return; // the caller's: a later server resumes from it
    }
    try {
      rmSync(stateDir, { recursive: true, force: true });
    } catch {
      // workerd may still be writing as it dies; a leftover temp dir is harmless
    }
  };
  // If the caller exits without stop() (a crash, process.exit), take wrangler along.
  const onExit = () => {
    killGroup("SIGKILL");
    removeState();
  };
  process.once("exit", onExit);

  let stopped = false;
  async function stop() {
    if (stopped) {
      return;
    }
    stopped = true;
    process.off("exit", onExit);
    if (!exited) {
      killGroup("SIGTERM");
      await Promise.race([exitPromise, sleep(5_000)]);
      killGroup("SIGKILL");
    }
    removeState();
  }
  /** Dies at once, as a machine would (SIGKILL to wrangler and workerd): no shutdown, the state kept as it was. */
  async function crash() {
    if (stopped) {
      return;
    }
    stopped = true;
    process.off("exit", onExit);
    killGroup("SIGKILL");
    await exitPromise;
    removeState();
  }
  const tail = (lines = 40) => output.trimEnd().split("\n").slice(-lines).join("\n");

  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (exited) {
        const how = exited.error
          ? exited.error.message
          : exited.signal
            ? `signal ${exited.signal}`
            : `code ${exited.code}`;
        throw new Error(`wrangler dev exited (${how}) before it was ready:\n${tail()}`);
      }
      if (/Build failed/.test(output)) {
        throw new Error(`wrangler dev could not build the worker:\n${tail()}`);
      }
      if (Date.now() > deadline) {
        throw new Error(
          `wrangler dev was not healthy at ${url}/healthz within ${timeoutMs / 1000}s:\n${tail()}`,
        );
      }
      try {
        const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) });
        if (response.ok) {
          break;
        }
        await response.body?.cancel();
      } catch {
        // not listening yet
      }
      await sleep(250);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  log(`wrangler dev is up at ${url}`);
  return {
    url,
    port: Number(args[args.indexOf("--port") + 1]),
    apiToken: credentials.apiToken,
    webhookSecrets: credentials.webhookSecrets,
    notifySecrets: credentials.notifySecrets,
    output: () => output,
    tail,
    stop,
    crash,
  };
}
