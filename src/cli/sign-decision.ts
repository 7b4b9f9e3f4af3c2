/**
 * `toolnexus-edge sign-decision`: a decision for POST /v1/decisions, signed per Standard
 * Webhooks with the same code the worker verifies with (src/edge/notify/webhooks.ts), so signing
 * by hand needs no openssl/xxd pipeline. This file is the pure part (arguments → body,
 * headers, curl text; web-standard APIs only); src/cli/main.ts reads the key and prints or
 * sends.
 */
import { webhookHeaders } from "../edge/notify/webhooks";

export const SIGN_DECISION_USAGE = `usage: toolnexus-edge sign-decision --run <runId> --request <requestId> --decision approve|decline|cancel
         [--by <member>] [--reason <text>] [--data <JSON>] [--args <JSON object>] [--args-hash <hash>]
         [--url <service base, default http://localhost:8787>] [--send <service base or decisions URL>]
         [--dev-vars <file, default ./.dev.vars>]
  The key: $WEBHOOK_SECRET when set, else the last WEBHOOK_SECRET line of .dev.vars (the first
  of several space-separated values, the one that signs). Prints a ready curl command, or with
  --send posts the decision and prints the response.`;

export interface DecisionArgs {
  runId: string;
  requestId: string;
  decision: "approve" | "decline" | "cancel";
  decidedBy?: string;
  reason?: string;
  data?: unknown;
  args?: Record<string, unknown>;
  argsHash?: string;
}

export interface SignDecisionCommand {
  decision: DecisionArgs;
  /** Where the curl command points (the service's base URL). */
  url: string;
  /** Set: post it there instead of printing a curl command. */
  send?: string;
  devVars?: string;
}

const DECISIONS = ["approve", "decline", "cancel"] as const;
const VALUED = new Set([
  "--run",
  "--request",
  "--decision",
  "--by",
  "--reason",
  "--data",
  "--args",
  "--args-hash",
  "--url",
  "--send",
  "--dev-vars",
]);

/** Parses the command's arguments; an error says which flag is wrong (exit code 2). */
export function parseSignDecisionArgs(
  argv: readonly string[],
): { ok: true; command: SignDecisionCommand } | { ok: false; error: string } {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i] as string;
    const [name, inline] = flag.startsWith("--") && flag.includes("=") ? splitOnce(flag) : [flag];
    if (!VALUED.has(name)) {
      return { ok: false, error: `unknown argument ${JSON.stringify(flag)}` };
    }
    const value = inline ?? argv[++i];
    if (value === undefined) {
      return { ok: false, error: `${name} needs a value` };
    }
    if (flags.has(name)) {
      return { ok: false, error: `${name} given twice` };
    }
    flags.set(name, value);
  }
  const runId = flags.get("--run");
  const requestId = flags.get("--request");
  const decision = flags.get("--decision");
  if (!runId || !requestId || !decision) {
    return { ok: false, error: "--run, --request and --decision are required" };
  }
  if (!(DECISIONS as readonly string[]).includes(decision)) {
    return {
      ok: false,
      error: `--decision must be approve, decline or cancel, got ${JSON.stringify(decision)}`,
    };
  }
  const body: DecisionArgs = { runId, requestId, decision: decision as DecisionArgs["decision"] };
  const by = flags.get("--by");
  if (by !== undefined) {
    body.decidedBy = by;
  }
  const reason = flags.get("--reason");
  if (reason !== undefined) {
    body.reason = reason;
  }
  for (const name of ["--data", "--args"] as const) {
    const text = flags.get(name);
    if (text === undefined) {
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { ok: false, error: `${name} is not JSON: ${text.slice(0, 80)}` };
    }
    if (name === "--args") {
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        return { ok: false, error: "--args must be a JSON object (the tool's full arguments)" };
      }
      body.args = value as Record<string, unknown>;
    } else {
      body.data = value;
    }
  }
  const argsHash = flags.get("--args-hash");
  if (argsHash !== undefined) {
    body.argsHash = argsHash;
  }
  const url = flags.get("--url") ?? "http://localhost:8787";
  for (const [name, value] of [
    ["--url", url],
    ["--send", flags.get("--send")],
  ] as const) {
    if (value !== undefined && !isHttpUrl(value)) {
      return { ok: false, error: `${name} is not an http(s) URL: ${JSON.stringify(value)}` };
    }
  }
  const send = flags.get("--send");
  const devVars = flags.get("--dev-vars");
  return {
    ok: true,
    command: {
      decision: body,
      url,
      ...(send === undefined ? {} : { send }),
      ...(devVars === undefined ? {} : { devVars }),
    },
  };
}

/** The decisions URL of a service: its base plus /v1/decisions (a full decisions URL is kept). */
export function decisionsUrl(base: string): string {
  const trimmed = base.replace(/\/+$/, "");
  return trimmed.endsWith("/v1/decisions") ? trimmed : `${trimmed}/v1/decisions`;
}

/** The body (serialized once: the signature covers these exact bytes) and its signed headers. */
export async function signDecision(
  secret: string,
  decision: DecisionArgs,
  options: { id?: string; now?: number } = {},
): Promise<{ body: string; headers: Record<string, string> }> {
  const body = JSON.stringify(decision);
  return { body, headers: await webhookHeaders(secret, body, options) };
}

/** A curl command a POSIX shell runs as is (every value single-quoted). */
export function curlCommand(
  url: string,
  signed: { body: string; headers: Record<string, string> },
): string {
  const lines = [`curl -s ${quote(decisionsUrl(url))}`];
  for (const [name, value] of Object.entries(signed.headers)) {
    lines.push(`  -H ${quote(`${name}: ${value}`)}`);
  }
  lines.push(`  --data-binary ${quote(signed.body)}`);
  return lines.join(" \\\n");
}

/** POSIX single quotes: a quote inside becomes '\'' (close, escaped quote, reopen). */
function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

function splitOnce(flag: string): [string, string] {
  const at = flag.indexOf("=");
  return [flag.slice(0, at), flag.slice(at + 1)];
}

function isHttpUrl(text: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}
