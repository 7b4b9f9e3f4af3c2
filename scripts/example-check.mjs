#!/usr/bin/env node
/**
 * `npm run check:example` (and .ci/run): docs/your-own-worker.md's path, proved.
 * Packs this library (`npm pack` builds it), installs the tarball into examples/worker
 * (`npm install <tarball>`, not a lockfile entry), runs the example's strict `tsc` and
 * `wrangler types --check`, then one suspend → decide → done flow under `wrangler dev`,
 * driven by the installed `toolnexus-edge/client`, decided by its installed
 * `toolnexus-edge sign-decision` bin. wrangler, workerd, TypeScript and
 * workers-types are the repository's (the example's devDependencies name the same
 * pinned versions for a project of its own). The worker runs with exactly the example's
 * `.dev.vars.example`, as after the README's `cp .dev.vars.example .dev.vars`. Prints how
 * long each step took.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { startDevServer } from "./lib/dev-server.mjs";
import { parseDotenv, ROOT } from "./lib/dev-vars.mjs";

const EXAMPLE = path.join(ROOT, "examples/worker");
const LIMIT_MS = 180_000;
// Exactly what a user starts with: `cp .dev.vars.example .dev.vars`. A secret the worker
// needs that the file lacks fails this check (it did for RECEIPT_KEY: issue 39).
const VARS = parseDotenv(readFileSync(path.join(EXAMPLE, ".dev.vars.example"), "utf8"));
const times = [];
const started = Date.now();
let server;
const pack = mkdtempSync(path.join(tmpdir(), "toolnexus-pack-"));

const watchdog = setTimeout(async () => {
  console.error(`FAIL: check:example did not finish within ${LIMIT_MS / 1000}s`);
  console.error(server?.tail());
  await server?.stop();
  process.exit(1);
}, LIMIT_MS);

async function step(name, fn) {
  const t0 = Date.now();
  const value = await fn();
  times.push(`${name} ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  console.log(`  ✓ ${name}`);
  return value;
}

const sh = (command, args, cwd) =>
  execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });

let failure;
try {
  console.log("check:example — examples/worker against the packed library");
  const tarball = await step("npm pack (builds dist/)", () => {
    sh("npm", ["run", "--silent", "build"], ROOT);
    const [info] = JSON.parse(
      sh("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", pack], ROOT),
    );
    return path.join(pack, info.filename);
  });
  await step("npm install <tarball> into examples/worker", () =>
    sh(
      "npm",
      [
        "install",
        tarball,
        "--no-save",
        "--no-package-lock",
        "--omit=dev",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
      ],
      EXAMPLE,
    ),
  );
  await step("wrangler types --check", () =>
    sh(
      process.execPath,
      [
        path.join(ROOT, "node_modules/wrangler/bin/wrangler.js"),
        "types",
        "--include-runtime",
        "false",
        "--check", // against the committed file (CI has no .dev.vars here, so: bindings only)
      ],
      EXAMPLE,
    ),
  );
  await step("tsc (strict)", () =>
    sh(process.execPath, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "."], EXAMPLE),
  );
  server = await step("wrangler dev", () =>
    startDevServer({ cwd: EXAMPLE, vars: VARS, timeoutMs: 60_000 }),
  );
  await step("suspend → decide → done", async () => {
    // The client as a consumer gets it: from the installed package.
    const { createApiClient } = await import(
      pathToFileURL(path.join(EXAMPLE, "node_modules/toolnexus-edge/dist/client.js")).href
    );
    const api = createApiClient({ baseUrl: server.url, token: VARS.API_TOKEN });
    const { runId } = await api.runs.start({
      agent: "accounts",
      input: "Please close the account of ann@example.com",
    });
    let request;
    for await (const event of api.runs.events(runId)) {
      if (event.event === "pending") {
        request = event.data.request;
        break;
      }
    }
    if (request?.prompt !== "Close the account of ann@example.com?") {
      throw new Error(`unexpected pending request ${JSON.stringify(request)}`);
    }
    // Signed and sent by the installed bin, as docs/getting-started.md shows: `npx toolnexus-edge sign-decision`.
    const sent = execFileSync(
      path.join(EXAMPLE, "node_modules/.bin/toolnexus-edge"),
      ["sign-decision", "--run", runId, "--request", request.id, "--decision", "approve"].concat([
        "--send",
        server.url,
      ]),
      {
        cwd: EXAMPLE,
        encoding: "utf8",
        env: { ...process.env, WEBHOOK_SECRET: VARS.WEBHOOK_SECRET },
      },
    );
    if (!sent.startsWith("202 ")) {
      throw new Error(`toolnexus-edge sign-decision --send answered ${sent}`);
    }
    let done;
    for await (const event of api.runs.events(runId)) {
      done = event;
    }
    const run = await api.runs.get(runId);
    if (
      done?.event !== "done" ||
      run.status !== "done" ||
      run.text !== "Account ann@example.com closed."
    ) {
      throw new Error(
        `run ended ${run.status} with ${JSON.stringify(run.text)} (${run.error?.code}: ${run.error?.message})`,
      );
    }
  });
} catch (error) {
  failure = error;
} finally {
  await server?.stop();
  rmSync(pack, { recursive: true, force: true });
  clearTimeout(watchdog);
}

if (failure) {
  console.error(`FAIL: ${failure.message}`);
  if (server) {
    console.error(`--- wrangler dev output (last lines) ---\n${server.tail()}`);
  }
  process.exit(1);
}
console.log(
  `PASS: examples/worker installs, type-checks and suspends → resumes under wrangler dev (${((Date.now() - started) / 1000).toFixed(1)}s: ${times.join(", ")})`,
);
