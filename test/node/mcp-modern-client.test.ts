/**
 * The toolkit's MCP client per server (issue 41): a server built on the official v2 SDK
 * (@modelcontextprotocol/server, protocol 2026-07-28) and one on the v1 SDK (2025-11-25), both
 * on 127.0.0.1. Against the v2 server the client negotiates 2026-07-28 (`server/discover`, the
 * `_meta` envelope and the standard headers on every request); a tool's `input_required`
 * becomes a pending request that keeps the server's `requestState` exactly, and the
 * re-execution with the answer (after a JSON round trip, as a halted run stores it) sends
 * `inputResponses` with that state and finishes. The v1 server is spoken to as before.
 */
import { createServer, type IncomingMessage, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import {
  acceptedContent,
  createMcpHandler,
  inputRequired,
  McpServer,
} from "@modelcontextprotocol/server";
import {
  answerDeclined,
  answerOutput,
  createClient,
  createInProcessClient,
  createToolkit,
  isPending,
  pendingOf,
  type Request as AgentRequest,
  type Toolkit,
} from "../../src/core";
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { streamableServer, text, type TestServer } from "../helpers/mcp-server";
import { fakeLlm } from "../helpers/fake-llm";
import { MAX_INPUT_ROUNDS } from "../../src/core/mcp/modern/input-required";

interface Loopback {
  url: string;
  seen: Array<{
    method: string;
    protocolVersion: string | null;
    mcpMethod: string | null;
    body: any;
  }>;
  close(): Promise<void>;
}

/** Serves a web-standard fetch handler on 127.0.0.1 (a real socket: the client's fetch is the global one). */
async function onLoopback(handle: (request: Request) => Promise<Response>): Promise<Loopback> {
  const seen: Loopback["seen"] = [];
  const server: HttpServer = createServer(async (req, res) => {
    const body = await readBody(req);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string") {
        headers.set(name, value);
      }
    }
    let parsed: any;
    try {
      parsed = body ? JSON.parse(body) : undefined;
    } catch {
      parsed = undefined;
    }
    seen.push({
      method: parsed?.method ?? req.method ?? "",
      protocolVersion: headers.get("mcp-protocol-version"),
      mcpMethod: headers.get("mcp-method"),
      body: parsed,
    });
    const response = await handle(
      new globalThis.Request(`http://127.0.0.1${req.url}`, {
        method: req.method,
        headers,
        ...(body && req.method !== "GET" && req.method !== "HEAD" ? { body } : {}),
      }) as never,
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

const NAME_SCHEMA = {
  type: "object",
  properties: { name: { type: "string", title: "Your name" } },
  required: ["name"],
} as const;

/**
 * A v2 server: `greet` asks the caller's name with input_required; `echo` answers at once;
 * `survey` asks two things at once.
 */
function v2Server() {
  const states: string[] = [];
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "v2-fixture", version: "1.0.0" });
    server.registerTool("greet", { inputSchema: z.object({}) }, async (_args: any, ctx: any) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, "name") as
        | { name?: string }
        | undefined;
      if (answer?.name) {
        // The SDK hands the echoed state over as an accessor.
        const state = ctx.mcpReq.requestState;
        states.push(String(typeof state === "function" ? state() : state));
        return { content: [{ type: "text" as const, text: `Hello, ${answer.name}!` }] };
      }
      return inputRequired({
        inputRequests: {
          name: {
            method: "elicitation/create",
            params: { mode: "form", message: "Your name?", requestedSchema: NAME_SCHEMA } as never,
          },
        },
        requestState: "opaque+state/==",
      }) as never;
    });
    server.registerTool("echo", { inputSchema: z.object({}) }, async () => ({
      content: [{ type: "text" as const, text: "echoed" }],
    }));
    server.registerTool("survey", { inputSchema: z.object({}) }, async (_args: any, ctx: any) => {
      const responses = ctx.mcpReq.inputResponses;
      const a = acceptedContent(responses, "a") as { name?: string } | undefined;
      const b = acceptedContent(responses, "b") as { name?: string } | undefined;
      if (a?.name && b?.name) {
        const state = ctx.mcpReq.requestState;
        states.push(String(typeof state === "function" ? state() : state));
        return { content: [{ type: "text" as const, text: `A=${a.name} B=${b.name}` }] };
      }
      return inputRequired({
        inputRequests: {
          a: {
            method: "elicitation/create",
            params: { mode: "form", message: "A?", requestedSchema: NAME_SCHEMA } as never,
          },
          b: {
            method: "elicitation/create",
            params: { mode: "form", message: "B?", requestedSchema: NAME_SCHEMA } as never,
          },
        },
        requestState: "survey:state/+=",
      }) as never;
    });
    // Says what it was answered: a decline or a cancel comes back as such.
    server.registerTool("pick", { inputSchema: z.object({}) }, async (_args: any, ctx: any) => {
      const response = ctx.mcpReq.inputResponses?.name as { action?: string } | undefined;
      if (response) {
        return { content: [{ type: "text" as const, text: `pick got ${response.action}` }] };
      }
      return inputRequired({
        inputRequests: {
          name: {
            method: "elicitation/create",
            params: {
              mode: "form",
              message: "Pick a name?",
              requestedSchema: NAME_SCHEMA,
            } as never,
          },
        },
        requestState: "pick-state",
      }) as never;
    });
    // Never satisfied: every answer gets a new question.
    let asked = 0;
    server.registerTool("nosy", { inputSchema: z.object({}) }, async () => {
      asked += 1;
      return inputRequired({
        inputRequests: {
          [`q${asked}`]: {
            method: "elicitation/create",
            params: {
              mode: "form",
              message: `Question ${asked}?`,
              requestedSchema: NAME_SCHEMA,
            } as never,
          },
        },
        requestState: `nosy-${asked}`,
      }) as never;
    });
    return server;
  });
  return { handler, states };
}

const cleanUp: Array<{ close(): Promise<void> | void }> = [];
afterEach(async () => {
  await Promise.all(cleanUp.splice(0).map((c) => c.close()));
});

async function toolkitFor(url: string): Promise<Toolkit> {
  const toolkit = await createToolkit({ mcp: { mcpServers: { fx: { url } } } });
  cleanUp.push(toolkit);
  expect(toolkit.mcpStatus().fx!.status).toBe("connected");
  return toolkit;
}

/** A scripted model that calls each named tool in turn, then ends. */
const script = (calls: string[], waitFor?: (request: AgentRequest) => Promise<unknown>) => {
  let turn = 0;
  return createInProcessClient({
    model: "scripted",
    ...(waitFor ? { waitFor } : {}),
    generate: async () => {
      const name = calls[turn++];
      return name
        ? { role: "assistant", content: "", toolCalls: [{ id: `c${turn}`, name, arguments: "{}" }] }
        : { role: "assistant", content: "done" };
    },
  } as never);
};

describe("MCP client: 2026-07-28 with a v2 server, 2025-11-25 with a v1 server", () => {
  it("negotiates 2026-07-28 with the v2 server; input_required suspends and the retry finishes", async () => {
    const { handler, states } = v2Server();
    const server = await onLoopback((request) => handler.fetch(request as never));
    cleanUp.push(server);
    const toolkit = await toolkitFor(server.url);

    expect(server.seen[0]?.method).toBe("server/discover");
    expect(server.seen.some((s) => s.method === "initialize")).toBe(false);
    const list = server.seen.find((s) => s.method === "tools/list");
    expect(list?.protocolVersion).toBe("2026-07-28");
    expect(list?.mcpMethod).toBe("tools/list");
    expect(list?.body.params._meta["io.modelcontextprotocol/protocolVersion"]).toBe("2026-07-28");

    const first = await toolkit.execute("fx_greet", {}, { callId: "c1" });
    expect(isPending(first)).toBe(true);
    const stored = JSON.parse(JSON.stringify(pendingOf(first))) as AgentRequest;
    expect(stored).toMatchObject({
      kind: "input",
      prompt: "Your name?",
      data: { schema: NAME_SCHEMA, mcpInput: { key: "name", requestState: "opaque+state/==" } },
    });

    const calls = server.seen.filter((s) => s.method === "tools/call").length;
    const done = await toolkit.execute(
      "fx_greet",
      {},
      {
        callId: "c1",
        answer: { id: stored.id, ok: true, data: { name: "Ann" } },
        answered: stored,
      },
    );
    expect(done).toEqual({ output: "Hello, Ann!", isError: false });
    // One more call, carrying the answer and the state byte for byte: nothing else re-ran.
    const retries = server.seen.filter((s) => s.method === "tools/call").slice(calls);
    expect(retries).toHaveLength(1);
    expect(retries[0]!.body.params).toMatchObject({
      requestState: "opaque+state/==",
      inputResponses: { name: { action: "accept", content: { name: "Ann" } } },
    });
    expect(states).toEqual(["opaque+state/=="]);
  });

  it("several inputs at once: each is a request of ours; the call is sent again once, with every response, after a restart between answers", async () => {
    const { handler, states } = v2Server();
    const server = await onLoopback((request) => handler.fetch(request as never));
    cleanUp.push(server);
    const toolCalls = () => server.seen.filter((s) => s.method === "tools/call");

    const halted = await script(["fx_survey"]).run("survey", {
      toolkit: await toolkitFor(server.url),
    } as never);
    expect(halted.status).toBe("pending");
    expect(halted.pending).toMatchObject({ kind: "input", prompt: "A?" });
    expect(toolCalls()).toHaveLength(1);

    // A new process between answers: a fresh toolkit, the halted run as stored JSON.
    let saved = JSON.parse(JSON.stringify(halted));
    const second = await script([]).runWithAnswer({
      toolkit: await toolkitFor(server.url),
      history: saved.messages,
      pending: saved.pending,
      answer: answerOutput(saved.pending.id, { name: "Ann" }),
    } as never);
    expect(second.status).toBe("pending");
    expect(second.pending).toMatchObject({ kind: "input", prompt: "B?" });
    expect(second.pending!.id).not.toBe(saved.pending.id);
    // Asking the second input sent nothing to the server.
    expect(toolCalls()).toHaveLength(1);

    saved = JSON.parse(JSON.stringify(second));
    const done = await script([]).runWithAnswer({
      toolkit: await toolkitFor(server.url),
      history: saved.messages,
      pending: saved.pending,
      answer: answerOutput(saved.pending.id, { name: "Bo" }),
    } as never);
    expect(done.status).toBe("done");
    expect(done.toolCalls.map((c: any) => [c.name, c.output, c.isError])).toEqual([
      ["fx_survey", "A=Ann B=Bo", false],
    ]);
    const retries = toolCalls().slice(1);
    expect(retries).toHaveLength(1);
    expect(retries[0]!.body.params.requestState).toBe("survey:state/+=");
    expect(retries[0]!.body.params.inputResponses).toEqual({
      a: { action: "accept", content: { name: "Ann" } },
      b: { action: "accept", content: { name: "Bo" } },
    });
    expect(states).toEqual(["survey:state/+="]);
  });

  it("several inputs are pending at once and answered in reverse order: the call is sent again once, with both", async () => {
    const { handler, states } = v2Server();
    const server = await onLoopback((request) => handler.fetch(request as never));
    cleanUp.push(server);
    const toolCalls = () => server.seen.filter((s) => s.method === "tools/call");

    const halted = await script(["fx_survey"]).run("survey", {
      toolkit: await toolkitFor(server.url),
    } as never);
    expect(halted.status).toBe("pending");
    const placeholder = halted.messages.at(-1) as any;
    const [a, b] = [placeholder.pending, ...(placeholder.alsoPending ?? [])];
    expect(a).toMatchObject({ kind: "input", prompt: "A?" });
    expect(b).toMatchObject({ kind: "input", prompt: "B?" });
    expect(halted.pending!.id).toBe(a.id);

    // B first, in a new process: the call is open on A alone, A's id unchanged, nothing sent.
    let saved = JSON.parse(JSON.stringify(halted));
    const second = await script([]).runWithAnswer({
      toolkit: await toolkitFor(server.url),
      history: saved.messages,
      pending: b,
      answer: answerOutput(b.id, { name: "Bo" }),
    } as never);
    expect(second.status).toBe("pending");
    expect(second.pending).toMatchObject({ id: a.id, prompt: "A?" });
    expect((second.messages.at(-1) as any).alsoPending).toBeUndefined();
    expect(toolCalls()).toHaveLength(1);

    saved = JSON.parse(JSON.stringify(second));
    const done = await script([]).runWithAnswer({
      toolkit: await toolkitFor(server.url),
      history: saved.messages,
      pending: saved.pending,
      answer: answerOutput(a.id, { name: "Ann" }),
    } as never);
    expect(done.status).toBe("done");
    expect(done.toolCalls.map((c: any) => [c.name, c.output, c.isError])).toEqual([
      ["fx_survey", "A=Ann B=Bo", false],
    ]);
    const retries = toolCalls().slice(1);
    expect(retries).toHaveLength(1);
    expect(retries[0]!.body.params.requestState).toBe("survey:state/+=");
    expect(retries[0]!.body.params.inputResponses).toEqual({
      a: { action: "accept", content: { name: "Ann" } },
      b: { action: "accept", content: { name: "Bo" } },
    });
    expect(states).toEqual(["survey:state/+="]);
  });

  it("several inputs pending at once: declining the second first sends decline for it and cancel for the first, at once", async () => {
    const { handler } = v2Server();
    const server = await onLoopback((request) => handler.fetch(request as never));
    cleanUp.push(server);
    const halted = await script(["fx_survey"]).run("survey", {
      toolkit: await toolkitFor(server.url),
    } as never);
    const saved = JSON.parse(JSON.stringify(halted));
    const b = saved.messages.at(-1).alsoPending[0];
    await script([]).runWithAnswer({
      toolkit: await toolkitFor(server.url),
      history: saved.messages,
      pending: b,
      answer: answerDeclined(b.id),
    } as never);
    const calls = server.seen.filter((s) => s.method === "tools/call");
    expect(calls[1]!.body.params.inputResponses).toEqual({
      a: { action: "cancel" },
      b: { action: "decline" },
    });
  });

  it("several inputs with a host that answers inline: each asked, then one retry", async () => {
    const { handler } = v2Server();
    const server = await onLoopback((request) => handler.fetch(request as never));
    cleanUp.push(server);
    const asked: string[] = [];
    const result = await script(["fx_survey"], async (request) => {
      asked.push(request.prompt);
      return answerOutput(request.id, { name: request.prompt === "A?" ? "x" : "y" });
    }).run("survey", { toolkit: await toolkitFor(server.url) } as never);
    expect(result.status).toBe("done");
    expect(asked).toEqual(["A?", "B?"]);
    expect(result.toolCalls[0]).toMatchObject({ output: "A=x B=y", isError: false });
    expect(server.seen.filter((s) => s.method === "tools/call")).toHaveLength(2);
  });

  it("a declined request is sent back as decline, an expired one as cancel, with the state; the model hears both", async () => {
    const { handler } = v2Server();
    const server = await onLoopback((request) => handler.fetch(request as never));
    cleanUp.push(server);
    for (const [reason, action] of [
      ["declined", "decline"],
      ["expired", "cancel"],
    ] as const) {
      const halted = await script(["fx_pick"]).run("pick", {
        toolkit: await toolkitFor(server.url),
      } as never);
      const saved = JSON.parse(JSON.stringify(halted));
      const before = server.seen.filter((s) => s.method === "tools/call").length;
      const done = await script([]).runWithAnswer({
        toolkit: await toolkitFor(server.url),
        history: saved.messages,
        pending: saved.pending,
        answer: answerDeclined(saved.pending.id, reason),
      } as never);
      expect(done.status).toBe("done");
      const retries = server.seen.filter((s) => s.method === "tools/call").slice(before);
      expect(retries).toHaveLength(1);
      expect(retries[0]!.body.params).toMatchObject({
        requestState: "pick-state",
        inputResponses: { name: { action } },
      });
      expect(retries[0]!.body.params.inputResponses.name.content).toBeUndefined();
      expect(done.toolCalls[0]).toMatchObject({
        output: `declined/expired: Pick a name?\npick got ${action}`,
        isError: true,
      });
    }
  });

  it("a declined input of several: the rest are sent as cancel at once", async () => {
    const { handler } = v2Server();
    const server = await onLoopback((request) => handler.fetch(request as never));
    cleanUp.push(server);
    const result = await script(["fx_survey"], async (request) => answerDeclined(request.id)).run(
      "survey",
      { toolkit: await toolkitFor(server.url) } as never,
    );
    const calls = server.seen.filter((s) => s.method === "tools/call");
    // The server asks again (it got no names): its second question is the limit's business.
    expect(calls[1]!.body.params.inputResponses).toEqual({
      a: { action: "decline" },
      b: { action: "cancel" },
    });
    expect(result.status).toBe("done");
  });

  it("a server that keeps asking is given up after MAX_INPUT_ROUNDS rounds, with a clear error", async () => {
    const { handler } = v2Server();
    const server = await onLoopback((request) => handler.fetch(request as never));
    cleanUp.push(server);
    const result = await script(["fx_nosy"], async (request) =>
      answerOutput(request.id, { name: "again" }),
    ).run("nosy", { toolkit: await toolkitFor(server.url) } as never);
    expect(result.status).toBe("done");
    expect(result.toolCalls[0]).toMatchObject({
      output: `fx_nosy: the server kept asking for input (${MAX_INPUT_ROUNDS} rounds in one call, the limit); the call was given up`,
      isError: true,
    });
    expect(server.seen.filter((s) => s.method === "tools/call")).toHaveLength(MAX_INPUT_ROUNDS + 1);
  });

  it("speaks 2025-11-25 to a v1 server: initialize after the probe, no envelope", async () => {
    const v1: TestServer = streamableServer({
      tools: [{ name: "echo", run: async (args: any) => text(`echo ${args.message}`) }],
    });
    cleanUp.push(v1);
    const server = await onLoopback((request) => v1.fetch(request));
    cleanUp.push(server);
    const toolkit = await toolkitFor(server.url);
    expect(server.seen.map((s) => s.method).slice(0, 2)).toEqual(["server/discover", "initialize"]);
    expect(v1.initializeParams()[0].protocolVersion).toBe("2025-11-25");
    expect(await toolkit.execute("fx_echo", { message: "hi" })).toEqual({
      output: "echo hi",
      isError: false,
    });
    const call = server.seen.find((s) => s.method === "tools/call");
    expect(call?.protocolVersion).toBe("2025-11-25");
    expect(call?.body.params._meta?.["io.modelcontextprotocol/protocolVersion"]).toBeUndefined();
  });

  it("every request carries the run's traceparent in _meta (discover, initialize, list), in both revisions; a call keeps its own", async () => {
    const RUN = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const CALL = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01";
    const { handler } = v2Server();
    const modern = await onLoopback((request) => handler.fetch(request as never));
    const v1: TestServer = streamableServer({
      tools: [{ name: "echo", run: async () => text("echoed") }],
    });
    const legacy = await onLoopback((request) => v1.fetch(request));
    cleanUp.push(modern, v1, legacy);
    const toolkit = await createToolkit({
      mcp: { mcpServers: { new: { url: modern.url }, old: { url: legacy.url } } },
      traceparent: RUN,
    });
    cleanUp.push(toolkit);
    await toolkit.execute("new_echo", {}, { traceparent: CALL });
    await toolkit.execute("old_echo", {}, { traceparent: CALL });
    expect(modern.seen.map((s) => s.method)).toEqual([
      "server/discover",
      "tools/list",
      "tools/call",
    ]);
    expect(legacy.seen.map((s) => s.method)).toEqual(
      expect.arrayContaining(["server/discover", "initialize", "tools/list", "tools/call"]),
    );
    for (const server of [modern, legacy]) {
      // Every JSON-RPC request (notifications have no id) carries a traceparent.
      const requests = server.seen.filter((s) => s.body?.id !== undefined);
      for (const seen of requests) {
        expect(seen.body.params?._meta?.traceparent, seen.method).toBe(
          seen.method === "tools/call" ? CALL : RUN,
        );
      }
    }
  });

  it("a traced run's tools/call carries the run's traceparent in _meta, in both revisions", async () => {
    const { handler } = v2Server();
    const modern = await onLoopback((request) => handler.fetch(request as never));
    const v1: TestServer = streamableServer({
      tools: [{ name: "echo", run: async () => text("echoed") }],
    });
    const legacy = await onLoopback((request) => v1.fetch(request));
    cleanUp.push(modern, v1, legacy);
    const toolkit = await createToolkit({
      mcp: { mcpServers: { new: { url: modern.url }, old: { url: legacy.url } } },
    });
    cleanUp.push(toolkit);
    const tracer = new BasicTracerProvider({
      sampler: new AlwaysOnSampler(),
      spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())],
    }).getTracer("mcp-test");
    const client = createClient({
      baseUrl: "https://llm.example/v1",
      style: "openai",
      model: "fake-model",
      fetch: fakeLlm("openai", [
        {
          toolCalls: [
            { id: "c1", name: "new_echo", args: {} },
            { id: "c2", name: "old_echo", args: {} },
          ],
        },
        { content: "Done." },
      ]).fetch,
      tracer,
    });
    const result = await client.run("echo both", { toolkit });
    expect(result.status).toBe("done");
    const traceparent = result.trace?.traceparent;
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    for (const server of [modern, legacy]) {
      const call = server.seen.find((s) => s.method === "tools/call");
      expect(call?.body.params._meta.traceparent).toBe(traceparent);
    }
  });
});
