#!/usr/bin/env node
// `npm start` runs this first: wrangler dev reads .dev.vars, which is git-ignored.
import { ensureDevVars } from "./lib/dev-vars.mjs";

for (const line of ensureDevVars()) {
  console.log(`${line} (local development values; the demo model runs offline)`);
}
