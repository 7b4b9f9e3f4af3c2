// What a crash does to a remote MCP call (issue 38 item 6, found by the fault schedule): a
// sign-in whose code was redeemed by a process that died before it stored the tokens is asked
// again (the code is good once), and a call sent again after a crash carries the same
// idempotency key, so a server that dedupes on it runs the call once.
import { afterEach, describe, expect, it } from "vitest";
import { answerOutput, pendingOf } from "../../src/core/answers";
import { MAX_ASKS_AGAIN } from "../../src/core/mcp/oauth/ask-again";
import { memoryTokenStore, type TokenStore } from "../../src/core/mcp/oauth/store";
import { createToolkit, type Toolkit } from "../../src/core/toolkit";
import type { Context, Request } from "../../src/core/types";
import { consent, startOAuthMcpServer, type OAuthTestServer } from "../helpers/oauth-mcp-server";

const REDIRECT = "http://127.0.0.1:9/oauth/callback";
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

async function serve(): Promise<OAuthTestServer> {
  const server = await startOAuthMcpServer();
  open.push(server);
  return server;
}

async function toolkitFor(server: OAuthTestServer, store: TokenStore): Promise<Toolkit> {
  const toolkit = await createToolkit({
    mcp: { mcpServers: { docs: { url: server.url, oauth: { redirectUrl: REDIRECT } } } },
    tokenStore: store,
  });
  open.push(toolkit);
  return toolkit;
}

/**
 * The store as a process sees it that dies the moment it would store tokens: that write and
 * every later one never land (the token endpoint has taken the code by then).
 */
function diesStoringTokens(base: TokenStore): TokenStore {
  let dead = false;
  return {
    get: (server, subject) => base.get(server, subject),
    async set(server, subject, record) {
      if (dead || record.tokens) {
        dead = true;
        throw new Error("the process died");
      }
      await base.set(server, subject, record);
    },
    delete: (server, subject) => base.delete(server, subject),
  };
}

const codeExchanges = (server: OAuthTestServer) =>
  server.tokenRequests.filter((r) => r.grantType === "authorization_code").length;

describe("a crash while the code is redeemed", () => {
  it("the resumed call asks again (a fresh link, pending, no error), and the second sign-in finishes it", async () => {
    const server = await serve();
    const store = memoryTokenStore();
    const ctx: Context = { runId: "run-1", callId: "call-1" };
    const dying = await toolkitFor(server, diesStoringTokens(store));
    const request = pendingOf(await dying.execute("docs_sign_in", {}, ctx)) as Request;
    const answer = answerOutput(request.id, { callbackUrl: await consent(request.url as string) });
    await dying.execute("docs_sign_in", {}, { ...ctx, answer }).catch(() => {});
    await dying.close(); // the process is gone: the code redeemed, the tokens never stored
    expect(codeExchanges(server)).toBe(1);

    // The resumed run executes the call again with the same answer.
    const resumed = await toolkitFor(server, store);
    const again = await resumed.execute("docs_sign_in", {}, { ...ctx, answer });
    const asked = pendingOf(again) as Request;
    expect(asked, again.output).toMatchObject({ kind: "authorization" });
    expect(asked.id).not.toBe(request.id);
    expect(asked.url).not.toBe(request.url);
    expect(codeExchanges(server)).toBe(2); // tried, refused as used

    const callbackUrl = await consent(asked.url as string);
    const done = await resumed.execute(
      "docs_sign_in",
      {},
      { ...ctx, answer: answerOutput(asked.id, { callbackUrl }) },
    );
    expect(done).toMatchObject({ isError: false });
    expect(done.output).toContain("signed in to docs");
    expect((await resumed.execute("docs_whoami", {})).isError).toBe(false);
  });

  it(`asks again at most ${MAX_ASKS_AGAIN} times; the next refused code is the call's error`, async () => {
    const server = await serve();
    const toolkit = await toolkitFor(server, memoryTokenStore());
    const ctx: Context = { runId: "run-2", callId: "call-1" };
    let request = pendingOf(await toolkit.execute("docs_sign_in", {}, ctx)) as Request;
    // A code redeemed elsewhere first: every answer below brings a used code with its state.
    const used = new URL(await consent(request.url as string));
    const redeemed = await toolkit.execute(
      "docs_sign_in",
      {},
      { ...ctx, answer: answerOutput(request.id, { callbackUrl: used.href }) },
    );
    expect(redeemed.isError).toBe(false);
    await toolkit.close();
    const fresh = await toolkitFor(server, memoryTokenStore());
    request = pendingOf(await fresh.execute("docs_sign_in", {}, ctx)) as Request;
    const refused = () => {
      const callback = new URL(used.href);
      callback.searchParams.set("state", new URL(request.url as string).searchParams.get("state")!);
      return fresh.execute(
        "docs_sign_in",
        {},
        { ...ctx, answer: answerOutput(request.id, { callbackUrl: callback.href }) },
      );
    };
    for (let asked = 1; asked <= MAX_ASKS_AGAIN; asked++) {
      const next = pendingOf(await refused()) as Request;
      expect(next?.kind).toBe("authorization");
      request = next;
    }
    const last = await refused();
    expect(pendingOf(last)).toBeUndefined();
    expect(last).toMatchObject({ isError: true });
    expect(last.output).toContain("token endpoint: unknown or used code");
  });
});

describe("a call sent again after a crash", () => {
  it("carries the same idempotency key (run and call id), so a server that dedupes runs it once", async () => {
    const server = await serve();
    const store = memoryTokenStore();
    const first = await toolkitFor(server, store);
    const request = pendingOf(await first.execute("docs_sign_in", {}, { callId: "s" })) as Request;
    const callbackUrl = await consent(request.url as string);
    await first.execute(
      "docs_sign_in",
      {},
      { callId: "s", answer: answerOutput(request.id, { callbackUrl }) },
    );
    const ctx: Context = { runId: "run-7", callId: "call-9" };
    const ran = await first.execute("docs_whoami", {}, ctx);
    expect(ran.isError).toBe(false);
    await first.close(); // died after the server ran the call, before its result was kept

    const resumed = await toolkitFor(server, store);
    const again = await resumed.execute("docs_whoami", {}, ctx);
    expect(again).toEqual(ran);
    expect(server.idempotencyKeys).toEqual(["run-7:call-9", "run-7:call-9"]);
    expect(server.toolCalls.filter((name) => name === "whoami")).toHaveLength(1);
    // Another call of the same run is another key: it runs.
    await resumed.execute("docs_whoami", {}, { runId: "run-7", callId: "call-10" });
    expect(server.toolCalls.filter((name) => name === "whoami")).toHaveLength(2);
  });
});
