// `npm start` generates the signing secrets a fresh checkout lacks, appending to .dev.vars.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ensureDevVars, parseDotenv } from "../../scripts/lib/dev-vars.mjs";

function paths(existing?: string) {
  const dir = mkdtempSync(path.join(tmpdir(), "dev-vars-"));
  const example = path.join(dir, ".dev.vars.example");
  writeFileSync(example, "API_TOKEN=dev-token\n# WEBHOOK_SECRET=whsec_…\n");
  const file = path.join(dir, ".dev.vars");
  if (existing !== undefined) {
    writeFileSync(file, existing);
  }
  return { file, example };
}

const WHSEC = /^whsec_[A-Za-z0-9+/]{43}=$/;
/** RECEIPT_KEY: base64 of a 32-byte Ed25519 seed, no prefix. */
const SEED = /^[A-Za-z0-9+/]{43}=$/;

describe("ensureDevVars", () => {
  it("creates .dev.vars from the example with fresh, distinct secrets", () => {
    const { file, example } = paths();
    expect(ensureDevVars({ file, example })).toEqual([
      "created .dev.vars from .dev.vars.example",
      "generated WEBHOOK_SECRET into .dev.vars",
      "generated NOTIFY_SECRET into .dev.vars",
      "generated MCP_TOKEN_KEY into .dev.vars",
      "generated RECEIPT_KEY into .dev.vars",
      "added CALLBACK_ALLOW=127.0.0.1 localhost to .dev.vars",
    ]);
    const vars = parseDotenv(readFileSync(file, "utf8"));
    expect(vars.API_TOKEN).toBe("dev-token");
    expect(vars.WEBHOOK_SECRET).toMatch(WHSEC);
    expect(vars.NOTIFY_SECRET).toMatch(WHSEC);
    expect(vars.MCP_TOKEN_KEY).toMatch(WHSEC);
    expect(vars.RECEIPT_KEY).toMatch(SEED);
    expect(Buffer.from(vars.RECEIPT_KEY!, "base64")).toHaveLength(32);
    const keys = [vars.WEBHOOK_SECRET, vars.NOTIFY_SECRET, vars.MCP_TOKEN_KEY, vars.RECEIPT_KEY];
    expect(new Set(keys.map((k) => k!.replace(/^whsec_/, ""))).size).toBe(4);
    expect(ensureDevVars({ file, example })).toEqual([]); // idempotent
    expect(parseDotenv(readFileSync(file, "utf8"))).toEqual(vars);
  });

  it("appends only what is missing and leaves present lines byte for byte", () => {
    const before = "API_TOKEN=mine\nWEBHOOK_SECRET=whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"; // no final newline
    const { file, example } = paths(before);
    expect(ensureDevVars({ file, example })).toEqual([
      "generated NOTIFY_SECRET into .dev.vars",
      "generated MCP_TOKEN_KEY into .dev.vars",
      "generated RECEIPT_KEY into .dev.vars",
      "added CALLBACK_ALLOW=127.0.0.1 localhost to .dev.vars",
    ]);
    const after = readFileSync(file, "utf8");
    expect(after.startsWith(`${before}\n`)).toBe(true);
    const vars = parseDotenv(after);
    expect(vars.WEBHOOK_SECRET).toBe("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    expect(vars.NOTIFY_SECRET).toMatch(WHSEC);
  });

  it("appends a variable the example gained since .dev.vars was made, with its value", () => {
    const { file, example } = paths("API_TOKEN=mine\nLLM_BASE_URL=https://llm.example/v1\n");
    writeFileSync(
      example,
      "API_TOKEN=dev-token\n# WEBHOOK_SECRET=whsec_…\nNEW_FLAG=on\n# LATER=commented out\n",
    );
    expect(ensureDevVars({ file, example })).toEqual([
      "generated WEBHOOK_SECRET into .dev.vars",
      "generated NOTIFY_SECRET into .dev.vars",
      "generated MCP_TOKEN_KEY into .dev.vars",
      "generated RECEIPT_KEY into .dev.vars",
      "added CALLBACK_ALLOW=127.0.0.1 localhost to .dev.vars",
      "added NEW_FLAG=on to .dev.vars (new in .dev.vars.example)",
    ]);
    const vars = parseDotenv(readFileSync(file, "utf8"));
    expect(vars).toMatchObject({
      API_TOKEN: "mine",
      LLM_BASE_URL: "https://llm.example/v1",
      NEW_FLAG: "on",
    });
    expect(vars).not.toHaveProperty("LATER");
    expect(ensureDevVars({ file, example })).toEqual([]);
  });

  it("an empty value counts as missing; the appended line wins", () => {
    const { file, example } = paths(
      "API_TOKEN=t\nWEBHOOK_SECRET=\nNOTIFY_SECRET=whsec_bm90aWZ5\nCALLBACK_ALLOW=\nMCP_TOKEN_KEY=whsec_x\nRECEIPT_KEY=y\n",
    );
    // An empty secret is generated; an empty CALLBACK_ALLOW is a choice (allow nothing extra).
    expect(ensureDevVars({ file, example })).toEqual(["generated WEBHOOK_SECRET into .dev.vars"]);
    const vars = parseDotenv(readFileSync(file, "utf8"));
    expect(vars.WEBHOOK_SECRET).toMatch(WHSEC);
    expect(vars.NOTIFY_SECRET).toBe("whsec_bm90aWZ5");
    expect(vars.CALLBACK_ALLOW).toBe("");
  });
});
