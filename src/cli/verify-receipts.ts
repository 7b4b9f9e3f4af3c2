/**
 * `toolnexus-edge verify-receipts <file> --keys <url|file> [--expect-count <n>]`: checks an
 * export of decision receipts without trusting the service that made it — each signature
 * against the published keys, each thread's chain (`seq`, `prev`) — and exits non-zero naming
 * the first bad line (docs/receipts.md).
 *
 * The file is the NDJSON export of `GET /v1/receipts` (one JSON string, a JWS, per line) or a
 * run's `GET /v1/runs/:runId/receipts` JSON (`{ receipts: [...] }`, with `receiptCount` from
 * `GET /v1/runs/:id` added to find a cut tail). Exit 0: verified; 1: a bad receipt or line;
 * 2: usage, unreadable input or keys.
 */
import { readFile } from "node:fs/promises";
import { importJwks, verifyReceiptChain } from "../edge/receipts/verify";

export const USAGE =
  "usage: toolnexus-edge verify-receipts <file> --keys <url|file> [--expect-count <n>]";

export interface CommandIo {
  out(line: string): void;
  err(line: string): void;
}

class UsageError extends Error {}

export async function verifyReceipts(argv: readonly string[], io: CommandIo): Promise<number> {
  let options: Options;
  try {
    options = parseArgs(argv);
  } catch (error) {
    io.err((error as Error).message);
    io.err(USAGE);
    return 2;
  }
  if (options.help) {
    io.out(USAGE);
    return 0;
  }
  let input: Input;
  let keys: Map<string, CryptoKey>;
  try {
    input = parseInput(await readFile(options.file, "utf8"), options.file);
    keys = await importJwks(await loadJwks(options.keys));
  } catch (error) {
    if (error instanceof BadLine) {
      io.err(`${error.where}: ${error.message}`);
      return 1;
    }
    io.err(`verify-receipts: ${(error as Error).message}`);
    return 2;
  }
  if (keys.size === 0) {
    io.err(`verify-receipts: ${options.keys} holds no Ed25519 keys`);
    return 2;
  }
  const expectCount = options.expectCount ?? input.receiptCount;
  const verdict = await verifyReceiptChain(
    input.receipts.map((r) => r.jws),
    keys,
    expectCount === undefined ? {} : { expectCount },
  );
  if (!verdict.ok) {
    const at = input.receipts[verdict.index];
    const where = at
      ? at.where
      : input.kind === "ndjson"
        ? "end of file"
        : `receipt ${verdict.index + 1}`;
    io.err(`${where}: ${verdict.problem}`);
    return 1;
  }
  io.out(
    `ok: ${verdict.receipts} receipt${verdict.receipts === 1 ? "" : "s"} in ${verdict.threads} thread${verdict.threads === 1 ? "" : "s"} verified${expectCount === undefined ? "" : ` (${expectCount} expected)`}`,
  );
  return 0;
}

interface Options {
  file: string;
  keys: string;
  expectCount?: number;
  help?: true;
}

function parseArgs(argv: readonly string[]): Options {
  const positional: string[] = [];
  let keys: string | undefined;
  let expectCount: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "-h" || arg === "--help") {
      return { file: "", keys: "", help: true };
    }
    const [flag, inline] = arg.startsWith("--") ? splitFlag(arg) : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === "") {
        throw new UsageError(`${flag} needs a value`);
      }
      return v;
    };
    if (flag === "--keys") {
      keys = value();
    } else if (flag === "--expect-count") {
      const v = value();
      if (!/^[0-9]{1,9}$/.test(v)) {
        throw new UsageError(`--expect-count must be a whole number, got ${JSON.stringify(v)}`);
      }
      expectCount = Number(v);
    } else if (arg.startsWith("-") && arg !== "-") {
      throw new UsageError(`unknown option ${arg}`);
    } else {
      positional.push(arg);
    }
  }
  if (positional.length !== 1) {
    throw new UsageError(positional.length === 0 ? "which file?" : "one file at a time");
  }
  if (!keys) {
    throw new UsageError(
      "--keys is required (the JWKS: GET /.well-known/receipt-keys.json, or a saved copy)",
    );
  }
  return { file: positional[0] ?? "", keys, ...(expectCount === undefined ? {} : { expectCount }) };
}

function splitFlag(arg: string): [string, string | undefined] {
  const eq = arg.indexOf("=");
  return eq < 0 ? [arg, undefined] : [arg.slice(0, eq), arg.slice(eq + 1)];
}

/** A receipt and where it was in the file, for the message that names it. */
interface Input {
  kind: "ndjson" | "run";
  receipts: Array<{ jws: string; where: string }>;
  receiptCount?: number;
}

class BadLine extends Error {
  constructor(
    readonly where: string,
    message: string,
  ) {
    super(message);
  }
}

function parseInput(text: string, file: string): Input {
  if (text.trimStart().startsWith("{")) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      throw new Error(`${file} is not JSON: ${(error as Error).message}`);
    }
    const { receipts, receiptCount } = body as { receipts?: unknown; receiptCount?: unknown };
    if (!Array.isArray(receipts)) {
      throw new Error(`${file} has no receipts array (expected { receipts: [...] })`);
    }
    if (receiptCount !== undefined && !Number.isSafeInteger(receiptCount)) {
      throw new Error(`${file}: receiptCount is not a whole number`);
    }
    return {
      kind: "run",
      receipts: receipts.map((jws, i) => {
        if (typeof jws !== "string") {
          throw new BadLine(`receipt ${i + 1}`, "not a string (a compact JWS)");
        }
        return { jws, where: `receipt ${i + 1}` };
      }),
      ...(receiptCount === undefined ? {} : { receiptCount: receiptCount as number }),
    };
  }
  const receipts: Input["receipts"] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.replace(/\r$/, "");
    if (line.trim() === "") {
      return; // the final newline, or blank lines between pages pasted together
    }
    let jws: unknown;
    try {
      jws = JSON.parse(line);
    } catch {
      throw new BadLine(`line ${i + 1}`, "not JSON (each line is one JSON string)");
    }
    if (typeof jws !== "string") {
      throw new BadLine(`line ${i + 1}`, "not a JSON string (a compact JWS)");
    }
    receipts.push({ jws, where: `line ${i + 1}` });
  });
  return { kind: "ndjson", receipts };
}

async function loadJwks(source: string): Promise<unknown> {
  if (/^https?:\/\//i.test(source)) {
    const response = await fetch(source, { headers: { accept: "application/json" } });
    if (!response.ok) {
      throw new Error(`GET ${source} answered ${response.status}`);
    }
    return response.json();
  }
  const text = await readFile(source, "utf8");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${source} is not JSON: ${(error as Error).message}`);
  }
}
