#!/usr/bin/env node
/**
 * `npm run check:dev`: the approve story against the REAL worker under `wrangler dev`
 * (workerd forbids eval/new Function there, which the test pool allows). Starts
 * wrangler on a free port, runs start → pending → signed approve → done, prints
 * PASS or FAIL, stops wrangler. Bounded: gives up after 90 s whatever happens.
 */
import { createClient } from "./lib/api.mjs";
import { RUNTIME_ERROR, startDevServer } from "./lib/dev-server.mjs";
import { approveFlow } from "./lib/flows.mjs";
import { startReceiver } from "./lib/receiver.mjs";

const LIMIT_MS = 90_000;
let server;
let receiver;

const watchdog = setTimeout(async () => {
  console.error(`FAIL: check:dev did not finish within ${LIMIT_MS / 1000}s`);
  if (server) {
    console.error(server.tail());
  }
  await server?.stop();
  process.exit(1);
}, LIMIT_MS);

const say = (line) => console.log(`  ${line}`);
let failure;
try {
  console.log("check:dev — starting wrangler dev …");
  server = await startDevServer({ timeoutMs: 60_000, log: say });
  receiver = await startReceiver({ secrets: server.notifySecrets });
  const client = createClient({
    baseUrl: server.url,
    apiToken: server.apiToken,
    webhookSecret: server.webhookSecrets[0],
  });
  await approveFlow({ client, receiver, say });
  const problem = RUNTIME_ERROR.exec(server.output());
  if (problem) {
    throw new Error(`wrangler dev logged a runtime error (${problem[0]}):\n${server.tail()}`);
  }
} catch (error) {
  failure = error;
} finally {
  await receiver?.close();
  await server?.stop();
  clearTimeout(watchdog);
}

if (failure) {
  console.error(`FAIL: ${failure.message}`);
  if (server && !failure.message.includes("\n")) {
    console.error(`--- wrangler dev output (last lines) ---\n${server.tail()}`);
  }
  process.exit(1);
}
console.log("PASS: start → pending → signed approve → done under wrangler dev");
