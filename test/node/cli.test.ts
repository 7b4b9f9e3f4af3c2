/**
 * The `toolnexus-edge` command's Node side (src/cli/main.ts): where the key comes from
 * ($WEBHOOK_SECRET, else .dev.vars), what it prints, what `--send` posts, exit codes.
 * test/edge/sign-decision.test.ts posts what it signs to the worker (202);
 * scripts/example-check.mjs runs the installed bin against `wrangler dev`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main, type CliIo } from "../../src/cli/main";
import { verifyWebhook } from "../../src/edge/notify/webhooks";

const KEY = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const DEV_KEY = "whsec_ZGV2LW9ubHktc2VjcmV0LWNoYW5nZS1tZS1wbGVhc2UhIQ==";
const dir = mkdtempSync(path.join(tmpdir(), "toolnexus-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function io(env: Record<string, string | undefined> = {}, fetch?: typeof globalThis.fetch) {
  const out: string[] = [];
  const err: string[] = [];
  const value: CliIo = {
    env,
    cwd: dir,
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    fetch: fetch ?? (async () => new Response("unused")),
  };
  return { io: value, out, err };
}

const ARGS = [
  "sign-decision",
  "--run",
  "th_a.run_b",
  "--request",
  "req_1",
  "--decision",
  "approve",
];

/** The headers and body a printed curl command carries (the test's own curl is single-quoted). */
function curlParts(text: string) {
  const headers = new Headers();
  for (const [, name, value] of text.matchAll(/-H '([^:]+): ([^']*)'/g)) {
    headers.set(name!, value!);
  }
  const body = /--data-binary '(.*)'$/.exec(text)![1]!;
  return { headers, body };
}

describe("toolnexus-edge sign-decision", () => {
  it("signs with $WEBHOOK_SECRET and prints a curl command the worker's check accepts", async () => {
    const { io: cli, out, err } = io({ WEBHOOK_SECRET: `${KEY} ${DEV_KEY}` });
    expect(await main([...ARGS, "--by", "ann@example.com"], cli)).toBe(0);
    expect(out[0]).toMatch(/^curl -s 'http:\/\/localhost:8787\/v1\/decisions' \\\n/);
    const { headers, body } = curlParts(out[0]!);
    expect(JSON.parse(body)).toEqual({
      runId: "th_a.run_b",
      requestId: "req_1",
      decision: "approve",
      decidedBy: "ann@example.com",
    });
    await expect(verifyWebhook(KEY, headers, body)).resolves.toMatchObject({
      id: expect.any(String),
    });
    expect(err.join("\n")).toContain("$WEBHOOK_SECRET");
  });

  it("without $WEBHOOK_SECRET reads the last WEBHOOK_SECRET line of ./.dev.vars", async () => {
    writeFileSync(
      path.join(dir, ".dev.vars"),
      `API_TOKEN=x\nWEBHOOK_SECRET=\n# appended by npm start\nWEBHOOK_SECRET="${DEV_KEY}"\n`,
    );
    const { io: cli, out } = io();
    expect(await main(ARGS, cli)).toBe(0);
    const { headers, body } = curlParts(out[0]!);
    await expect(verifyWebhook(DEV_KEY, headers, body)).resolves.toBeDefined();
  });

  it("--send posts the signed decision and prints the status and body", async () => {
    const seen: Request[] = [];
    const { io: cli, out } = io({ WEBHOOK_SECRET: KEY }, async (input, init) => {
      seen.push(new Request(input as string, init));
      return Response.json({ duplicate: false }, { status: 202 });
    });
    expect(await main([...ARGS, "--send", "http://127.0.0.1:8788/"], cli)).toBe(0);
    expect(seen[0]!.url).toBe("http://127.0.0.1:8788/v1/decisions");
    const body = await seen[0]!.text();
    await expect(verifyWebhook(KEY, seen[0]!.headers, body)).resolves.toBeDefined();
    expect(out).toEqual(['202 {"duplicate":false}']);
  });

  it("a refused decision exits 1 with the service's answer", async () => {
    const { io: cli, out } = io({ WEBHOOK_SECRET: KEY }, async () =>
      Response.json({ error: { code: "already_decided", message: "x" } }, { status: 409 }),
    );
    expect(await main([...ARGS, "--send", "http://127.0.0.1:1"], cli)).toBe(1);
    expect(out[0]).toMatch(/^409 /);
  });

  it("a weak or missing key exits 1 and says why; bad usage exits 2", async () => {
    const weak = io({ WEBHOOK_SECRET: "supersecret" });
    expect(await main(ARGS, weak.io)).toBe(1);
    expect(weak.err[0]).toMatch(/WEBHOOK_SECRET is too short: 8 bytes.*openssl rand -base64 32/);
    const missing = io();
    expect(await main([...ARGS, "--dev-vars", "nowhere/.dev.vars"], missing.io)).toBe(1);
    expect(missing.err[0]).toMatch(/cannot be read/);
    const usage = io({ WEBHOOK_SECRET: KEY });
    expect(await main(["sign-decision", "--run", "r"], usage.io)).toBe(2);
    expect(await main(["verify-everything"], usage.io)).toBe(2);
    expect(usage.err.join("\n")).toMatch(/unknown command "verify-everything"/);
  });
});
