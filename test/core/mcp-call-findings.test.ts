/**
 * What the official MCP suites found about tool calls (issue 25 §2.1, 2.2, 2.6, 2.7), each
 * against a real SDK server reached through an injected fetch: elicitations over SSE with
 * two calls in flight, -32042 (URL elicitation required), a client `waitFor` answering
 * elicitations, and a response stream that closes without a reply.
 */
import { afterEach, describe, expect, it } from "vitest";
import { UrlElicitationRequiredError } from "@modelcontextprotocol/sdk/types.js";
import {
  answerDeclined,
  answerOutput,
  createClient,
  createInProcessClient,
  createToolkit,
  pendingOf,
  suspendCall,
  type Request,
  type RunEvent,
  type Toolkit,
} from "../../src/core";
import type { GeneratedMessage } from "../../src/core/client";
import {
  routeFetch,
  sseOnlyServer,
  streamableServer,
  text,
  type TestServer,
  type TestTool,
} from "../helpers/mcp-server";
import { fakeLlm } from "../helpers/fake-llm";

const ORIGIN = "https://tools.test";
const FORM = { type: "object", properties: { name: { type: "string" } } } as const;

const toCleanUp: Array<Toolkit | TestServer> = [];
afterEach(async () => {
  await Promise.allSettled(toCleanUp.splice(0).map((x) => x.close()));
});
const track = <T extends Toolkit | TestServer>(x: T): T => (toCleanUp.push(x), x);

/** Asks for a name on the call's own stream and reports what came back. */
const askName = (name: string): TestTool => ({
  name,
  run: async (_args, io) => {
    const reply = await io.elicit({ message: `${name}: your name?`, requestedSchema: FORM });
    return text(`${name}: ${reply.action} ${JSON.stringify(reply.content ?? null)}`);
  },
});

describe("2.1 elicitations over SSE with two calls of one turn in flight", () => {
  const sseToolkit = async (options: Parameters<typeof createToolkit>[0]) => {
    const server = track(sseOnlyServer({ tools: [askName("first"), askName("second")] }));
    const toolkit = track(
      await createToolkit({
        ...options,
        // Short, so a call whose elicitation is never matched fails instead of hanging.
        mcp: { mcpServers: { people: { url: `${ORIGIN}/sse`, transport: "sse", timeout: 3000 } } },
        fetch: routeFetch({ [ORIGIN]: server.fetch }),
      }),
    );
    expect(toolkit.mcpStatus().people).toMatchObject({ status: "connected", transport: "sse" });
    return { server, toolkit };
  };

  it("each elicitation is answered for its own call", async () => {
    const asked: Array<{ prompt: string; tool?: string }> = [];
    const { toolkit, server } = await sseToolkit({
      onElicitation: (request, ctx) => (
        asked.push({ prompt: request.prompt, tool: ctx.tool }),
        answerOutput(request.id, { name: `for ${ctx.tool}` })
      ),
    });
    const [first, second] = await Promise.all([
      toolkit.execute("people_first", {}),
      toolkit.execute("people_second", {}),
    ]);
    expect(first).toEqual({ output: 'first: accept {"name":"for people_first"}', isError: false });
    expect(second).toEqual({
      output: 'second: accept {"name":"for people_second"}',
      isError: false,
    });
    console.log("DBG", JSON.stringify(server.requests.map((r) => [r.method, r.url, r.body])));
    expect(asked).toEqual([
      { prompt: "first: your name?", tool: "people_first" },
      { prompt: "second: your name?", tool: "people_second" },
    ]);
  });

  it("a durable onElicitation suspends each call on its own request, never a lost suspension", async () => {
    const { toolkit } = await sseToolkit({
      onElicitation: (request, ctx) => suspendCall({ ...request, id: `durable-${ctx.callId}` }),
    });
    const [first, second] = await Promise.all([
      toolkit.execute("people_first", {}, { callId: "a" }),
      toolkit.execute("people_second", {}, { callId: "b" }),
    ]);
    expect(pendingOf(first)).toMatchObject({ id: "durable-a", prompt: "first: your name?" });
    expect(pendingOf(second)).toMatchObject({ id: "durable-b", prompt: "second: your name?" });
  });
});

describe("2.2 a call answered with -32042 (URL elicitation required)", () => {
  const connected = { value: false };
  const needsConnect: TestTool = {
    name: "sync",
    run: () => {
      if (!connected.value) {
        throw new UrlElicitationRequiredError([
          {
            mode: "url",
            message: "Connect your CRM account",
            url: "https://crm.example/connect?e=1",
            elicitationId: "el-1",
          },
        ]);
      }
      return text("synced 12 contacts");
    },
  };

  it("becomes an authorization request with the server's URL; the call is retried once the person is done", async () => {
    connected.value = false;
    const server = track(streamableServer({ tools: [needsConnect] }));
    const toolkit = track(
      await createToolkit({
        mcp: { mcpServers: { crm: { url: `${ORIGIN}/mcp` } } },
        fetch: routeFetch({ [ORIGIN]: server.fetch }),
        attributeElicitations: true, // data beyond the SPEC's request, as the edge asks (issue 40)
      }),
    );
    const asked: Request[] = [];
    const script: GeneratedMessage[] = [
      { toolCalls: [{ id: "call-1", name: "crm_sync", arguments: {} }] },
      { content: "Synced." },
    ];
    const client = createInProcessClient({
      model: "m",
      generate: () => script.shift()!,
      waitFor: (request) => {
        asked.push(request);
        connected.value = true; // the person followed the URL
        return answerOutput(request.id, {});
      },
    });
    const result = await client.run("sync my contacts", { toolkit });
    expect(asked).toEqual([
      {
        id: "urlreq_call-1",
        kind: "authorization",
        prompt: "crm_sync: Connect your CRM account",
        url: "https://crm.example/connect?e=1",
        data: {
          server: "crm",
          tool: "crm_sync",
          elicitations: [
            {
              mode: "url",
              elicitationId: "el-1",
              url: "https://crm.example/connect?e=1",
              message: "Connect your CRM account",
            },
          ],
        },
      },
    ]);
    expect(result.status).toBe("done");
    expect(result.toolCalls).toEqual([
      { id: "call-1", name: "crm_sync", args: {}, output: "synced 12 contacts", isError: false },
    ]);
  });

  it("declined: the usual declined result, and the tool is not called again", async () => {
    connected.value = false;
    const server = track(streamableServer({ tools: [needsConnect] }));
    const toolkit = track(
      await createToolkit({
        mcp: { mcpServers: { crm: { url: `${ORIGIN}/mcp` } } },
        fetch: routeFetch({ [ORIGIN]: server.fetch }),
      }),
    );
    const first = await toolkit.execute("crm_sync", {}, { callId: "c1" });
    expect(first.output).not.toMatch(/MCP error -32042: MCP error/);
    expect(pendingOf(first)).toMatchObject({
      kind: "authorization",
      url: "https://crm.example/connect?e=1",
    });
    const script: GeneratedMessage[] = [
      { toolCalls: [{ id: "call-1", name: "crm_sync", arguments: {} }] },
      { content: "Not connected." },
    ];
    const client = createInProcessClient({
      model: "m",
      generate: () => script.shift()!,
      waitFor: (request) => answerDeclined(request.id),
    });
    const result = await client.run("sync", { toolkit });
    expect(result.toolCalls[0]?.output).toMatch(
      /^declined\/expired: crm_sync: Connect your CRM account/,
    );
    const calls = server.messages().filter((m) => m.method === "tools/call");
    expect(calls).toHaveLength(2); // the direct call above, and the run's one
  });
});

describe("2.6 one waitFor: the client's answers MCP elicitations when the toolkit has none", () => {
  const setup = async () => {
    const server = track(streamableServer({ tools: [askName("greet")] }));
    const toolkit = track(
      await createToolkit({
        mcp: { mcpServers: { people: { url: `${ORIGIN}/mcp` } } },
        fetch: routeFetch({ [ORIGIN]: server.fetch }),
      }),
    );
    return { server, toolkit };
  };

  it("elicitation is advertised, and stream() emits pending for it before the client's waitFor answers", async () => {
    const { server, toolkit } = await setup();
    expect(server.initializeParams()[0].capabilities).toEqual({
      elicitation: { form: {}, url: {} },
    });
    const llm = fakeLlm("openai", [
      { toolCalls: [{ id: "call-1", name: "people_greet", args: {} }] },
      { content: "Greeted." },
    ]);
    const order: string[] = [];
    const client = createClient({
      baseUrl: "https://llm.test/v1",
      style: "openai",
      model: "m",
      fetch: llm.fetch,
      waitFor: (request) => (
        order.push(`waitFor ${request.kind}`), answerOutput(request.id, { name: "Ada" })
      ),
    });
    const events: RunEvent[] = [];
    for await (const event of client.stream("greet me", { toolkit })) {
      events.push(event);
      if (event.type === "pending") {
        order.push(`pending ${event.request.kind}`);
      }
    }
    expect(order).toEqual(["pending input", "waitFor input"]);
    const pendingEvent = events.find((e) => e.type === "pending") as Extract<
      RunEvent,
      { type: "pending" }
    >;
    expect(pendingEvent).toMatchObject({
      id: "call-1",
      request: { kind: "input", prompt: "greet: your name?", data: { tool: "people_greet" } },
    });
    expect(events.find((e) => e.type === "tool_result")).toMatchObject({
      output: 'greet: accept {"name":"Ada"}',
      isError: false,
    });
    expect(server.elicitResults).toEqual([{ action: "accept", content: { name: "Ada" } }]);
  });

  it("with no waitFor anywhere the run halts on the elicitation; the answer re-executes the call and answers the server", async () => {
    const { server, toolkit } = await setup();
    const script: GeneratedMessage[] = [
      { toolCalls: [{ id: "call-1", name: "people_greet", arguments: {} }] },
      { content: "Greeted." },
    ];
    const client = createInProcessClient({ model: "m", generate: () => script.shift()! });
    const halted = JSON.parse(JSON.stringify(await client.run("greet me", { toolkit })));
    expect(halted.status).toBe("pending");
    expect(halted.pending).toMatchObject({ id: "eli_call-1", kind: "input" });
    const done = await client.runWithAnswer({
      toolkit,
      history: halted.messages,
      pending: halted.pending,
      answer: answerOutput("eli_call-1", { name: "Grace" }),
    });
    expect(done.status).toBe("done");
    expect(done.toolCalls.at(-1)?.output).toBe('greet: accept {"name":"Grace"}');
    expect(server.elicitResults).toEqual([
      { action: "cancel" },
      { action: "accept", content: { name: "Grace" } },
    ]);
  });
});

describe("2.7 a response stream that closes without a reply", () => {
  it("fails the call at once (not at the timeout), whether it ends or breaks; the server's other calls go on", async () => {
    const plain = (name: string): TestTool => ({ name, run: () => text(`${name} ran`) });
    const server = track(
      streamableServer({ tools: [plain("fine"), plain("ends"), plain("breaks")] }),
    );
    // The server's answer to a call of `ends` / `breaks` is lost on the way.
    const lossy: typeof fetch = async (input, init) => {
      const body = typeof init?.body === "string" ? init.body : "";
      const headers = { "content-type": "text/event-stream" };
      if (body.includes('"name":"ends"')) {
        return new Response("", { headers });
      }
      if (body.includes('"name":"breaks"')) {
        const broken = new ReadableStream({
          start: (controller) => controller.error(new TypeError("socket hang up")),
        });
        return new Response(broken, { headers });
      }
      return server.fetch(input, init);
    };
    const toolkit = track(
      await createToolkit({
        // A timeout far past the test's own: only failing at once passes.
        mcp: { mcpServers: { flaky: { url: `${ORIGIN}/mcp`, timeout: 600_000 } } },
        fetch: routeFetch({ [ORIGIN]: lossy }),
      }),
    );
    const lost = (name: string) => ({
      output: `${name} failed: the server closed the response stream without a reply`,
      isError: true,
    });
    expect(await toolkit.execute("flaky_ends", {})).toEqual(lost("flaky_ends"));
    expect(await toolkit.execute("flaky_breaks", {})).toEqual(lost("flaky_breaks"));
    expect(await toolkit.execute("flaky_fine", {})).toEqual({ output: "fine ran", isError: false });
  });
});
