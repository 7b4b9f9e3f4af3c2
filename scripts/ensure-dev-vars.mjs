#!/usr/bin/env node
// `npm start` runs this first: wrangler dev reads .dev.vars, which is git-ignored.
import { ensureDevVars } from "./lib/dev-vars.mjs";

if (ensureDevVars()) {
  console.log(
    "Created .dev.vars from .dev.vars.example (local development values; no keys needed: the demo model runs offline).",
  );
}
