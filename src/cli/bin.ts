#!/usr/bin/env node
/** The package's `toolnexus-edge` bin (built to dist/cli.mjs): see src/cli/main.ts. */
import { main } from "./main";

process.exitCode = await main(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  fetch,
});
