/**
 * The `toolnexus-edge` command (package bin): `init` writes a new worker project
 * (src/cli/init/command.ts); `sign-decision` signs a decision for POST /v1/decisions;
 * `verify-receipts` checks exported decision receipts (src/cli/verify-receipts.ts);
 * `policy-replay` evaluates a candidate policy against them (src/cli/policy-replay.ts). The Node side lives here — where the key comes from, printing,
 * sending; src/cli/sign-decision.ts does the signing. `io` is injectable for tests.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { checkKeySecret } from "../edge/secret-key";
import {
  SIGN_DECISION_USAGE,
  curlCommand,
  decisionsUrl,
  parseSignDecisionArgs,
  signDecision,
} from "./sign-decision";
import { init } from "./init/command";
import type { CliIo } from "./io";
import { verifyReceipts } from "./verify-receipts";
import { policyReplay } from "./policy-replay";

export type { CliIo } from "./io";

const USAGE = `usage: toolnexus-edge <command>
commands:
  init <dir>        write a new worker project (wrangler.toml, .dev.vars, an agent, a test)
  sign-decision     sign a decision for POST /v1/decisions (prints curl, or --send)
  verify-receipts   check the signatures and chains of exported decision receipts
  policy-replay     what a candidate policy would change in recorded decisions

${SIGN_DECISION_USAGE}`;

/** Runs one command line; resolves to the exit code (0 ok, 1 failed, 2 bad usage). */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    io.out(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command === "init") {
    return init(rest, io);
  }
  if (command === "verify-receipts") {
    return verifyReceipts(rest, io);
  }
  if (command === "policy-replay") {
    return policyReplay(rest, io);
  }
  if (command !== "sign-decision") {
    io.err(`toolnexus-edge: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
    return 2;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    io.out(SIGN_DECISION_USAGE);
    return 0;
  }
  const parsed = parseSignDecisionArgs(rest);
  if (!parsed.ok) {
    io.err(`toolnexus-edge sign-decision: ${parsed.error}\n\n${SIGN_DECISION_USAGE}`);
    return 2;
  }
  const key = readSigningKey(io, parsed.command.devVars);
  if (!key.ok) {
    io.err(`toolnexus-edge sign-decision: ${key.reason}`);
    return 1;
  }
  const signed = await signDecision(key.secret, parsed.command.decision);
  const { send } = parsed.command;
  if (send === undefined) {
    io.err(`# signed with WEBHOOK_SECRET from ${key.source}; valid for 5 minutes`);
    io.out(curlCommand(parsed.command.url, signed));
    return 0;
  }
  let response: Response;
  try {
    response = await io.fetch(decisionsUrl(send), {
      method: "POST",
      headers: signed.headers,
      body: signed.body,
    });
  } catch (error) {
    io.err(
      `toolnexus-edge sign-decision: POST ${decisionsUrl(send)} failed: ${(error as Error).message}`,
    );
    return 1;
  }
  io.out(`${response.status} ${await response.text()}`);
  return response.ok ? 0 : 1;
}

/** $WEBHOOK_SECRET, else the last WEBHOOK_SECRET line of .dev.vars; its first value signs. */
function readSigningKey(
  io: CliIo,
  devVars: string | undefined,
): { ok: true; secret: string; source: string } | { ok: false; reason: string } {
  let value = devVars === undefined ? io.env.WEBHOOK_SECRET : undefined;
  let source = "$WEBHOOK_SECRET";
  if (!value) {
    const file = path.resolve(io.cwd, devVars ?? ".dev.vars");
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      return {
        ok: false,
        reason: `no key: WEBHOOK_SECRET is not set and ${file} cannot be read (npm start writes one; or pass --dev-vars <file>)`,
      };
    }
    value = lastValue(text, "WEBHOOK_SECRET");
    source = file;
    if (!value) {
      return { ok: false, reason: `no WEBHOOK_SECRET line with a value in ${file}` };
    }
  }
  const [secret] = value.split(/\s+/).filter(Boolean);
  const checked = checkKeySecret("WEBHOOK_SECRET", secret ?? "");
  return checked.ok && secret
    ? { ok: true, secret, source }
    : { ok: false, reason: checked.ok ? "WEBHOOK_SECRET is empty" : checked.reason };
}

/** The value of the last `NAME=value` line (dotenv: a later line wins), quotes removed. */
function lastValue(text: string, name: string): string | undefined {
  let found: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (match?.[1] !== name) {
      continue;
    }
    let value = (match[2] ?? "").trim();
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.indexOf(quote, 1) > 0) {
      value = value.slice(1, value.indexOf(quote, 1));
    } else {
      value = value.replace(/\s+#.*$/, "");
    }
    found = value;
  }
  return found;
}
