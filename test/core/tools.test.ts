/**
 * Tool sources and the toolkit (docs/architecture.md §2): defineTool, httpTool, relayTool,
 * requireApproval, createToolkit and its three provider shapes.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  answerDeclined,
  answerOutput,
  createClient,
  createToolkit,
  defineTool,
  httpTool,
  isPending,
  pendingOf,
  relayTool,
  requireApproval,
  type Context,
  type RunResult,
  type Tool,
} from "../../src/core";
import { fakeLlm, type Step } from "../helpers/fake-llm";

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const roundTrip = (r: RunResult): RunResult => JSON.parse(JSON.stringify(r));

/** A fetch that records every request and answers with `reply`. */
function recordingFetch(reply: () => Response = () => new Response("ok")) {
  const requests: Array<{ url: string; method: string; headers: Headers; body: string }> = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    requests.push({
      url: request.url,
      method: request.method,
      headers: request.headers,
      body: await request.text(),
    });
    return reply();
  };
  return { fetch, requests };
}

describe("defineTool", () => {
  const weatherZod = z.object({
    city: z.string(),
    days: z.number().int().min(1),
    units: z.enum(["c", "f"]).default("c"),
  });
  const weatherJson = {
    type: "object",
    properties: { city: { type: "string" }, days: { type: "integer", minimum: 1 } },
    required: ["city", "days"],
    additionalProperties: false,
  };

  it("zod: the JSON Schema is made when first read, once (not while a worker starts)", () => {
    const schema = z.object({ city: z.string() });
    let conversions = 0;
    // zod's own hook: z.toJSONSchema asks a schema for an override before converting it.
    schema._zod.toJSONSchema = () => {
      conversions += 1;
      return { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    };
    const tool = defineTool({ name: "t", description: "", inputSchema: schema, run: () => "" });
    const gated = requireApproval(tool);
    expect(conversions).toBe(0);
    expect(gated.inputSchema).toMatchObject({ required: ["city"] });
    expect(tool.inputSchema).toBe(gated.inputSchema);
    expect(conversions).toBe(1);
    expect(Object.keys(gated).sort()).toEqual(Object.keys(tool).sort());
  });

  it("zod: bad arguments never reach run, and every problem is listed", async () => {
    const calls: unknown[] = [];
    const tool = defineTool({
      name: "weather",
      description: "Forecast",
      inputSchema: weatherZod,
      run: (a) => (calls.push(a), "sunny"),
    });
    const result = await tool.execute({ city: 42, days: 0, units: "k" }, {});
    expect(calls).toEqual([]);
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^invalid arguments for weather/);
    expect(result.output).toMatch(/^- city: .+/m);
    expect(result.output).toMatch(/^- days: .+/m);
    expect(result.output).toMatch(/^- units: .+/m);
  });

  it("zod: valid arguments reach run parsed (defaults applied)", async () => {
    const tool = defineTool({
      name: "weather",
      description: "Forecast",
      inputSchema: weatherZod,
      run: (a) => JSON.stringify(a),
    });
    const result = await tool.execute({ city: "Oslo", days: 2 }, {});
    expect(result).toEqual({ output: '{"city":"Oslo","days":2,"units":"c"}', isError: false });
    expect(tool.inputSchema).toMatchObject({
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer", minimum: 1 } },
      required: ["city", "days"],
    });
    expect(tool.inputSchema).not.toHaveProperty("$schema");
    expect(tool.source).toBe("native");
  });

  it("JSON Schema: bad arguments never reach run, and every problem is listed", async () => {
    const calls: unknown[] = [];
    const tool = defineTool({
      name: "weather",
      description: "Forecast",
      inputSchema: weatherJson,
      run: (a) => (calls.push(a), "sunny"),
    });
    const result = await tool.execute({ days: "two", extra: true }, {});
    expect(calls).toEqual([]);
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^invalid arguments for weather/);
    expect(result.output).toContain("city"); // missing
    expect(result.output).toMatch(/\/days: .*(integer|type)/); // wrong type
    expect(result.output).toContain("extra"); // not allowed
    expect(tool.inputSchema).toEqual(weatherJson);
  });

  it("JSON Schema: valid arguments reach run as given", async () => {
    const tool = defineTool({
      name: "weather",
      description: "Forecast",
      inputSchema: weatherJson,
      run: ({ city, days }) => `${city}:${days}`,
    });
    expect(await tool.execute({ city: "Oslo", days: 3 }, {})).toEqual({
      output: "Oslo:3",
      isError: false,
    });
  });

  it("a string return is the output; an object return is its JSON; a ToolResult passes through", async () => {
    const make = (value: unknown) => defineTool({ name: "t", description: "", run: () => value });
    expect(await make("plain").execute({}, {})).toEqual({ output: "plain", isError: false });
    expect(await make({ total: 3, items: ["a"] }).execute({}, {})).toEqual({
      output: '{"total":3,"items":["a"]}',
      isError: false,
    });
    expect(await make({ output: "custom", isError: true }).execute({}, {})).toEqual({
      output: "custom",
      isError: true,
    });
  });

  it("an async run works the same", async () => {
    const tool = defineTool({ name: "t", description: "", run: async () => ({ ok: true }) });
    expect(await tool.execute({}, {})).toEqual({ output: '{"ok":true}', isError: false });
  });

  it("a thrown error becomes an error result with its message", async () => {
    const tool = defineTool({
      name: "flaky",
      description: "",
      run: async () => {
        throw new Error("database unavailable");
      },
    });
    const result = await tool.execute({}, {});
    expect(result.isError).toBe(true);
    expect(result.output).toContain("flaky");
    expect(result.output).toContain("database unavailable");
  });

  it("passes the context through to run", async () => {
    let seen: Context | undefined;
    const tool = defineTool({
      name: "t",
      description: "",
      run: (_a, ctx) => {
        seen = ctx;
        return "x";
      },
    });
    await tool.execute({}, { callId: "call-1", runId: "run-1" });
    expect(seen).toMatchObject({ callId: "call-1", runId: "run-1" });
  });
});

describe("httpTool", () => {
  const repoSchema = {
    type: "object",
    properties: {
      owner: { type: "string" },
      path: { type: "string" },
      q: { type: "string" },
      limit: { type: "number" },
    },
    required: ["owner", "path"],
  };

  it("substitutes {placeholders} URL-encoded, and sends the other arguments as the query (GET)", async () => {
    const { fetch, requests } = recordingFetch(() => new Response('{"found":1}'));
    const tool = httpTool({
      name: "find",
      description: "Find",
      url: "https://api.test/repos/{owner}/files/{path}",
      inputSchema: repoSchema,
      fetch,
    });
    const result = await tool.execute(
      { owner: "Zoë Ōtani", path: "docs/read me.md", q: "a&b=c", limit: 5 },
      {},
    );
    expect(result).toEqual({ output: '{"found":1}', isError: false });
    expect(requests).toHaveLength(1);
    const url = new URL(requests[0]!.url);
    expect(requests[0]!.method).toBe("GET");
    expect(url.pathname).toBe(
      `/repos/${encodeURIComponent("Zoë Ōtani")}/files/docs%2Fread%20me.md`,
    );
    expect(decodeURIComponent(url.pathname.split("/")[2]!)).toBe("Zoë Ōtani");
    expect(url.searchParams.get("q")).toBe("a&b=c");
    expect(url.searchParams.get("limit")).toBe("5");
    // Placeholder arguments are consumed by the URL, not repeated in the query.
    expect(url.searchParams.has("owner")).toBe(false);
    expect(url.searchParams.has("path")).toBe(false);
    expect(requests[0]!.body).toBe("");
  });

  it("sends the other arguments as a JSON body (POST)", async () => {
    const { fetch, requests } = recordingFetch(() => new Response("created", { status: 201 }));
    const tool = httpTool({
      name: "create_issue",
      description: "Create",
      method: "POST",
      url: "https://api.test/repos/{owner}/issues",
      inputSchema: {
        type: "object",
        properties: {
          owner: { type: "string" },
          title: { type: "string" },
          labels: { type: "array" },
        },
      },
      fetch,
    });
    const result = await tool.execute({ owner: "acme", title: "Bug: ✗", labels: ["p1"] }, {});
    expect(result).toEqual({ output: "created", isError: false });
    const [req] = requests;
    expect(req!.method).toBe("POST");
    expect(req!.url).toBe("https://api.test/repos/acme/issues");
    expect(req!.headers.get("content-type")).toMatch(/^application\/json/);
    expect(JSON.parse(req!.body)).toEqual({ title: "Bug: ✗", labels: ["p1"] });
  });

  it("expands ${ENV} in headers from the toolkit env", async () => {
    const { fetch, requests } = recordingFetch();
    const tool = httpTool({
      name: "ping",
      description: "Ping",
      url: "https://api.test/ping",
      headers: { authorization: "Bearer ${TOKEN}", "x-client": "toolnexus/${APP_VERSION}" },
      fetch,
    });
    const toolkit = await createToolkit({
      tools: [tool],
      env: { TOKEN: "s3cret", APP_VERSION: "1.2" },
    });
    const result = await toolkit.execute("ping", {});
    expect(result.isError).toBe(false);
    expect(requests[0]!.headers.get("authorization")).toBe("Bearer s3cret");
    expect(requests[0]!.headers.get("x-client")).toBe("toolnexus/1.2");
  });

  it("an unset variable is an error naming it, never echoing a secret, and nothing is sent", async () => {
    const { fetch, requests } = recordingFetch();
    const tool = httpTool({
      name: "ping",
      description: "Ping",
      url: "https://api.test/ping",
      headers: {
        authorization: "Bearer ${TOKEN}",
        "x-tenant": "${TOOLNEXUS_TEST_SURELY_UNSET_VAR}",
      },
      fetch,
    });
    const toolkit = await createToolkit({ tools: [tool], env: { TOKEN: "s3cret" } });
    const result = await toolkit.execute("ping", {});
    expect(result.isError).toBe(true);
    expect(result.output).toContain("TOOLNEXUS_TEST_SURELY_UNSET_VAR");
    expect(result.output).not.toContain("s3cret");
    expect(JSON.stringify(result)).not.toContain("s3cret");
    expect(requests).toHaveLength(0);
  });

  it("a non-2xx response is an `HTTP <status>: <body>` error result", async () => {
    const { fetch } = recordingFetch(() => new Response("no such repo", { status: 404 }));
    const tool = httpTool({
      name: "find",
      description: "Find",
      url: "https://api.test/repos/{owner}/files/{path}",
      inputSchema: repoSchema,
      fetch,
    });
    const result = await tool.execute({ owner: "x", path: "y" }, {});
    expect(result).toEqual({ output: "HTTP 404: no such repo", isError: true });
  });

  it("a failing fetch is an error result", async () => {
    const tool = httpTool({
      name: "ping",
      description: "Ping",
      url: "https://api.test/ping",
      fetch: async () => {
        throw new TypeError("network down");
      },
    });
    const result = await tool.execute({}, {});
    expect(result.isError).toBe(true);
    expect(result.output).toContain("network down");
  });

  it("invalid arguments are reported and nothing is sent", async () => {
    const { fetch, requests } = recordingFetch();
    const tool = httpTool({
      name: "find",
      description: "Find",
      url: "https://api.test/repos/{owner}/files/{path}",
      inputSchema: repoSchema,
      fetch,
    });
    const result = await tool.execute({ owner: 1 }, {});
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/invalid arguments for find/);
    expect(requests).toHaveLength(0);
    expect(tool.source).toBe("http");
  });
});

describe("relayTool", () => {
  it("suspends with a tool_call request carrying its name and arguments", async () => {
    const tool = relayTool(
      "lookup_user",
      "Look a user up (runs in the caller)",
      z.object({ email: z.string() }),
    );
    expect(tool.source).toBe("relay");
    expect(tool.inputSchema).toMatchObject({
      type: "object",
      properties: { email: { type: "string" } },
    });
    const result = await tool.execute({ email: "ada@example.com" }, {});
    expect(isPending(result)).toBe(true);
    expect(pendingOf(result)).toMatchObject({
      kind: "tool_call",
      data: { name: "lookup_user", arguments: { email: "ada@example.com" } },
    });
  });

  it("on resume the model gets the answer's data", async () => {
    const fake = fakeLlm("openai", [
      { toolCalls: [{ id: "c1", name: "lookup_user", args: { email: "ada@example.com" } }] },
      { content: "Ada it is." },
    ]);
    const client = createClient({
      baseUrl: "https://llm.test/v1",
      style: "openai",
      model: "m",
      fetch: fake.fetch,
    });
    const toolkit = await createToolkit({ tools: [relayTool("lookup_user", "Look a user up")] });
    const halted = roundTrip(await client.run("who is ada?", { toolkit }));
    expect(halted.status).toBe("pending");
    expect(halted.pending!.kind).toBe("tool_call");
    expect(halted.pending!.data).toEqual({
      name: "lookup_user",
      arguments: { email: "ada@example.com" },
    });

    const answer = answerOutput(halted.pending!.id, { name: "Ada Lovelace", id: 7 });
    const result = await client.runWithAnswer({
      ...halted,
      toolkit,
      history: halted.messages,
      pending: halted.pending!,
      answer,
    });
    expect(result.status).toBe("done");
    expect(fake.bodies[1].messages.at(-1)).toEqual({
      role: "tool",
      tool_call_id: "c1",
      content: '{"name":"Ada Lovelace","id":7}',
    });
  });

  it("a string answer is passed through as the output", async () => {
    const tool = relayTool("t", "");
    const result = await tool.execute({}, { answer: answerOutput("r", "plain text") });
    expect(result).toEqual({ output: "plain text", isError: false });
  });
});

describe("requireApproval", () => {
  function refundTool(log: unknown[]): Tool {
    return defineTool({
      name: "refund",
      description: "Refund an order",
      inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
      run: (a) => (log.push(a), `refunded ${a.amount}`),
    });
  }

  it("keeps the wrapped tool's name, description, schema and source", () => {
    const inner = refundTool([]);
    const wrapped = requireApproval(inner);
    expect([wrapped.name, wrapped.description, wrapped.source]).toEqual([
      inner.name,
      inner.description,
      inner.source,
    ]);
    expect(wrapped.inputSchema).toEqual(inner.inputSchema);
  });

  it("suspends with an approval request before the tool runs", async () => {
    const log: unknown[] = [];
    const result = await requireApproval(refundTool(log)).execute(
      { orderId: "42", amount: 120 },
      { callId: "call_1" },
    );
    expect(log).toEqual([]);
    const request = pendingOf(result)!;
    expect(request.kind).toBe("approval");
    expect(request.prompt).toContain("refund");
    expect(request.data).toEqual({ tool: "refund", args: { orderId: "42", amount: 120 } });
    expect(request).not.toHaveProperty("expiresAt");
  });

  it("`when` false runs the tool directly", async () => {
    const log: unknown[] = [];
    const tool = requireApproval<{ amount: number }>(refundTool(log), {
      when: (a) => a.amount > 100,
    });
    expect(await tool.execute({ orderId: "1", amount: 20 }, {})).toEqual({
      output: "refunded 20",
      isError: false,
    });
    expect(log).toEqual([{ orderId: "1", amount: 20 }]);
    expect(isPending(await tool.execute({ orderId: "2", amount: 500 }, {}))).toBe(true);
    expect(log).toHaveLength(1);
  });

  it("builds the prompt with a function of the args, and takes a kind", async () => {
    const tool = requireApproval<{ orderId: string; amount: number }>(refundTool([]), {
      prompt: (a) => `Refund $${a.amount} on order ${a.orderId}?`,
      kind: "question",
    });
    const request = pendingOf(await tool.execute({ orderId: "42", amount: 120 }, {}))!;
    expect(request.prompt).toBe("Refund $120 on order 42?");
    expect(request.kind).toBe("question");
  });

  it("a fixed prompt string is used as is", async () => {
    const request = pendingOf(
      await requireApproval(refundTool([]), { prompt: "Refund?" }).execute(
        { orderId: "1", amount: 1 },
        {},
      ),
    )!;
    expect(request.prompt).toBe("Refund?");
  });

  it("expiresIn sets an RFC 3339 expiresAt in the future", async () => {
    const before = Date.now();
    const request = pendingOf(
      await requireApproval(refundTool([]), { expiresIn: 15 * 60_000 }).execute(
        { orderId: "1", amount: 1 },
        {},
      ),
    )!;
    expect(request.expiresAt).toMatch(RFC3339);
    const at = Date.parse(request.expiresAt!);
    expect(at).toBeGreaterThanOrEqual(before + 15 * 60_000);
    expect(at).toBeLessThanOrEqual(Date.now() + 15 * 60_000);
  });

  it("a declining policy: the tool is not run, the result is declined/expired: <prompt>", async () => {
    const log: unknown[] = [];
    const seenRequests: unknown[] = [];
    const tool = requireApproval<{ amount: number }>(refundTool(log), {
      prompt: "Refund over limit?",
      policy: (a, request) => {
        seenRequests.push(request);
        return a.amount > 10_000
          ? answerDeclined(request.id, "policy: amount over threshold")
          : undefined;
      },
    });
    const result = await tool.execute({ orderId: "9", amount: 50_000 }, {});
    expect(log).toEqual([]);
    expect(isPending(result)).toBe(false);
    expect(result.isError).toBe(true);
    expect(result.output).toBe("declined/expired: Refund over limit?");
    expect(seenRequests).toHaveLength(1);
    expect(seenRequests[0]).toMatchObject({ kind: "approval", prompt: "Refund over limit?" });
    // A policy that abstains leaves it to a person.
    expect(isPending(await tool.execute({ orderId: "9", amount: 50 }, {}))).toBe(true);
  });

  it("an approving policy runs the tool, whatever id its answer carries", async () => {
    const log: unknown[] = [];
    const tool = requireApproval(refundTool(log), { policy: () => answerOutput("some-other-id") });
    const result = await tool.execute({ orderId: "3", amount: 5 }, {});
    expect(result.output).toBe("refunded 5");
    expect(result.isError).toBe(false);
    expect(log).toEqual([{ orderId: "3", amount: 5 }]);
  });

  describe("in a run", () => {
    async function setup(steps: Step[], wrap: (t: Tool) => Tool) {
      const log: unknown[] = [];
      const fake = fakeLlm("openai", steps);
      const client = createClient({
        baseUrl: "https://llm.test/v1",
        style: "openai",
        model: "m",
        fetch: fake.fetch,
      });
      const toolkit = await createToolkit({ tools: [wrap(refundTool(log))] });
      return { log, fake, client, toolkit };
    }
    const refundCall: Step = {
      toolCalls: [{ id: "c1", name: "refund", args: { orderId: "42", amount: 120 } }],
    };

    it("halts, and runs the tool once after an ok answer", async () => {
      const { log, fake, client, toolkit } = await setup(
        [refundCall, { content: "Refunded." }],
        (t) => requireApproval(t),
      );
      const halted = roundTrip(await client.run("refund 42", { toolkit }));
      expect(halted.status).toBe("pending");
      expect(log).toEqual([]);
      const result = await client.runWithAnswer({
        ...halted,
        toolkit,
        history: halted.messages,
        pending: halted.pending!,
        answer: answerOutput(halted.pending!.id),
      });
      expect(result.status).toBe("done");
      expect(log).toEqual([{ orderId: "42", amount: 120 }]);
      expect(fake.bodies[1].messages.at(-1).content).toBe("refunded 120");
    });

    it("a declining policy never halts: the model reads declined/expired and the reason is kept off the wire", async () => {
      const { log, fake, client, toolkit } = await setup(
        [refundCall, { content: "I can't refund that." }],
        (t) =>
          requireApproval(t, {
            prompt: "Refund $120?",
            policy: (_a, req) => answerDeclined(req.id, "policy: amount over threshold"),
          }),
      );
      const result = await client.run("refund 42", { toolkit });
      expect(result.status).toBe("done");
      expect(log).toEqual([]);
      expect(fake.bodies[1].messages.at(-1)).toEqual({
        role: "tool",
        tool_call_id: "c1",
        content: "declined/expired: Refund $120?",
      });
      expect(result.toolCalls[0]).toMatchObject({
        output: "declined/expired: Refund $120?",
        isError: true,
      });
    });
  });
});

describe("createToolkit", () => {
  const tool = (name: string, output = name, source?: string): Tool =>
    defineTool({
      name,
      description: `${name} tool`,
      inputSchema: z.object({ x: z.string().optional() }),
      run: () => output,
      ...(source ? { source } : {}),
    });

  it("keeps the first of duplicate names and warns", async () => {
    const warnings: string[] = [];
    const toolkit = await createToolkit({
      tools: [tool("a", "first"), tool("b"), tool("a", "second")],
      warn: (m) => warnings.push(m),
    });
    expect(toolkit.tools().map((t) => t.name)).toEqual(["a", "b"]);
    expect((await toolkit.execute("a", {})).output).toBe("first");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"a"');
  });

  it("accepts extraTools as an alias, and builtins (ignored)", async () => {
    const warnings: string[] = [];
    const toolkit = await createToolkit({
      tools: [tool("a")],
      extraTools: [tool("b")],
      builtins: ["read_file", "bash"],
      warn: (m) => warnings.push(m),
    });
    expect(toolkit.tools().map((t) => t.name)).toEqual(["a", "b"]);
    expect(warnings).toEqual([]);
  });

  it("get and register", async () => {
    const warnings: string[] = [];
    const toolkit = await createToolkit({ tools: [tool("a")], warn: (m) => warnings.push(m) });
    expect(toolkit.get("a")?.name).toBe("a");
    expect(toolkit.get("nope")).toBeUndefined();
    toolkit.register(tool("b", "from b"), tool("c"));
    expect(toolkit.tools().map((t) => t.name)).toEqual(["a", "b", "c"]);
    expect(await toolkit.execute("b", {})).toEqual({ output: "from b", isError: false });
    toolkit.register(tool("c", "again"));
    expect(warnings).toHaveLength(1);
    expect((await toolkit.execute("c", {})).output).toBe("c");
  });

  it("execute of an unknown name is an error result naming it", async () => {
    const toolkit = await createToolkit({ tools: [tool("a"), tool("b")] });
    const result = await toolkit.execute("delete_everything", {});
    expect(result.isError).toBe(true);
    expect(result.output).toContain("delete_everything");
  });

  it("execute turns a tool that throws into an error result", async () => {
    const rogue: Tool = {
      name: "rogue",
      description: "",
      inputSchema: { type: "object", properties: {} },
      source: "native",
      execute: async () => {
        throw new Error("unexpected");
      },
    };
    const toolkit = await createToolkit({ tools: [rogue] });
    const result = await toolkit.execute("rogue", {});
    expect(result.isError).toBe(true);
    expect(result.output).toContain("unexpected");
  });

  it("execute hands the toolkit env to the tool", async () => {
    let env: unknown;
    const t = defineTool({
      name: "e",
      description: "",
      run: (_a, ctx) => {
        env = ctx.env;
        return "ok";
      },
    });
    const toolkit = await createToolkit({ tools: [t], env: { REGION: "eu" } });
    await toolkit.execute("e", {}, { callId: "c1" });
    expect(env).toEqual({ REGION: "eu" });
  });

  describe("provider shapes", () => {
    const schema = { type: "object", properties: { q: { type: "string" } }, required: ["q"] };
    const search = defineTool({
      name: "search",
      description: "Search the web",
      inputSchema: schema,
      run: () => "",
    });
    const now = defineTool({ name: "now", description: "Current time", run: () => "" });

    it("toOpenAI", async () => {
      const toolkit = await createToolkit({ tools: [search, now] });
      expect(toolkit.toOpenAI()).toEqual([
        {
          type: "function",
          function: { name: "search", description: "Search the web", parameters: schema },
        },
        {
          type: "function",
          function: {
            name: "now",
            description: "Current time",
            parameters: { type: "object", properties: {} },
          },
        },
      ]);
    });

    it("toAnthropic", async () => {
      const toolkit = await createToolkit({ tools: [search, now] });
      expect(toolkit.toAnthropic()).toEqual([
        { name: "search", description: "Search the web", input_schema: schema },
        {
          name: "now",
          description: "Current time",
          input_schema: { type: "object", properties: {} },
        },
      ]);
    });

    it("toGemini", async () => {
      const toolkit = await createToolkit({ tools: [search, now] });
      expect(toolkit.toGemini()).toEqual([
        {
          functionDeclarations: [
            { name: "search", description: "Search the web", parameters: schema },
            {
              name: "now",
              description: "Current time",
              parameters: { type: "object", properties: {} },
            },
          ],
        },
      ]);
    });

    it("an empty toolkit gives empty lists", async () => {
      const toolkit = await createToolkit({});
      expect(toolkit.toOpenAI()).toEqual([]);
      expect(toolkit.toAnthropic()).toEqual([]);
      expect(toolkit.toGemini()).toEqual([{ functionDeclarations: [] }]);
    });
  });
});
