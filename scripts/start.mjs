#!/usr/bin/env node
/**
 * `npm start`: `.dev.vars` made or completed (as ./ensure-dev-vars.mjs does), then `wrangler dev` on
 * exactly port 8787 (or the one after `npm start -- --port`). When the port is taken it fails
 * at once, saying so, instead of wrangler's silent move to the next free port: the README's
 * curl lines, the demo and the clients all talk to 8787. Other arguments go to wrangler as
 * they are.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { ensureDevVars, ROOT } from "./lib/dev-vars.mjs";
import { portTaken, requestedPort } from "./lib/port.mjs";

const args = process.argv.slice(2);
const port = requestedPort(args);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error(`npm start: --port must be a port number, got ${JSON.stringify(args)}`);
  process.exit(2);
}
if (await portTaken(port)) {
  console.error(
    [
      "",
      `✘ npm start: port ${port} is already in use (another \`npm start\` or wrangler dev?).`,
      `  Stop it, or start on another port: npm start -- --port ${port + 1}`,
      `  (then point clients there, e.g. DEMO_URL=http://localhost:${port + 1} npm run demo).`,
      "",
    ].join("\n"),
  );
  process.exit(1);
}
for (const line of ensureDevVars()) {
  console.log(`${line} (local development values; the demo model runs offline)`);
}
console.log(`\ntoolnexus-edge: wrangler dev on http://localhost:${port}\n`);
// An explicit --port: wrangler then fails (never drifts) should the port be taken meanwhile.
const asked = args.some((a) => a === "-p" || a === "--port" || a.startsWith("--port="));
const rest = asked ? args : ["--port", String(port), ...args];
const child = spawn(
  process.execPath,
  [path.join(ROOT, "node_modules/wrangler/bin/wrangler.js"), "dev", ...rest],
  { cwd: ROOT, stdio: "inherit" },
);
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
