#!/usr/bin/env node
/**
 * `npm run check:starter` (and .ci/run): `npx toolnexus-edge init` works first time, checked
 * exactly as a user meets it. Packs this package (`npm pack` of a fresh build), runs the
 * packed bin's `init` into a new folder outside the repository (`npm exec --package
 * <tarball>`, as `npx` does), installs the project with the tarball in place of the registry's
 * version (`npm install <tarball>`: its dev tools — wrangler, TypeScript, workers-types — at
 * the versions init wrote, this repository's own pins, from the npm cache `npm ci` filled),
 * then the project's own scripts: `npm run typecheck` (wrangler types + strict tsc) and
 * `npm test` (its test starts `wrangler dev`, suspends a refund on its sub-agent's
 * approval, approves it with a signed webhook, and sees the run finish). Prints each step's time.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT } from "./lib/dev-vars.mjs";

const LIMIT_MS = 600_000;
const work = mkdtempSync(path.join(tmpdir(), "toolnexus-starter-"));
const project = path.join(work, "my-agents");
const times = [];
const started = Date.now();

const watchdog = setTimeout(() => {
  console.error(`FAIL: check:starter did not finish within ${LIMIT_MS / 1000}s`);
  rmSync(work, { recursive: true, force: true });
  process.exit(1);
}, LIMIT_MS);

async function step(name, fn) {
  const t0 = Date.now();
  const value = await fn();
  times.push(`${name} ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  console.log(`  ✓ ${name}`);
  return value;
}

/** A command's output; on failure, the error carries what it printed. */
function sh(command, args, cwd) {
  try {
    return execFileSync(command, args, {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1", npm_config_audit: "false", npm_config_fund: "false" },
    });
  } catch (error) {
    throw new Error(
      `${command} ${args.join(" ")} failed in ${cwd}:\n${error.stdout ?? ""}${error.stderr ?? ""}`,
    );
  }
}

let failure;
try {
  console.log("check:starter — npx toolnexus-edge init, from the packed package");
  const tarball = await step("npm pack (builds dist/)", () => {
    sh("npm", ["run", "--silent", "build"], ROOT);
    const [info] = JSON.parse(
      sh("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", work], ROOT),
    );
    return path.join(work, info.filename);
  });
  await step("npx toolnexus-edge init my-agents", () => {
    const said = sh(
      "npm",
      ["exec", "--yes", "--prefer-offline", "--package", tarball, "--", "toolnexus-edge"].concat([
        "init",
        "my-agents",
      ]),
      work,
    );
    if (!existsSync(path.join(project, "wrangler.toml")) || !said.includes("npm test")) {
      throw new Error(`init wrote no project:\n${said}`);
    }
  });
  await step("init refuses the folder now that it is not empty", () => {
    try {
      execFileSync(process.execPath, [path.join(ROOT, "dist/cli.mjs"), "init", "my-agents"], {
        cwd: work,
        stdio: "pipe",
      });
    } catch (error) {
      if (error.status === 1 && String(error.stderr).includes("is not empty")) {
        return;
      }
      throw new Error(`init into a non-empty folder: ${error.status} ${error.stderr}`);
    }
    throw new Error("init into a non-empty folder succeeded");
  });
  await step("npm install <tarball> (and the project's dev tools)", () =>
    sh("npm", ["install", tarball, "--prefer-offline"], project),
  );
  const installed = JSON.parse(
    readFileSync(path.join(project, "node_modules/toolnexus-edge/package.json"), "utf8"),
  );
  if (installed.version !== JSON.parse(readFileSync(path.join(ROOT, "package.json"))).version) {
    throw new Error(`installed toolnexus-edge ${installed.version}, not this checkout's`);
  }
  await step("npm run typecheck (wrangler types + strict tsc)", () =>
    sh("npm", ["run", "typecheck"], project),
  );
  await step("npm test (wrangler dev: suspend → signed decision → done)", () =>
    sh("npm", ["test"], project),
  );
} catch (error) {
  failure = error;
} finally {
  clearTimeout(watchdog);
  rmSync(work, { recursive: true, force: true });
}

if (failure) {
  console.error(`FAIL: ${failure.message}`);
  process.exit(1);
}
console.log(
  `PASS: the starter installs from the packed package, type-checks and takes a decision under wrangler dev (${((Date.now() - started) / 1000).toFixed(1)}s: ${times.join(", ")})`,
);
