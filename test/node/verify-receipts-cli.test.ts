/**
 * `toolnexus-edge verify-receipts` as a user runs it (issue 30 item 4): the bin bundled as the
 * package builds it, spawned by plain Node, on an export it accepts and on one with a line
 * edited, dropped or moved, or a tail cut — each refused with the first bad line named.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReceiptDraft } from "../../src/edge/receipts/receipt";
import { receiptJwks, receiptKeys } from "../../src/edge/receipts/receipt-keys";
import { nextReceipt, signReceipt } from "../../src/edge/receipts/sign";
import { toBase64Url, fromBase64Url } from "../../src/edge/approvals/base64url";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SEED = Buffer.from(Array.from({ length: 32 }, (_, i) => i + 7)).toString("base64");
let dir = "";
let bin = "";
let keysFile = "";
let server: Server | undefined;
let keysUrl = "";
/** Five receipts of two threads, interleaved as the export interleaves them. */
const lines: string[] = [];

function draft(threadId: string, n: number): ReceiptDraft {
  return {
    threadId,
    runId: `${threadId}.run_x`,
    requestId: `apr_${n}`,
    tool: "refund",
    argsHash: "h",
    agentVersion: "v1",
    rule: null,
    decision: n % 2 ? "approved" : "declined",
    channel: "webhook",
  };
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "verify-receipts-"));
  bin = path.join(dir, "toolnexus-edge.mjs");
  await build({
    entryPoints: [path.join(ROOT, "src/cli/bin.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: bin,
    logLevel: "silent",
  });
  const keys = await receiptKeys(SEED);
  const [key] = keys;
  if (!key) {
    throw new Error("no key");
  }
  const heads = new Map<string, { seq: number; jws: string }>();
  for (const [i, thread] of ["th_a", "th_b", "th_a", "th_a", "th_b"].entries()) {
    const head = heads.get(thread) ?? null;
    const at = new Date(Date.UTC(2026, 6, 1, 10, 0, i)).toISOString();
    const jws = await signReceipt(nextReceipt(head, draft(thread, i), at), key);
    heads.set(thread, { seq: (head?.seq ?? 0) + 1, jws });
    lines.push(JSON.stringify(jws));
  }
  keysFile = path.join(dir, "keys.json");
  writeFileSync(keysFile, JSON.stringify(receiptJwks(keys)));
  server = createServer((_req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(receiptJwks(keys)));
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  keysUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/.well-known/receipt-keys.json`;
}, 60_000);

afterAll(() => {
  server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, text: string): string {
  const full = path.join(dir, name);
  writeFileSync(full, text);
  return full;
}

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { encoding: "utf8" }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** The line with one field of its receipt changed, the signature kept (an edit). */
function edited(line: string): string {
  const [header, payload, signature] = (JSON.parse(line) as string).split(".");
  const receipt = JSON.parse(new TextDecoder().decode(fromBase64Url(payload ?? "") ?? undefined));
  receipt.decision = "approved";
  receipt.reason = "edited";
  const forged = toBase64Url(new TextEncoder().encode(JSON.stringify(receipt)));
  return JSON.stringify(`${header}.${forged}.${signature}`);
}

describe("toolnexus-edge verify-receipts", { timeout: 30_000 }, () => {
  it("accepts the NDJSON export, with keys from a file or a URL", async () => {
    const ndjson = file("export.ndjson", `${lines.join("\n")}\n`);
    const fromFile = await cli("verify-receipts", ndjson, "--keys", keysFile);
    expect(fromFile).toEqual({
      code: 0,
      stdout: "ok: 5 receipts in 2 threads verified\n",
      stderr: "",
    });
    const fromUrl = await cli(
      "verify-receipts",
      ndjson,
      `--keys=${keysUrl}`,
      "--expect-count",
      "5",
    );
    expect(fromUrl.code).toBe(0);
    expect(fromUrl.stdout).toBe("ok: 5 receipts in 2 threads verified (5 expected)\n");
  });

  it("accepts a run's JSON, and finds a cut tail against its receiptCount", async () => {
    const receipts = lines.map((l) => JSON.parse(l) as string);
    const ok = file("run.json", JSON.stringify({ receipts, receiptCount: 5 }));
    expect((await cli("verify-receipts", ok, "--keys", keysFile)).code).toBe(0);
    const cut = file(
      "cut.json",
      JSON.stringify({ receipts: receipts.slice(0, 4), receiptCount: 5 }),
    );
    expect(await cli("verify-receipts", cut, "--keys", keysFile)).toMatchObject({
      code: 1,
      stderr: "receipt 5: truncated: 4 receipts, 5 expected (the tail is missing)\n",
    });
    const cutNdjson = file("cut.ndjson", lines.slice(0, 4).join("\n"));
    expect(
      await cli("verify-receipts", cutNdjson, "--keys", keysFile, "--expect-count", "5"),
    ).toMatchObject({
      code: 1,
      stderr: "end of file: truncated: 4 receipts, 5 expected (the tail is missing)\n",
    });
  });

  it("rejects an edited line, naming it", async () => {
    const tampered = [...lines];
    tampered[2] = edited(lines[2] ?? "");
    const result = await cli(
      "verify-receipts",
      file("edited.ndjson", tampered.join("\n")),
      "--keys",
      keysFile,
    );
    expect(result).toEqual({
      code: 1,
      stdout: "",
      stderr: "line 3: the signature does not verify (the receipt was altered)\n",
    });
  });

  it("rejects a line dropped inside a chain", async () => {
    const dropped = lines.filter((_, i) => i !== 2); // th_a's seq 2
    const result = await cli(
      "verify-receipts",
      file("dropped.ndjson", dropped.join("\n")),
      "--keys",
      keysFile,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "line 3: thread th_a: seq 3 after seq 1 (1 missing, or out of order)\n",
    );
  });

  it("rejects reordered lines", async () => {
    const moved = [lines[0], lines[1], lines[3], lines[2], lines[4]];
    const result = await cli(
      "verify-receipts",
      file("moved.ndjson", moved.join("\n")),
      "--keys",
      keysFile,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "line 3: thread th_a: seq 3 after seq 1 (1 missing, or out of order)\n",
    );
    // Swapped outright: the later one first.
    const swapped = [lines[2], lines[1], lines[0], lines[3], lines[4]];
    const second = await cli(
      "verify-receipts",
      file("swapped.ndjson", swapped.join("\n")),
      "--keys",
      keysFile,
    );
    expect(second).toMatchObject({
      code: 1,
      stderr: "line 3: thread th_a: seq 1 after seq 2 (reordered or repeated)\n",
    });
  });

  it("refuses a line that is not a JSON string, and says how it is used", async () => {
    const bad = file("bad.ndjson", `${lines[0]}\nnot json\n`);
    expect(await cli("verify-receipts", bad, "--keys", keysFile)).toMatchObject({
      code: 1,
      stderr: "line 2: not JSON (each line is one JSON string)\n",
    });
    const noKeys = await cli("verify-receipts", bad);
    expect(noKeys.code).toBe(2);
    expect(noKeys.stderr).toMatch(/--keys is required/);
    const unknown = await cli("sign-everything");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "sign-everything"[\s\S]*verify-receipts/);
  });
});
