#!/usr/bin/env node
// `npm run types` writes worker-configuration.d.ts; `npm run typecheck` runs this with
// --check first. Both read wrangler.toml and the variables .dev.vars.example names (plus the
// secrets `npm start` generates), never the developer's own .dev.vars: an optional value set
// there (LLM_*, SLACK_*, …) would otherwise enter the committed type, or fail the check on
// one machine and pass on another. Optional variables are typed in src/edge/settings/.
//
// Why not `wrangler types --check --env-file …`: wrangler 4.86's check ignores --env-file
// and always reads .dev.vars. So the check generates a second file next to the real one
// (same directory, so the same import paths) and compares the two headers' hashes.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DEV_VARS_EXAMPLE, GENERATED_SECRETS, parseDotenv, ROOT } from "./lib/dev-vars.mjs";

const TYPES = "worker-configuration.d.ts";
const CANDIDATE = "worker-configuration.check.d.ts";
const ENV_FILE = path.join(".wrangler", "types.env");
const WRANGLER = path.join(ROOT, "node_modules", ".bin", "wrangler");

const check = process.argv.includes("--check");

// Only the names matter to the types (secrets are typed `string`); the order is the example's.
const names = [
  ...Object.keys(parseDotenv(readFileSync(DEV_VARS_EXAMPLE, "utf8"))),
  ...Object.keys(GENERATED_SECRETS),
].filter((name, index, all) => all.indexOf(name) === index);
mkdirSync(path.join(ROOT, ".wrangler"), { recursive: true });
writeFileSync(path.join(ROOT, ENV_FILE), names.map((name) => `${name}=placeholder\n`).join(""));

const generate = (output) =>
  execFileSync(WRANGLER, ["types", output, "--include-runtime", "false", "--env-file", ENV_FILE], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });

if (!check) {
  generate(TYPES);
  console.log(`wrote ${TYPES} (variables: ${names.join(", ")})`);
} else {
  try {
    generate(CANDIDATE);
    const hashOf = (file) =>
      /\(hash: ([0-9a-f]+)\)/.exec(readFileSync(path.join(ROOT, file), "utf8"))?.[1];
    if (hashOf(CANDIDATE) !== hashOf(TYPES)) {
      console.error(`${TYPES} is out of date with wrangler.toml: run \`npm run types\``);
      process.exitCode = 1;
    } else {
      console.log(`${TYPES} is up to date`);
    }
  } finally {
    rmSync(path.join(ROOT, CANDIDATE), { force: true });
  }
}
