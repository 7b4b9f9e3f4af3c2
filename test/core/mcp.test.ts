/**
 * Remote MCP servers as a tool source (docs/architecture.md §2): real SDK servers reached through
 * an injected fetch — streamable HTTP, SSE fallback, pagination, result mapping,
 * timeouts, isolation of failing servers, `${ENV}` headers, status and close.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { createToolkit, type Toolkit } from "../../src/core";
import {
  hangingFetch,
  routeFetch,
  sseOnlyServer,
  streamableServer,
  text,
  type TestServer,
  type TestTool,
} from "../helpers/mcp-server";

const ALPHA = "https://alpha.test";
const BETA = "https://beta.test";

const echo: TestTool = {
  name: "echo",
  description: "Echo the message",
  inputSchema: {
    type: "object",
    properties: { message: { type: "string" } },
    required: ["message"],
  },
  run: (args) => text(`echo: ${String(args.message)}`),
};

const toCleanUp: Array<Toolkit | TestServer> = [];
afterEach(async () => {
  await Promise.allSettled(toCleanUp.splice(0).map((x) => x.close()));
});
const track = <T extends Toolkit | TestServer>(x: T): T => (toCleanUp.push(x), x);

describe("MCP tool source: streamable HTTP", () => {
  it("lists the server's tools as sanitize(server)_sanitize(tool) with source mcp:<server>", async () => {
    const server = track(
      streamableServer({ tools: [echo, { name: "get.v2/item", run: () => text("ok") }] }),
    );
    const toolkit = track(
      await createToolkit({
        mcp: { mcpServers: { "my docs": { url: `${ALPHA}/mcp` } } },
        fetch: routeFetch({ [ALPHA]: server.fetch }),
      }),
    );
    expect(toolkit.tools().map((t) => t.name)).toEqual(["my_docs_echo", "my_docs_get_v2_item"]);
    const tool = toolkit.get("my_docs_echo")!;
    expect(tool.source).toBe("mcp:my docs");
    expect(tool.description).toBe("Echo the message");
    expect(tool.inputSchema).toEqual(echo.inputSchema);
    expect(toolkit.mcpStatus()).toEqual({
      "my docs": {
        status: "connected",
        tools: ["my_docs_echo", "my_docs_get_v2_item"],
        transport: "streamable-http",
      },
    });
    expect(toolkit.toOpenAI().map((t) => t.function.name)).toContain("my_docs_get_v2_item");
  });

  it("executes: text joined, isError ⇒ error with the joined text, structuredContent ⇒ its JSON, other parts summarized", async () => {
    const server = track(
      streamableServer({
        tools: [
          echo,
          {
            name: "two_parts",
            run: () => ({
              content: [
                { type: "text", text: "first" },
                { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
                { type: "text", text: "last" },
              ],
            }),
          },
          {
            name: "broken",
            run: () => ({
              isError: true,
              content: [
                { type: "text", text: "no such order" },
                { type: "text", text: "try again" },
              ],
            }),
          },
          {
            name: "weather",
            outputSchema: {
              type: "object",
              properties: { temp: { type: "number" } },
              required: ["temp"],
            },
            run: () => ({
              content: [{ type: "text", text: "21 degrees" }],
              structuredContent: { temp: 21 },
            }),
          },
        ],
      }),
    );
    const toolkit = track(
      await createToolkit({
        mcp: { servers: { s: { url: `${ALPHA}/mcp` } } },
        fetch: routeFetch({ [ALPHA]: server.fetch }),
      }),
    );

    expect(await toolkit.execute("s_echo", { message: "hi" })).toEqual({
      output: "echo: hi",
      isError: false,
    });
    expect(await toolkit.execute("s_two_parts", {})).toEqual({
      output: "first\n[image image/png]\nlast",
      isError: false,
    });
    expect(await toolkit.execute("s_broken", {})).toEqual({
      output: "no such order\ntry again",
      isError: true,
    });
    expect(await toolkit.execute("s_weather", {})).toEqual({
      output: '{"temp":21}',
      isError: false,
    });
    const call = server
      .messages()
      .find((m) => m.method === "tools/call" && m.params.name === "echo");
    expect(call.params).toEqual({ name: "echo", arguments: { message: "hi" } }); // nothing of ours leaks on the wire
  });

  it("a tool's output schema is enforced: missing or mismatched structured content is an error result", async () => {
    const schema = { type: "object", properties: { temp: { type: "number" } }, required: ["temp"] };
    const server = track(
      streamableServer({
        tools: [
          {
            name: "wrong",
            outputSchema: schema,
            run: () => ({ content: [], structuredContent: { temp: "warm" } }),
          },
          { name: "missing", outputSchema: schema, run: () => text("21 degrees") },
          {
            name: "failed",
            outputSchema: schema,
            run: () => ({ isError: true, content: [{ type: "text", text: "sensor down" }] }),
          },
        ],
      }),
    );
    const toolkit = track(
      await createToolkit({
        mcp: { servers: { s: { url: `${ALPHA}/mcp` } } },
        fetch: routeFetch({ [ALPHA]: server.fetch }),
      }),
    );
    const wrong = await toolkit.execute("s_wrong", {});
    expect(wrong.isError).toBe(true);
    expect(wrong.output).toMatch(/does not match the tool's output schema: .*temp/);
    const missing = await toolkit.execute("s_missing", {});
    expect(missing.isError).toBe(true);
    expect(missing.output).toMatch(/has an output schema but did not return structured content/);
    // An error result needs no structured content.
    expect(await toolkit.execute("s_failed", {})).toEqual({ output: "sensor down", isError: true });
  });

  it("follows nextCursor through every tools/list page", async () => {
    const tools = Array.from({ length: 5 }, (_, i) => ({
      name: `t${i}`,
      run: () => text(`t${i}`),
    }));
    const server = track(streamableServer({ tools, pageSize: 2 }));
    const toolkit = track(
      await createToolkit({
        mcp: { mcp: { p: { url: `${ALPHA}/mcp` } } },
        fetch: routeFetch({ [ALPHA]: server.fetch }),
      }),
    );
    expect(toolkit.tools().map((t) => t.name)).toEqual(["p_t0", "p_t1", "p_t2", "p_t3", "p_t4"]);
    const lists = server.messages().filter((m) => m.method === "tools/list");
    expect(lists.map((m) => m.params?.cursor)).toEqual([undefined, "page-2", "page-4"]);
    expect((await toolkit.execute("p_t3", {})).output).toBe("t3");
  });

  it("a hanging tool call ends in an error result at the server timeout; ctx.signal aborts a call", async () => {
    const hang: TestTool = {
      name: "hang",
      run: (_a, io) =>
        new Promise((resolve) => io.signal.addEventListener("abort", () => resolve(text("late")))),
    };
    const server = track(streamableServer({ tools: [hang] }));
    const toolkit = track(
      await createToolkit({
        mcp: { mcpServers: { h: { url: `${ALPHA}/mcp`, timeout: 150 } } },
        fetch: routeFetch({ [ALPHA]: server.fetch }),
      }),
    );

    const started = Date.now();
    expect(await toolkit.execute("h_hang", {})).toEqual({
      output: "h_hang timed out after 150 ms",
      isError: true,
    });
    expect(Date.now() - started).toBeLessThan(2000);
    await until(() => server.messages().some((m) => m.method === "notifications/cancelled"));

    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("user stopped")), 20);
    expect(
      await toolkit.execute("h_hang", {}, { signal: controller.signal, timeout: 10_000 }),
    ).toEqual({ output: "h_hang aborted", isError: true });
  });

  it("a JSON-RPC error from tools/call is an error result naming it", async () => {
    const refuse: TestTool = {
      name: "refuse",
      run: () => {
        throw new McpError(ErrorCode.InvalidParams, "order id must be numeric");
      },
    };
    const server = track(streamableServer({ tools: [refuse] }));
    const toolkit = track(
      await createToolkit({
        mcp: { mcpServers: { s: { url: `${ALPHA}/mcp` } } },
        fetch: routeFetch({ [ALPHA]: server.fetch }),
      }),
    );
    const result = await toolkit.execute("s_refuse", {});
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(
      /^s_refuse failed: MCP error -32602: .*order id must be numeric$/,
    );
  });

  it("the tools map allows or drops by the server's original tool names", async () => {
    const tools = ["read.file", "write.file", "delete.file"].map((name) => ({
      name,
      run: () => text(name),
    }));
    const server = track(streamableServer({ tools }));
    const fetch = routeFetch({ [ALPHA]: server.fetch });
    const dropping = track(
      await createToolkit({
        mcp: { mcpServers: { fs: { url: `${ALPHA}/mcp`, tools: { "delete.file": false } } } },
        fetch,
      }),
    );
    expect(dropping.tools().map((t) => t.name)).toEqual(["fs_read_file", "fs_write_file"]);
    const allowing = track(
      await createToolkit({
        mcp: {
          mcpServers: {
            fs: { url: `${ALPHA}/mcp`, tools: { "read.file": true, "write.file": false } },
          },
        },
        fetch,
      }),
    );
    expect(allowing.tools().map((t) => t.name)).toEqual(["fs_read_file"]);
    expect(allowing.mcpStatus().fs!.tools).toEqual(["fs_read_file"]);
  });
});

describe("MCP tool source: isolation and status", () => {
  it("disabled servers are not contacted; local entries fail with a reason; neither crashes", async () => {
    const server = track(streamableServer({ tools: [echo] }));
    const toolkit = track(
      await createToolkit({
        mcpConfig: {
          mcpServers: {
            off: { url: `${ALPHA}/mcp`, enabled: false },
            off2: { url: `${ALPHA}/mcp`, disabled: true },
            files: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem"] },
            shell: { type: "local", command: ["bash"] },
          },
        },
        fetch: routeFetch({ [ALPHA]: server.fetch }),
      }),
    );
    expect(server.requests).toEqual([]);
    expect(toolkit.tools()).toEqual([]);
    const reason = "local (stdio) servers are not supported at the edge";
    expect(toolkit.mcpStatus()).toEqual({
      off: { status: "disabled", tools: [] },
      off2: { status: "disabled", tools: [] },
      files: { status: "failed", reason, tools: [] },
      shell: { status: "failed", reason, tools: [] },
    });
  });

  it("a server that is down at load time fails alone; the other's tools are present", async () => {
    const server = track(streamableServer({ tools: [echo] }));
    const toolkit = track(
      await createToolkit({
        mcp: { mcpServers: { down: { url: `${BETA}/mcp` }, up: { url: `${ALPHA}/mcp` } } },
        fetch: routeFetch({ [ALPHA]: server.fetch }),
      }),
    );
    expect(toolkit.tools().map((t) => t.name)).toEqual(["up_echo"]);
    const status = toolkit.mcpStatus();
    expect(status.up!.status).toBe("connected");
    expect(status.down).toMatchObject({ status: "failed", tools: [] });
    expect(status.down!.reason).toMatch(/ECONNREFUSED beta\.test/);
    expect((await toolkit.execute("up_echo", { message: "still here" })).output).toBe(
      "echo: still here",
    );
  });

  it("a server that never answers fails at the initialize timeout; the rest load", async () => {
    const server = track(streamableServer({ tools: [echo] }));
    const started = Date.now();
    const toolkit = track(
      await createToolkit({
        mcp: {
          mcpServers: { slow: { url: `${BETA}/mcp`, timeout: 100 }, up: { url: `${ALPHA}/mcp` } },
        },
        fetch: routeFetch({ [ALPHA]: server.fetch, [BETA]: hangingFetch }),
      }),
    );
    expect(Date.now() - started).toBeLessThan(3000);
    expect(toolkit.mcpStatus().slow).toEqual({
      status: "failed",
      reason: "initialize timed out after 100 ms",
      tools: [],
    });
    expect(toolkit.tools().map((t) => t.name)).toEqual(["up_echo"]);
  });

  it("a server that answers initialize but hangs on tools/list fails at the list timeout", async () => {
    const server = track(streamableServer({ tools: [echo] }));
    const listHangs: typeof fetch = async (input, init) => {
      const body = typeof init?.body === "string" ? init.body : "";
      return body.includes('"tools/list"') ? hangingFetch(input, init) : server.fetch(input, init);
    };
    const toolkit = track(
      await createToolkit({
        mcp: { mcpServers: { l: { url: `${ALPHA}/mcp`, timeout: 100 } } },
        fetch: routeFetch({ [ALPHA]: listHangs }),
      }),
    );
    expect(toolkit.mcpStatus().l).toEqual({
      status: "failed",
      reason: "tools/list timed out after 100 ms",
      tools: [],
    });
  });

  it("${ENV} headers are expanded from the toolkit env; a missing variable fails that server only, without leaking values", async () => {
    const a = track(streamableServer({ tools: [echo] }));
    const b = track(streamableServer({ tools: [echo] }));
    const toolkit = track(
      await createToolkit({
        mcp: {
          mcpServers: {
            good: {
              url: `${ALPHA}/mcp`,
              headers: { authorization: "Bearer ${DOCS_TOKEN}", "x-region": "${REGION}-1" },
            },
            bad: {
              url: `${BETA}/mcp`,
              headers: {
                authorization: "Bearer ${DOCS_TOKEN}",
                "x-missing": "${NOT_SET_ANYWHERE_42}",
              },
            },
          },
        },
        env: { DOCS_TOKEN: "s3cret-token", REGION: "eu" },
        fetch: routeFetch({ [ALPHA]: a.fetch, [BETA]: b.fetch }),
      }),
    );
    expect(a.requests.length).toBeGreaterThan(0);
    for (const request of a.requests) {
      expect(request.headers.get("authorization")).toBe("Bearer s3cret-token");
      expect(request.headers.get("x-region")).toBe("eu-1");
    }
    expect(b.requests).toEqual([]);
    const status = toolkit.mcpStatus();
    expect(status.bad).toEqual({
      status: "failed",
      reason: "headers.x-missing: environment variable NOT_SET_ANYWHERE_42 is not set",
      tools: [],
    });
    expect(JSON.stringify(status)).not.toContain("s3cret");
    expect(toolkit.tools().map((t) => t.name)).toEqual(["good_echo"]);
  });

  it("close() disconnects every server: sessions are terminated and later calls fail cleanly", async () => {
    const server = track(streamableServer({ tools: [echo] }));
    const toolkit = await createToolkit({
      mcp: { mcpServers: { s: { url: `${ALPHA}/mcp` } } },
      fetch: routeFetch({ [ALPHA]: server.fetch }),
    });
    await toolkit.close();
    expect(server.requests.some((r) => r.method === "DELETE")).toBe(true);
    const result = await toolkit.execute("s_echo", { message: "x" });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^s_echo failed: .*Not connected/);
  });

  it("a toolkit without MCP reports no servers", async () => {
    expect((await createToolkit({})).mcpStatus()).toEqual({});
  });

  it("a malformed config throws, naming the server and the field", async () => {
    await expect(
      createToolkit({ mcp: { mcpServers: { docs: { url: "ftp://x" } } } }),
    ).rejects.toThrow(/mcp server "docs": url: must be an http\(s\) URL/);
  });
});

describe("MCP tool source: SSE fallback", () => {
  it("a server that 405s streamable HTTP is reached over SSE, and its tools work", async () => {
    const server = track(sseOnlyServer({ tools: [echo], pageSize: 1 }));
    const toolkit = track(
      await createToolkit({
        mcp: { mcpServers: { legacy: { url: `${ALPHA}/sse`, headers: { "x-key": "${KEY}" } } } },
        env: { KEY: "k1" },
        fetch: routeFetch({ [ALPHA]: server.fetch }),
      }),
    );
    expect(toolkit.mcpStatus().legacy).toEqual({
      status: "connected",
      tools: ["legacy_echo"],
      transport: "sse",
    });
    expect(server.requests[0]).toMatchObject({ method: "POST", url: `${ALPHA}/sse` }); // streamable first
    expect(server.requests[1]).toMatchObject({ method: "GET", url: `${ALPHA}/sse` }); // then SSE
    expect(server.requests.every((r) => r.headers.get("x-key") === "k1")).toBe(true);
    expect(await toolkit.execute("legacy_echo", { message: "over sse" })).toEqual({
      output: "echo: over sse",
      isError: false,
    });
  });

  it("type: sse goes straight to SSE", async () => {
    const server = track(sseOnlyServer({ tools: [echo] }));
    const toolkit = track(
      await createToolkit({
        mcp: { mcpServers: { legacy: { type: "sse", url: `${ALPHA}/sse` } } },
        fetch: routeFetch({ [ALPHA]: server.fetch }),
      }),
    );
    expect(toolkit.mcpStatus().legacy!.transport).toBe("sse");
    expect(server.requests[0]).toMatchObject({ method: "GET" });
  });

  it("when both transports fail, the reason names both", async () => {
    const nothing: typeof fetch = async () => new Response("nope", { status: 404 });
    const toolkit = track(
      await createToolkit({
        mcp: { mcpServers: { gone: { url: `${ALPHA}/mcp` } } },
        fetch: routeFetch({ [ALPHA]: nothing }),
      }),
    );
    const reason = toolkit.mcpStatus().gone!.reason!;
    expect(reason).toBe(
      "streamable HTTP: HTTP 404: Error POSTing to endpoint: nope; SSE fallback: SSE error: Non-200 status code (404)",
    );
  });
});

async function until(condition: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) {
      throw new Error("condition not met in time");
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}
