// MCP servers that need sign-in (issue 25 §1), against an OAuth-protected MCP server
// built from the MCP SDK's server auth parts on 127.0.0.1 (test/helpers/oauth-mcp-server).
import { afterEach, describe, expect, it } from "vitest";
import { answerOutput, pendingOf } from "../../src/core/answers";
import { memoryTokenStore, type TokenStore } from "../../src/core/mcp/oauth/store";
import { createToolkit, type Toolkit } from "../../src/core/toolkit";
import { createInProcessClient } from "../../src/core/client";
import type { Request } from "../../src/core/types";
import {
  consent,
  startOAuthMcpServer,
  type OAuthServerOptions,
  type OAuthTestServer,
} from "../helpers/oauth-mcp-server";

const REDIRECT = "http://127.0.0.1:9/oauth/callback";
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

async function serve(options: OAuthServerOptions = {}): Promise<OAuthTestServer> {
  const server = await startOAuthMcpServer(options);
  open.push(server);
  return server;
}

async function toolkitFor(
  server: OAuthTestServer,
  oauth: Record<string, unknown> = {},
  store: TokenStore = memoryTokenStore(),
): Promise<Toolkit> {
  const toolkit = await createToolkit({
    mcp: { mcpServers: { docs: { url: server.url, oauth: { redirectUrl: REDIRECT, ...oauth } } } },
    tokenStore: store,
  });
  open.push(toolkit);
  return toolkit;
}

/** Calls `name`, expects a sign-in, consents, and re-executes with the answer. */
async function signInThrough(toolkit: Toolkit, name: string, callId = "call-1") {
  const first = await toolkit.execute(name, {}, { callId });
  const request = pendingOf(first) as Request;
  expect(request?.kind).toBe("authorization");
  const callbackUrl = await consent(request.url as string);
  const second = await toolkit.execute(
    name,
    {},
    {
      callId,
      answer: answerOutput(request.id, { callbackUrl }),
    },
  );
  return { request, callbackUrl, second };
}

describe("MCP OAuth: first sign-in", () => {
  it("a 401 at connect offers <server>_sign_in; the sign-in uses DCR, PKCE S256, state and resource, then the tools load", async () => {
    const server = await serve();
    const toolkit = await toolkitFor(server);
    expect(toolkit.mcpStatus().docs).toMatchObject({
      status: "needs_authorization",
      tools: ["docs_sign_in"],
    });

    const { request, second } = await signInThrough(toolkit, "docs_sign_in");
    expect(request.prompt).toContain("docs");
    const url = new URL(request.url as string);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("resource")).toBe(server.url);
    expect(url.searchParams.get("state")).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(url.searchParams.get("scope")).toBe("read");
    expect(url.searchParams.get("redirect_uri")).toBe(REDIRECT);
    expect(server.registrations).toHaveLength(1);
    expect(url.searchParams.get("client_id")).toBe(server.registrations[0]?.client_id);
    // Nothing secret in the request: the verifier stays in the token store.
    expect(JSON.stringify(request)).not.toMatch(/verifier/i);

    expect(second).toMatchObject({ isError: false });
    expect(second.output).toContain("docs_whoami");
    const whoami = await toolkit.execute("docs_whoami", {});
    expect(whoami).toEqual({
      output: `whoami as ${server.registrations[0]?.client_id} with read`,
      isError: false,
    });
    expect(server.bearers.at(-1)).toMatch(/^Bearer at-/);
  });

  it("a fresh process with the same store finishes a halted sign-in from the request id alone", async () => {
    const server = await serve();
    const store = memoryTokenStore();
    const first = await toolkitFor(server, {}, store);
    const request = pendingOf(await first.execute("docs_sign_in", {})) as Request;
    await first.close();
    // The halted run carries only the request (as JSON); the verifier lives in the store.
    const halted = JSON.parse(JSON.stringify(request)) as Request;
    const callbackUrl = await consent(halted.url as string);

    const fresh = await toolkitFor(server, {}, store);
    const done = await fresh.execute(
      "docs_sign_in",
      {},
      { answer: answerOutput(halted.id, { callbackUrl }) },
    );
    expect(done.isError).toBe(false);
    expect((await fresh.execute("docs_whoami", {})).isError).toBe(false);

    // The next toolkit of the same subject reuses the token without asking.
    const next = await toolkitFor(server, {}, store);
    expect(next.mcpStatus().docs?.status).toBe("connected");
    expect((await next.execute("docs_whoami", {})).isError).toBe(false);
    expect(server.authorizations).toHaveLength(1);
  });

  it("a sign-in that completed before the process died: its call, executed again once the server is connected, says signed in", async () => {
    const server = await serve();
    const store = memoryTokenStore();
    const first = await toolkitFor(server, {}, store);
    const { request, callbackUrl, second } = await signInThrough(first, "docs_sign_in");
    expect(second.isError).toBe(false);
    await first.close(); // the process dies here, before the call's result is kept
    // The resumed run: the server connects with the stored token; the model is offered its
    // real tools only, and the call it made is executed again with the same answer.
    const resumed = await toolkitFor(server, {}, store);
    expect(resumed.mcpStatus().docs?.status).toBe("connected");
    expect(resumed.tools().map((t) => t.name)).not.toContain("docs_sign_in");
    const again = await resumed.execute(
      "docs_sign_in",
      {},
      { callId: "call-1", answer: answerOutput(request.id, { callbackUrl }) },
    );
    expect(again).toEqual({
      output: "signed in to docs; its tools are now available: docs_whoami, docs_write",
      isError: false,
    });
    expect(server.authorizations).toHaveLength(1);
  });

  it("a pre-registered confidential client authenticates at the token endpoint as advertised (basic, else post)", async () => {
    for (const [methods, expectBasic] of [
      [["client_secret_basic", "client_secret_post"], true],
      [["client_secret_post"], false],
    ] as const) {
      const server = await serve({ registration: false, authMethods: [...methods] });
      server.preRegister({
        client_id: "pre-1",
        client_secret: "s3cret",
        redirect_uris: [REDIRECT],
      });
      const toolkit = await toolkitFor(server, { clientId: "pre-1", clientSecret: "s3cret" });
      const { second } = await signInThrough(toolkit, "docs_sign_in");
      expect(second.isError).toBe(false);
      const exchange = server.tokenRequests.find((r) => r.grantType === "authorization_code");
      if (expectBasic) {
        expect(exchange?.authorization).toMatch(/^Basic /);
        expect(exchange?.clientSecret).toBeUndefined();
      } else {
        expect(exchange?.authorization).toBeUndefined();
        expect(exchange?.clientSecret).toBe("s3cret");
      }
      expect(server.authorizations[0]?.clientId).toBe("pre-1");
    }
  });

  it("uses a Client ID Metadata Document where the server supports them, without registering", async () => {
    const server = await serve({ cimd: true });
    const cimd = "https://agent.example/oauth/client.json";
    server.preRegister({ client_id: cimd, redirect_uris: [REDIRECT] });
    const toolkit = await toolkitFor(server, { clientMetadataUrl: cimd });
    const { second } = await signInThrough(toolkit, "docs_sign_in");
    expect(second.isError).toBe(false);
    expect(server.authorizations[0]?.clientId).toBe(cimd);
    expect(server.registrations).toHaveLength(0);
  });

  it.each([
    { prm: "root" },
    { prm: "header-only" },
    { asMetadata: "oauth-path" },
    { asMetadata: "oidc-path-insert" },
    { asMetadata: "oidc-path-append" },
  ] as OAuthServerOptions[])("discovers through %o", async (variant) => {
    const server = await serve(variant);
    const toolkit = await toolkitFor(server);
    const { second } = await signInThrough(toolkit, "docs_sign_in");
    expect(second.isError).toBe(false);
    expect((await toolkit.execute("docs_whoami", {})).isError).toBe(false);
  });

  it("refuses an authorization server that does not offer PKCE S256", async () => {
    const server = await serve({ s256: false });
    const toolkit = await toolkitFor(server);
    const result = await toolkit.execute("docs_sign_in", {});
    expect(pendingOf(result)).toBeUndefined();
    expect(result.output).toContain("does not offer PKCE S256");
    expect(server.registrations).toHaveLength(0);
  });
});

describe("MCP OAuth: during a call", () => {
  async function signedIn(options: OAuthServerOptions = {}, store = memoryTokenStore()) {
    const server = await serve(options);
    const toolkit = await toolkitFor(server, {}, store);
    const first = await signInThrough(toolkit, "docs_sign_in");
    return { server, toolkit, store, first };
  }

  it("steps up on 403 insufficient_scope: the same call suspends, asks for the wider scope and goes on", async () => {
    const { server, toolkit } = await signedIn();
    const { request, second } = await signInThrough(toolkit, "docs_write", "call-w");
    expect(new URL(request.url as string).searchParams.get("scope")).toBe("read write");
    expect(second).toMatchObject({ isError: false });
    expect(second.output).toMatch(/^write as .* with read write$/);
    expect(server.authorizations).toHaveLength(2);
  });

  it("refreshes an expired access token without asking anyone", async () => {
    const { server, toolkit } = await signedIn();
    server.expireAccessTokens();
    const result = await toolkit.execute("docs_whoami", {});
    expect(result.isError).toBe(false);
    expect(server.tokenRequests.map((r) => r.grantType)).toEqual([
      "authorization_code",
      "refresh_token",
    ]);
    expect(server.authorizations).toHaveLength(1);
  });

  it("asks a person again only when the refresh token no longer works", async () => {
    const { server, toolkit } = await signedIn();
    server.revokeAll();
    const { second } = await signInThrough(toolkit, "docs_whoami", "call-again");
    expect(second.isError).toBe(false);
    expect(server.authorizations).toHaveLength(2);
  });

  it("a callback with the wrong state exchanges nothing; the right one still works", async () => {
    const server = await serve();
    const toolkit = await toolkitFor(server);
    const request = pendingOf(await toolkit.execute("docs_sign_in", {})) as Request;
    const callbackUrl = new URL(await consent(request.url as string));
    const good = callbackUrl.href;
    callbackUrl.searchParams.set("state", "made-up");
    const wrong = await toolkit.execute(
      "docs_sign_in",
      {},
      { answer: answerOutput(request.id, { callbackUrl: callbackUrl.href }) },
    );
    expect(wrong).toMatchObject({ isError: true });
    expect(wrong.output).toContain("state does not match");
    expect(server.tokenRequests).toHaveLength(0);
    const right = await toolkit.execute(
      "docs_sign_in",
      {},
      { answer: answerOutput(request.id, { callbackUrl: good }) },
    );
    expect(right.isError).toBe(false);
  });

  it("a reused code fails at the token endpoint and ends that sign-in", async () => {
    const { server, toolkit, first } = await signedIn();
    const used = new URL(first.callbackUrl);
    server.revokeAll();
    const request = pendingOf(
      await toolkit.execute("docs_whoami", {}, { callId: "c2" }),
    ) as Request;
    const replay = new URL(request.url as string);
    // The old code with the new sign-in's state: only the code is stale.
    used.searchParams.set("state", replay.searchParams.get("state") as string);
    const result = await toolkit.execute(
      "docs_whoami",
      {},
      { callId: "c2", answer: answerOutput(request.id, { callbackUrl: used.href }) },
    );
    expect(result.isError).toBe(true);
    expect(result.output).toContain("token endpoint:");
    // That sign-in is over: the same answer again exchanges nothing and the call asks anew.
    const exchanges = server.tokenRequests.length;
    const again = await toolkit.execute(
      "docs_whoami",
      {},
      { callId: "c2", answer: answerOutput(request.id, { callbackUrl: used.href }) },
    );
    expect(pendingOf(again)?.id).not.toBe(request.id);
    expect(server.tokenRequests).toHaveLength(exchanges);
  });

  it("a token endpoint that errors fails the sign-in with its reason; a new sign-in then works", async () => {
    const server = await serve();
    const toolkit = await toolkitFor(server);
    server.failTokens = true;
    const { second } = await signInThrough(toolkit, "docs_sign_in");
    expect(second.isError).toBe(true);
    expect(second.output).toContain("token endpoint is down");
    server.failTokens = false;
    const retry = await signInThrough(toolkit, "docs_sign_in", "call-2");
    expect(retry.second.isError).toBe(false);
  });

  it("an OAuth error in the callback declines with authorization denied: <error>", async () => {
    const server = await serve();
    const toolkit = await toolkitFor(server);
    const request = pendingOf(await toolkit.execute("docs_sign_in", {})) as Request;
    const result = await toolkit.execute(
      "docs_sign_in",
      {},
      {
        answer: answerOutput(request.id, { callbackUrl: `${REDIRECT}?error=access_denied` }),
      },
    );
    expect(result.output).toContain("authorization denied: access_denied");
  });
});

describe("MCP OAuth: a server without oauth", () => {
  it("a 401 shows needs_authorization and the authorization server it found", async () => {
    const server = await serve();
    const toolkit = await createToolkit({ mcp: { mcpServers: { docs: { url: server.url } } } });
    open.push(toolkit);
    const status = toolkit.mcpStatus().docs;
    expect(status).toMatchObject({
      status: "needs_authorization",
      tools: [],
      authorizationServer: server.origin,
    });
    expect(status?.reason).toContain(server.url);
  });
});

describe("MCP OAuth: through the run loop", () => {
  const script = (calls: string[], waitFor?: (request: Request) => Promise<unknown>) => {
    let turn = 0;
    return createInProcessClient({
      model: "scripted",
      ...(waitFor ? { waitFor } : {}),
      generate: async () => {
        const name = calls[turn++];
        return name
          ? {
              role: "assistant",
              content: "",
              toolCalls: [{ id: `c${turn}`, name, arguments: "{}" }],
            }
          : { role: "assistant", content: "done" };
      },
    } as never);
  };

  it("with a client waitFor the person's sign-in happens inline and the next turn uses the server's tools", async () => {
    const server = await serve();
    const toolkit = await toolkitFor(server);
    const asked: Request[] = [];
    const result = await script(["docs_sign_in", "docs_whoami"], async (request) => {
      asked.push(request);
      return answerOutput(request.id, { callbackUrl: await consent(request.url as string) });
    }).run("who am I?", { toolkit } as never);
    expect(result.status).toBe("done");
    expect(asked.map((r) => r.kind)).toEqual(["authorization"]);
    expect(result.toolCalls.map((c) => [c.name, c.isError])).toEqual([
      ["docs_sign_in", false],
      ["docs_whoami", false],
    ]);
  });

  it("without waitFor the run halts; a fresh process with the same store resumes it and the call goes on", async () => {
    const server = await serve();
    const store = memoryTokenStore();
    const first = await toolkitFor(server, {}, store);
    const halted = await script(["docs_sign_in"]).run("sign me in", { toolkit: first } as never);
    expect(halted.status).toBe("pending");
    expect(halted.pending?.kind).toBe("authorization");
    const saved = JSON.parse(JSON.stringify(halted)) as typeof halted;
    // No secret of the sign-in in the halted run: only the store knows the verifier.
    const record = await store.get("docs", "default");
    expect(JSON.stringify(saved)).not.toContain(record?.pending?.codeVerifier as string);
    await first.close();

    const fresh = await toolkitFor(server, {}, store);
    const request = saved.pending as Request;
    const resumed = await script([]).runWithAnswer({
      toolkit: fresh,
      history: saved.messages,
      pending: request,
      answer: answerOutput(request.id, { callbackUrl: await consent(request.url as string) }),
    } as never);
    expect(resumed.status).toBe("done");
    expect(fresh.get("docs_whoami")).toBeDefined();
    expect((await store.get("docs", "default"))?.tokens?.accessToken).toMatch(/^at-/);
  });
});
