#!/usr/bin/env node
/**
 * `npm run fake-model [-- --port 8790]`: the scripted model of scripts/lib/fake-model.mjs on
 * 127.0.0.1, for trying LLM_* without keys. Prints the .dev.vars lines to point the worker
 * at it (either style); stop it with Ctrl-C.
 */
import { startFakeModel } from "./lib/fake-model.mjs";

const at = process.argv.indexOf("--port");
const port = at > 0 ? Number(process.argv[at + 1]) : 8790;
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error("usage: npm run fake-model -- [--port <0-65535>]");
  process.exit(2);
}
const model = await startFakeModel({ port, log: (line) => console.log(`  ${line}`) });
console.log(`fake model listening on ${model.url} (OpenAI and Anthropic wire styles)

Put either pair in .dev.vars, then restart wrangler dev (it reads .dev.vars only at start):
  LLM_BASE_URL=${model.url}/v1   LLM_STYLE=openai      LLM_MODEL=fake-model
  LLM_BASE_URL=${model.url}      LLM_STYLE=anthropic   LLM_MODEL=fake-model   (/v1 is appended)

It answers "call <tool> {json}" with that call, a message naming a tool (refund, delete,
order …) with a call of it, a tool result with "The tool said: …". Ctrl-C stops it.`);
