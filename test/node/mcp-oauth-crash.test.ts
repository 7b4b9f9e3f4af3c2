// What a crash does to a remote MCP call (issue 38 item 6, found by the fault schedule): a
// call sent again after a crash carries the same idempotency key, so a server that dedupes
// on it runs the call once.
import { afterEach, describe, expect, it } from "vitest";
import { answerOutput, pendingOf } from "../../src/core/answers";
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
