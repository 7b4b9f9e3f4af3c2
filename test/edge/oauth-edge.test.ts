// The edge's MCP sign-in parts on their own (issue 25 §1): the config check that asks for
// MCP_TOKENS and MCP_TOKEN_KEY only when an agent uses `oauth`, the signed sign-in state, the
// default redirectUrl, and the AES-GCM sealing of stored records. End to end:
// test/edge-mcp/oauth-sign-in.test.ts.
import { describe, expect, it } from "vitest";
import { createExecutionContext, env } from "cloudflare:test";
import { createWorker } from "../../src/edge/create-worker";
import { defineAgent } from "../../src/edge/agent";
import { supportAgent } from "../../src/edge/demo/agent";
import { tokenKeys } from "../../src/edge/oauth/keys";
import { normalizeEdgeMcpConfig, withRedirectUrl } from "../../src/edge/oauth/settings";
import { createOAuthState, verifyOAuthState } from "../../src/edge/oauth/state-token";
import { open, seal } from "../../durable/tokens/cipher";
import { subjectOf } from "../../durable/tokens/run-oauth";

const KEY = "whsec_dGVzdC1vbmx5IG1jcCB0b2tlbiBrZXksIG5vdCByZWFs";
const OTHER_KEY = "whsec_YW5vdGhlciB0ZXN0LW9ubHkga2V5LCBub3QgcmVhbCBhdCBhbGw=";

const oauthAgent = defineAgent({
  name: "tracker",
  description: "Uses a server that needs sign-in",
  systemPrompt: "x",
  tools: [],
  mcp: { mcpServers: { tracker: { url: "https://mcp.tracker.example/mcp", oauth: {} } } },
  demoModel: () => ({ content: "ok" }),
});

async function healthz(agents: Parameters<typeof createWorker>[0]["agents"], vars: object) {
  const worker = createWorker({ agents });
  const response = await worker.fetch!(
    new Request("https://edge.test/healthz") as never,
    { ...env, ...vars } as unknown as Env,
    createExecutionContext(),
  );
  return { status: response.status, body: (await response.json()) as any };
}

describe("the oauth config check", () => {
  it.each([
    [{ MCP_TOKENS: undefined }, /MCP_TOKENS is not bound.*TokenObject/],
    [{ MCP_TOKEN_KEY: undefined }, /MCP_TOKEN_KEY is not set/],
    [{ MCP_TOKEN_KEY: "whsec_c2hvcnQ=" }, /MCP_TOKEN_KEY is too short/],
    [{ MCP_TOKEN_KEY: "whsec_***" }, /MCP_TOKEN_KEY is malformed/],
  ])("with an oauth agent, %j is 500 config_error naming it", async (vars, message) => {
    const { status, body } = await healthz([oauthAgent], vars);
    expect(status).toBe(500);
    expect(body.error.code).toBe("config_error");
    expect(body.error.message).toMatch(message);
    expect(body.error.message).not.toContain("c2hvcnQ");
  });

  it("asks for neither when no agent uses oauth; /oauth/callback is then an unknown route", async () => {
    const without = { MCP_TOKENS: undefined, MCP_TOKEN_KEY: undefined };
    expect((await healthz([supportAgent], without)).status).toBe(200);
    const worker = createWorker({ agents: [supportAgent] });
    const response = await worker.fetch!(
      new Request("https://edge.test/oauth/callback?state=x&code=y") as never,
      { ...env, ...without } as unknown as Env,
      createExecutionContext(),
    );
    expect(response.status).toBe(404);
    expect(((await response.json()) as any).error.code).toBe("not_found");
    expect((await healthz([oauthAgent], {})).status).toBe(200);
  });
});

describe("the sign-in state", () => {
  const claims = {
    threadId: "th_1",
    runId: "th_1.run_1",
    requestId: "auth_1",
    server: "tracker",
    subject: "ann@example.com",
  };

  it("round-trips its claims, differs every time, and refuses another key or any change", async () => {
    const state = await createOAuthState(KEY, claims);
    expect(await verifyOAuthState(KEY, state)).toEqual(claims);
    expect(await createOAuthState(KEY, claims)).not.toBe(state); // a fresh nonce each time
    expect(await verifyOAuthState(OTHER_KEY, state)).toBeUndefined();
    const [payload, mac] = state.split(".") as [string, string];
    const forged = btoa(JSON.stringify({ ...claims, runId: "th_1.run_2" }))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
    for (const bad of [`${forged}.${mac}`, `${payload}.`, payload, `${state}.x`, "", "é.é"]) {
      expect(await verifyOAuthState(KEY, bad)).toBeUndefined();
    }
    expect(await verifyOAuthState(KEY, "a".repeat(5000))).toBeUndefined();
  });

  it("is signed with a key of its own, not the encryption key's bytes", async () => {
    const keys = await tokenKeys(KEY);
    expect(keys.state.algorithm.name).toBe("HMAC");
    expect(keys.cipher.algorithm.name).toBe("AES-GCM");
    await expect(tokenKeys("whsec_c2hvcnQ=")).rejects.toThrow(/MCP_TOKEN_KEY is too short/);
  });
});

describe("stored records", () => {
  const record = {
    serverUrl: "https://mcp.tracker.example/mcp",
    tokens: { accessToken: "at_secret_value", tokenType: "Bearer" },
  };

  it("are sealed with AES-GCM bound to subject and server", async () => {
    const { cipher } = await tokenKeys(KEY);
    const where = { subject: "ann", server: "tracker" };
    const sealed = await seal(cipher, where, record);
    expect(new TextDecoder("latin1").decode(sealed.data)).not.toContain("at_secret_value");
    expect(await open(cipher, where, sealed)).toEqual(record);
    expect(await open(cipher, { ...where, subject: "bob" }, sealed)).toBeUndefined();
    expect(await open(cipher, { ...where, server: "other" }, sealed)).toBeUndefined();
    expect(await open((await tokenKeys(OTHER_KEY)).cipher, where, sealed)).toBeUndefined();
    const altered = new Uint8Array(sealed.data);
    altered[0] = altered[0]! ^ 1;
    expect(await open(cipher, where, { iv: sealed.iv, data: altered })).toBeUndefined();
    // A fresh IV every write: the same record seals differently.
    expect((await seal(cipher, where, record)).iv).not.toEqual(sealed.iv);
  });

  it("belong to the run's requestedBy, else to its thread", () => {
    expect(subjectOf({ requestedBy: "ann@example.com", threadId: "th_1" })).toBe("ann@example.com");
    expect(subjectOf({ requestedBy: null, threadId: "th_1" })).toBe("thread:th_1");
  });
});

describe("the default redirectUrl", () => {
  it("fills only oauth blocks that name none, in any config shape", () => {
    const filled = withRedirectUrl(
      {
        servers: {
          a: { url: "https://a.example/mcp", oauth: {} },
          b: { url: "https://b.example/mcp", oauth: { redirectUrl: "https://mine.example/cb" } },
          c: { url: "https://c.example/mcp" },
        },
      },
      "https://edge.example/oauth/callback",
    );
    expect(filled).toEqual({
      mcpServers: {
        a: {
          url: "https://a.example/mcp",
          oauth: { redirectUrl: "https://edge.example/oauth/callback" },
        },
        b: { url: "https://b.example/mcp", oauth: { redirectUrl: "https://mine.example/cb" } },
        c: { url: "https://c.example/mcp" },
      },
    });
  });

  it("lets a definition leave it out, and still refuses a bad one", () => {
    expect(normalizeEdgeMcpConfig(oauthAgent.mcp)[0]).toMatchObject({ name: "tracker" });
    expect(() =>
      normalizeEdgeMcpConfig({
        mcpServers: { x: { url: "https://x.example", oauth: { redirectUrl: "nope" } } },
      }),
    ).toThrow(/redirectUrl/);
  });
});
