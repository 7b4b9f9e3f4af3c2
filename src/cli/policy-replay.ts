/**
 * `toolnexus-edge policy-replay --receipts <file.ndjson> --policy <cedar dir|file|AuthZEN URL>
 * [--html <out.html>]`: what a candidate policy would have changed in the recorded decisions
 * (docs/policy.md, "Replay before switching"), per tool and group, with counts; `--html`
 * also writes a report with SVG charts. The receipts are the export of `GET /v1/receipts`
 * (one JWS per line, as a JSON string) or decoded receipts (one JSON object per line); check
 * them first with `verify-receipts`. An AuthZEN PDP gets `AUTHZEN_TOKEN` as its Bearer token.
 * Exit 0: replayed (changes or not); 2: usage, unreadable input or policy.
 */
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { authzenPolicy } from "../core/policy/authzen";
import type { ToolPolicy } from "../core/policy/types";
import { fromBase64Url } from "../edge/approvals/base64url";
import { replay } from "../edge/policy/replay/compare";
import { replayHtml } from "../edge/policy/replay/html";
import type { CliIo } from "./io";

export const POLICY_REPLAY_USAGE =
  "usage: toolnexus-edge policy-replay --receipts <file.ndjson> --policy <cedar dir | file.cedar | AuthZEN URL> [--html <out.html>]";

class UsageError extends Error {}

interface Options {
  receipts: string;
  policy: string;
  html?: string;
}

export async function policyReplay(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.out(POLICY_REPLAY_USAGE);
    return 0;
  }
  let options: Options;
  let candidate: ToolPolicy;
  let receipts: Record<string, unknown>[];
  try {
    options = parseArgs(argv);
    receipts = decodeReceipts(await readFile(path.resolve(io.cwd, options.receipts), "utf8"));
    candidate = await loadPolicy(options.policy, io);
    await candidate.check?.();
  } catch (error) {
    io.err(`policy-replay: ${(error as Error).message}`);
    if (error instanceof UsageError) {
      io.err(POLICY_REPLAY_USAGE);
    }
    return 2;
  }
  const report = await replay(receipts, candidate);
  const changed = report.replayable - report.unchanged - report.failed;
  io.out(
    `${report.receipts} receipts, ${report.replayable} replayable, ${report.unchanged} unchanged, ${changed} would change${report.failed ? `, ${report.failed} not answered by the candidate` : ""}`,
  );
  if (report.rows.length > 0) {
    const width = (key: "tool" | "group" | "change", min: number) =>
      Math.max(min, ...report.rows.map((r) => r[key].length));
    const [t, g, c] = [width("tool", 4), width("group", 5), width("change", 6)];
    io.out(`${"tool".padEnd(t)}  ${"group".padEnd(g)}  ${"change".padEnd(c)}  calls`);
    for (const row of report.rows) {
      io.out(
        `${row.tool.padEnd(t)}  ${row.group.padEnd(g)}  ${row.change.padEnd(c)}  ${row.count}`,
      );
    }
  }
  if (options.html) {
    await writeFile(
      path.resolve(io.cwd, options.html),
      replayHtml(report, { policy: options.policy }),
    );
    io.out(`report: ${options.html}`);
  }
  return 0;
}

function parseArgs(argv: readonly string[]): Options {
  const found: Partial<Options> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const eq = arg.indexOf("=");
    const [flag, inline] =
      arg.startsWith("--") && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    const key = { "--receipts": "receipts", "--policy": "policy", "--html": "html" }[flag] as
      | keyof Options
      | undefined;
    if (!key) {
      throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
    }
    const value = inline ?? argv[++i];
    if (!value) {
      throw new UsageError(`${flag} needs a value`);
    }
    found[key] = value;
  }
  if (!found.receipts || !found.policy) {
    throw new UsageError("--receipts and --policy are required");
  }
  return found as Options;
}

/** One receipt per line: a JWS as a JSON string (the export), or a receipt object. */
export function decodeReceipts(text: string): Record<string, unknown>[] {
  const receipts: Record<string, unknown>[] = [];
  text.split("\n").forEach((line, n) => {
    if (!line.trim()) {
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new Error(`line ${n + 1} is not JSON`);
    }
    if (typeof value === "string") {
      const payload = fromBase64Url(value.split(".")[1] ?? "");
      value = payload ? JSON.parse(new TextDecoder().decode(payload)) : undefined;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new Error(`line ${n + 1} is neither a receipt nor a JWS of one`);
    }
    receipts.push(value as Record<string, unknown>);
  });
  return receipts;
}

/** An http(s) URL is an AuthZEN PDP; a directory its `*.cedar` files; a file one Cedar text. */
async function loadPolicy(where: string, io: CliIo): Promise<ToolPolicy> {
  if (/^https?:\/\//.test(where)) {
    const token = io.env.AUTHZEN_TOKEN;
    return authzenPolicy({ url: where, fetch: io.fetch, ...(token ? { token } : {}) });
  }
  const full = path.resolve(io.cwd, where);
  const files: Record<string, string> = {};
  if ((await stat(full)).isDirectory()) {
    for (const name of (await readdir(full)).filter((f) => f.endsWith(".cedar")).sort()) {
      files[name] = await readFile(path.join(full, name), "utf8");
    }
    if (Object.keys(files).length === 0) {
      throw new Error(`${where} holds no .cedar file`);
    }
  } else {
    files[path.basename(full)] = await readFile(full, "utf8");
  }
  // Loaded only for a Cedar candidate: the engine's Node build reads its .wasm itself.
  const [cedar, { cedarPolicyWith }] = await Promise.all([
    import("@cedar-policy/cedar-wasm/nodejs"),
    import("../edge/policy/cedar/policy"),
  ]);
  return cedarPolicyWith(() => cedar, { policies: files });
}
