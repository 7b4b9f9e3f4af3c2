/**
 * What the model is sent of a tool's output is bounded and honest (issue 38, item 2): past
 * `maxToolOutputBytes` (default 256 KiB; a tool's `maxOutputBytes` wins) the model gets the
 * output's first bytes, cut on a UTF-8 character boundary, plus `[output truncated: <total>
 * bytes, the first <shown> shown]`; the `tool_result` event says `truncated: { total, shown }`
 * and `RunResult.toolCalls` keeps the whole output. Applied after `afterTool`, never to a
 * suspension's placeholder, and to MCP and sub-agent results like any other.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  DEFAULT_MAX_TOOL_OUTPUT_BYTES,
  agent,
  answerOutput,
  boundToolOutput,
  createClient,
  createInProcessClient,
  createToolkit,
  defineTool,
  pending,
  truncationLine,
  type ClientOptions,
  type Message,
  type RunEvent,
  type Tool,
  type Toolkit,
} from "../../src/core";
import { fakeLlm, type Style } from "../helpers/fake-llm";
import { routeFetch, streamableServer, text, type TestServer } from "../helpers/mcp-server";
import { call, scripted, toolMessages } from "./agents/scripted";

const encoder = new TextEncoder();
const bytesOf = (s: string) => encoder.encode(s).length;

/** 1-, 2-, 3- and 4-byte characters, so every cut point meets each kind of boundary. */
const MIXED = "aé€😀";

function bigTool(output: string, extra: { maxOutputBytes?: number } = {}): Tool {
  return defineTool({
    name: "dump",
    description: "Returns a large document",
    run: () => output,
    ...extra,
  });
}

/** The tool results the request carried, in either wire style. */
function sentResults(style: Style, body: any): string[] {
  const out: string[] = [];
  for (const m of body.messages) {
    if (style === "openai" && m.role === "tool") {
      out.push(m.content);
    }
    if (style === "anthropic" && Array.isArray(m.content)) {
      for (const b of m.content) {
        if (b.type === "tool_result") {
          out.push(b.content);
        }
      }
    }
  }
  return out;
}

describe("boundToolOutput", () => {
  it("leaves an output within the bound as it is", () => {
    expect(boundToolOutput("hello", 5)).toEqual({ text: "hello" });
    expect(boundToolOutput("€€", 6)).toEqual({ text: "€€" });
    expect(boundToolOutput("", 1)).toEqual({ text: "" });
  });

  it("cuts on a character boundary at every byte limit, never splitting a multi-byte character", () => {
    const output = MIXED.repeat(5);
    const total = bytesOf(output); // 10 × 5 = 50
    for (let max = 1; max < total; max += 1) {
      const { text: sent, truncated } = boundToolOutput(output, max);
      expect(truncated?.total).toBe(total);
      const shown = truncated?.shown ?? -1;
      expect(shown).toBeLessThanOrEqual(max);
      expect(max - shown).toBeLessThan(4); // at most one character is left out for the boundary
      const [head, line, ...rest] = sent.split("\n");
      expect(rest).toEqual([]);
      expect(line).toBe(`[output truncated: ${total} bytes, the first ${shown} shown]`);
      expect(bytesOf(head ?? "")).toBe(shown);
      expect(output.startsWith(head ?? "\u0000")).toBe(true);
      expect(head).not.toContain("\uFFFD");
    }
  });

  it("shows nothing of an output whose first character is larger than the bound", () => {
    expect(boundToolOutput("😀x", 3)).toEqual({
      text: `\n${truncationLine({ total: 5, shown: 0 })}`,
      truncated: { total: 5, shown: 0 },
    });
  });

  it("is the same bound for a large output (no whole-string shortcuts that miscount)", () => {
    const output = "€".repeat(200_000); // 600,000 bytes, 200,000 UTF-16 units
    const { text: sent, truncated } = boundToolOutput(output, DEFAULT_MAX_TOOL_OUTPUT_BYTES);
    expect(truncated).toEqual({ total: 600_000, shown: 262_143 }); // 87,381 whole euros
    expect(sent.startsWith("€".repeat(87_381))).toBe(true);
  });
});

describe.each(["openai", "anthropic"] as Style[])("%s: what the model receives", (style) => {
  function scriptedClient(extra: Partial<ClientOptions> = {}) {
    const fake = fakeLlm(style, [
      { toolCalls: [{ id: "c1", name: "dump", args: {} }] },
      { content: "read it" },
    ]);
    const client = createClient({
      baseUrl: "https://llm.test/v1",
      style,
      model: "m",
      fetch: fake.fetch,
      ...extra,
    });
    return { fake, client };
  }

  it("a 300 KB output reaches the model as its first 256 KiB plus the truncation line (the default)", async () => {
    const output = "x".repeat(300_000);
    const { fake, client } = scriptedClient();
    const result = await client.run("dump it", {
      toolkit: await createToolkit({ tools: [bigTool(output)] }),
    });
    expect(result.status).toBe("done");
    const [sent] = sentResults(style, fake.bodies[1]);
    expect(sent).toBe(
      `${"x".repeat(262_144)}\n[output truncated: 300000 bytes, the first 262144 shown]`,
    );
    // The whole output is kept, and says what the model saw of it.
    expect(result.toolCalls).toEqual([
      {
        id: "c1",
        name: "dump",
        args: {},
        output,
        isError: false,
        truncated: { total: 300_000, shown: 262_144 },
      },
    ]);
    // The transcript is what the model saw.
    const toolMessage = result.messages.find((m) => m.role === "tool");
    expect(toolMessage?.role === "tool" && toolMessage.content).toBe(sent);
  });

  it("multi-byte text is cut on a character boundary; the event says total and shown", async () => {
    const output = MIXED.repeat(3); // 30 bytes
    const events: RunEvent[] = [];
    const { fake, client } = scriptedClient({
      maxToolOutputBytes: 12, // "aé€" is 6 bytes, "aé€😀a" would be 11, "aé€😀aé" 13
      onEvent: (event) => events.push(event),
    });
    const result = await client.run("dump it", {
      toolkit: await createToolkit({ tools: [bigTool(output)] }),
    });
    const expected = "aé€😀a\n[output truncated: 30 bytes, the first 11 shown]";
    expect(sentResults(style, fake.bodies[1])).toEqual([expected]);
    expect(events.find((e) => e.type === "tool_result")).toEqual({
      type: "tool_result",
      id: "c1",
      name: "dump",
      output: expected,
      isError: false,
      truncated: { total: 30, shown: 11 },
    });
    expect(result.toolCalls[0]?.output).toBe(output);
  });

  it("an output exactly at the bound is sent whole, with no truncated field anywhere", async () => {
    const output = MIXED.repeat(3);
    const events: RunEvent[] = [];
    const { fake, client } = scriptedClient({
      maxToolOutputBytes: 30,
      onEvent: (event) => events.push(event),
    });
    const result = await client.run("dump it", {
      toolkit: await createToolkit({ tools: [bigTool(output)] }),
    });
    expect(sentResults(style, fake.bodies[1])).toEqual([output]);
    expect(result.toolCalls[0]).not.toHaveProperty("truncated");
    expect(events.find((e) => e.type === "tool_result")).not.toHaveProperty("truncated");
  });
});

describe("which bound applies", () => {
  const twoTools = (extra: { maxOutputBytes?: number }) =>
    createToolkit({
      tools: [
        defineTool({ name: "own", description: "", run: () => "y".repeat(100), ...extra }),
        defineTool({ name: "plain", description: "", run: () => "z".repeat(100) }),
      ],
    });

  async function sentBy(toolkit: Toolkit, maxToolOutputBytes?: number) {
    const client = createInProcessClient({
      model: "m",
      ...(maxToolOutputBytes === undefined ? {} : { maxToolOutputBytes }),
      generate: (request) =>
        request.messages.some((m) => m.role === "tool")
          ? { content: "done" }
          : {
              toolCalls: [
                { id: "a", name: "own", arguments: "{}" },
                { id: "b", name: "plain", arguments: "{}" },
              ],
            },
    });
    const result = await client.run("go", { toolkit });
    return Object.fromEntries(
      result.messages.flatMap((m) => (m.role === "tool" ? [[m.name, m.content]] : [])),
    );
  }

  it("a tool's maxOutputBytes overrides the client's bound, for that tool only", async () => {
    const sent = await sentBy(await twoTools({ maxOutputBytes: 10 }), 50);
    expect(sent.own).toBe(`${"y".repeat(10)}\n[output truncated: 100 bytes, the first 10 shown]`);
    expect(sent.plain).toBe(`${"z".repeat(50)}\n[output truncated: 100 bytes, the first 50 shown]`);
  });

  it("a tool may allow more than the client, or everything (Infinity)", async () => {
    const sent = await sentBy(await twoTools({ maxOutputBytes: Number.POSITIVE_INFINITY }), 50);
    expect(sent.own).toBe("y".repeat(100));
    expect(sent.plain).toContain("[output truncated: 100 bytes, the first 50 shown]");
  });

  it("the bound survives requireApproval's wrapper (the gated tool keeps maxOutputBytes)", async () => {
    const { requireApproval } = await import("../../src/core");
    const gated = requireApproval(bigTool("w".repeat(40), { maxOutputBytes: 8 }), {
      policy: (_args, request) => answerOutput(request.id),
    });
    expect(gated.maxOutputBytes).toBe(8);
  });

  it("refuses a bound that is not a positive whole number of bytes", () => {
    for (const bad of [0, -1, 1.5, Number.NaN, "10"]) {
      expect(() =>
        createInProcessClient({
          model: "m",
          generate: () => ({ content: "" }),
          maxToolOutputBytes: bad as number,
        }),
      ).toThrow(/maxToolOutputBytes must be a positive whole number/);
      expect(() => bigTool("x", { maxOutputBytes: bad as number })).toThrow(
        /defineTool\(dump\): maxOutputBytes must be a positive whole number/,
      );
    }
  });
});

describe("where in the loop", () => {
  const oneCall = (name: string) => (request: { messages: Message[] }) =>
    request.messages.some((m) => m.role === "tool")
      ? { content: "done" }
      : { toolCalls: [{ id: "c1", name, arguments: "{}" }] };

  it("after afterTool: the hook sees the whole output, and a result it shortens is not cut", async () => {
    const seen: number[] = [];
    const client = createInProcessClient({
      model: "m",
      maxToolOutputBytes: 16,
      generate: oneCall("dump"),
      hooks: {
        afterTool: ({ result }) => {
          seen.push(result.output.length);
          return { result: { ...result, output: result.output.slice(0, 16) } };
        },
      },
    });
    const result = await client.run("go", {
      toolkit: await createToolkit({ tools: [bigTool("q".repeat(1000))] }),
    });
    expect(seen).toEqual([1000]);
    expect(toolMessages({ messages: result.messages } as never)[0]?.content).toBe("q".repeat(16));
    expect(result.toolCalls[0]).not.toHaveProperty("truncated");
  });

  it("a suspension's placeholder is never cut; the resolved result after the answer is", async () => {
    const prompt = `Approve ${"p".repeat(100)}?`;
    let answered = false;
    const gate = defineTool({
      name: "gate",
      description: "",
      run: (_args, ctx) => {
        if (ctx.answer) {
          answered = true;
          return "r".repeat(100);
        }
        return pending({ kind: "approval", prompt, id: "req-1" });
      },
    });
    const client = createInProcessClient({
      model: "m",
      maxToolOutputBytes: 20,
      generate: oneCall("gate"),
    });
    const toolkit = await createToolkit({ tools: [gate] });
    const halted = JSON.parse(JSON.stringify(await client.run("go", { toolkit })));
    expect(halted.status).toBe("pending");
    const placeholder = halted.messages.find((m: Message) => m.role === "tool");
    expect(placeholder.content).toBe(`pending: ${prompt}`);
    expect(placeholder.pending.prompt).toBe(prompt);

    const resumed = await client.runWithAnswer({
      ...halted,
      toolkit,
      pending: halted.pending,
      answer: answerOutput("req-1"),
    });
    expect(answered).toBe(true);
    expect(resumed.status).toBe("done");
    const filled = resumed.messages.find((m) => m.role === "tool");
    expect(filled?.role === "tool" && filled.content).toBe(
      `${"r".repeat(20)}\n[output truncated: 100 bytes, the first 20 shown]`,
    );
    expect(resumed.toolCalls[0]).toMatchObject({
      output: "r".repeat(100),
      truncated: { total: 100, shown: 20 },
    });
  });
});

describe("every kind of tool output", () => {
  const toCleanUp: TestServer[] = [];
  afterEach(async () => {
    await Promise.allSettled(toCleanUp.splice(0).map((x) => x.close()));
  });

  it("an MCP tool's result is bounded like any tool's", async () => {
    const server = streamableServer({
      tools: [{ name: "read", run: () => text(`${"€".repeat(10)}`) }],
    });
    toCleanUp.push(server);
    const toolkit = await createToolkit({
      mcp: { mcpServers: { docs: { url: "https://docs.test/mcp" } } },
      fetch: routeFetch({ "https://docs.test": server.fetch }),
    });
    try {
      const client = createInProcessClient({
        model: "m",
        maxToolOutputBytes: 10,
        generate: (request) =>
          request.messages.some((m) => m.role === "tool")
            ? { content: "done" }
            : { toolCalls: [{ id: "c1", name: "docs_read", arguments: "{}" }] },
      });
      const result = await client.run("go", { toolkit });
      const sent = result.messages.find((m) => m.role === "tool");
      expect(sent?.role === "tool" && sent.content).toBe(
        "€€€\n[output truncated: 30 bytes, the first 9 shown]",
      );
      expect(result.toolCalls[0]?.output).toBe("€".repeat(10));
    } finally {
      await toolkit.close();
    }
  });

  it("a sub-agent's final text is bounded in its caller's transcript", async () => {
    const model = scripted({
      "m-explore": () => ({ content: "found ".repeat(10) }),
      outer: (request) =>
        toolMessages(request).length === 0
          ? call("explore", { prompt: "look" })
          : { content: "thanks" },
    });
    const researcher = agent("explore", { does: "research", model: "m-explore" });
    const toolkit = await createToolkit({
      tools: [researcher.asTool({ client: { generate: model.generate }, model: "m" })],
    });
    const client = createInProcessClient({
      model: "outer",
      maxToolOutputBytes: 12,
      generate: model.generate,
    });
    const result = await client.run("research", { toolkit });
    const sent = result.messages.find((m) => m.role === "tool");
    expect(sent?.role === "tool" && sent.content).toBe(
      "found found \n[output truncated: 60 bytes, the first 12 shown]",
    );
    expect(result.toolCalls[0]).toMatchObject({
      output: "found ".repeat(10),
      truncated: { total: 60, shown: 12 },
    });
  });
});
