/**
 * Hooks around model calls and tool calls (docs/architecture.md §2 "Hooks", §3 rule 4):
 * what each hook sees, what it may change, and how a guard-raised suspension flows.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  answerDeclined,
  answerOutput,
  createClient,
  createToolkit,
  defineTool,
  isPending,
  pending,
  type ClientOptions,
  type Hooks,
  type MetricEvent,
  type RunResult,
  type ToolResult,
} from "../../src/core";
import { assertBalanced, fakeLlm, type Step, type Style } from "../helpers/fake-llm";

async function setup(
  steps: Step[],
  hooks: Hooks,
  extra: Partial<ClientOptions> = {},
  style: Style = "openai",
) {
  const fake = fakeLlm(style, steps);
  const runs: Array<{ tool: string; args: unknown; answer?: unknown }> = [];
  const toolkit = await createToolkit({
    tools: [
      defineTool({
        name: "echo",
        description: "Echo",
        inputSchema: z.object({ text: z.string() }),
        run: ({ text }, ctx) => {
          runs.push({
            tool: "echo",
            args: { text },
            ...(ctx.answer ? { answer: ctx.answer } : {}),
          });
          return `echo:${text}`;
        },
      }),
      defineTool({
        name: "clock",
        description: "The time",
        run: () => {
          runs.push({ tool: "clock", args: {} });
          return "12:00";
        },
      }),
    ],
  });
  const client = createClient({
    baseUrl: "https://llm.test/v1",
    style,
    model: "hook-model",
    fetch: fake.fetch,
    hooks,
    ...extra,
  });
  return { fake, runs, toolkit, client };
}

const echoCall = (id: string, text: string): Step => ({
  toolCalls: [{ id, name: "echo", args: { text } }],
});
const toolMessages = (body: any) => body.messages.filter((m: any) => m.role === "tool");
/** A halted result as it comes back from storage. */
const roundTrip = (r: RunResult): RunResult => JSON.parse(JSON.stringify(r));

describe("beforeLLM", () => {
  it.each<Style>(["openai", "anthropic"])(
    "%s: can replace the messages and tools of one call",
    async (style) => {
      const seen: Array<{ turn: number; model: string; tools: string[]; count: number }> = [];
      const { fake, client, toolkit } = await setup(
        [echoCall("c1", "a"), { content: "done" }],
        {
          beforeLLM: ({ messages, tools, model, turn }) => {
            seen.push({ turn, model, tools: tools.map((t) => t.name), count: messages.length });
            if (turn === 0) {
              return {
                messages: [...messages, { role: "user", content: "Remember: answer in French." }],
                tools: tools.filter((t) => t.name === "echo"),
              };
            }
          },
        },
        {},
        style,
      );
      await client.run("hello", { toolkit });

      expect(seen).toEqual([
        { turn: 0, model: "hook-model", tools: ["echo", "clock"], count: 1 },
        { turn: 1, model: "hook-model", tools: ["echo", "clock"], count: 3 },
      ]);
      const [first, second] = fake.bodies;
      // Every text a request carried, one entry per text part, in either style.
      const texts = (body: any): string[] =>
        body.messages.flatMap((m: any) =>
          Array.isArray(m.content) ? m.content.map((b: any) => b.text) : [m.content],
        );
      expect(texts(first)).toContain("Remember: answer in French.");
      expect(first.tools).toHaveLength(1);
      // The replacement was for that call only: the run's transcript is untouched.
      expect(texts(second)).not.toContain("Remember: answer in French.");
      expect(second.tools).toHaveLength(2);
    },
  );

  it("an empty tools replacement omits tools from the body", async () => {
    const { fake, client, toolkit } = await setup(
      [{ content: "hi" }],
      { beforeLLM: () => ({ tools: [] }) },
      { requestParams: { tool_choice: "auto" } },
    );
    await client.run("hello", { toolkit });
    expect(fake.bodies[0]).not.toHaveProperty("tools");
    expect(fake.bodies[0]).not.toHaveProperty("tool_choice");
  });
});

describe("afterLLM", () => {
  it("sees each response with its turn", async () => {
    const seen: Array<{
      turn: number;
      model: string;
      content: string | null;
      calls: string[];
      finish: string;
    }> = [];
    const { client, toolkit } = await setup([echoCall("c1", "a"), { content: "done" }], {
      afterLLM: ({ response, model, turn }) => {
        seen.push({
          turn,
          model,
          content: response.content,
          calls: response.toolCalls.map((c) => c.name),
          finish: response.finishReason,
        });
      },
    });
    await client.run("hello", { toolkit });
    expect(seen).toEqual([
      { turn: 0, model: "hook-model", content: null, calls: ["echo"], finish: "tool_calls" },
      { turn: 1, model: "hook-model", content: "done", calls: [], finish: "stop" },
    ]);
  });
});

describe("beforeTool", () => {
  it("sees name, args, id and turn, and can rewrite the args", async () => {
    const seen: unknown[] = [];
    const afterArgs: unknown[] = [];
    const { client, toolkit, runs, fake } = await setup(
      [echoCall("c1", "secret"), { content: "done" }],
      {
        beforeTool: (info) => {
          seen.push(info);
          return { args: { text: "[redacted]" } };
        },
        afterTool: ({ args }) => {
          afterArgs.push(args);
        },
      },
    );
    const result = await client.run("hello", { toolkit });
    expect(seen).toEqual([{ name: "echo", args: { text: "secret" }, id: "c1", turn: 0 }]);
    expect(runs).toEqual([{ tool: "echo", args: { text: "[redacted]" } }]);
    expect(afterArgs).toEqual([{ text: "[redacted]" }]);
    expect(toolMessages(fake.bodies[1])[0].content).toBe("echo:[redacted]");
    expect(result.toolCalls[0]!.args).toEqual({ text: "[redacted]" });
  });

  it("can short-circuit with a result: the tool is not executed", async () => {
    const { client, toolkit, runs, fake } = await setup(
      [echoCall("c1", "a"), { content: "done" }],
      {
        beforeTool: () => ({ result: { output: "cached: echo:a", isError: false } }),
      },
    );
    const result = await client.run("hello", { toolkit });
    expect(runs).toEqual([]);
    expect(toolMessages(fake.bodies[1])).toEqual([
      { role: "tool", tool_call_id: "c1", content: "cached: echo:a" },
    ]);
    expect(result.toolCalls[0]).toMatchObject({ output: "cached: echo:a", isError: false });
  });

  it("a hook that throws becomes an error result and the tool is not executed", async () => {
    const { client, toolkit, runs, fake } = await setup(
      [echoCall("c1", "a"), { content: "done" }],
      {
        beforeTool: () => {
          throw new Error("guard exploded");
        },
      },
    );
    const result = await client.run("hello", { toolkit });
    expect(runs).toEqual([]);
    expect(result.status).toBe("done");
    expect(toolMessages(fake.bodies[1])[0].content).toContain("guard exploded");
    expect(result.toolCalls[0]!.isError).toBe(true);
  });

  describe("guard-raised suspension", () => {
    /** A policy guard: echo needs approval; once answered, the call goes through. */
    function guard(log: unknown[]): Hooks {
      return {
        beforeTool: ({ name, answer, turn }) => {
          log.push({ name, turn, answer });
          if (name === "echo" && !answer) {
            return {
              result: pending({
                kind: "approval",
                prompt: "Allow echo?",
                id: "guard-1",
                data: { reason: "policy" },
              }),
            };
          }
        },
      };
    }

    it("halts the run with status pending; the tool is not executed", async () => {
      const log: unknown[] = [];
      const { client, toolkit, runs, fake } = await setup(
        [echoCall("c1", "a"), { content: "done" }],
        guard(log),
      );
      const halted = await client.run("hello", { toolkit });
      expect(halted.status).toBe("pending");
      expect(halted.pending).toEqual({
        id: "guard-1",
        kind: "approval",
        prompt: "Allow echo?",
        data: { reason: "policy" },
      });
      expect(runs).toEqual([]);
      expect(fake.bodies).toHaveLength(1);
      const placeholder = halted.messages.at(-1);
      expect(placeholder).toMatchObject({
        role: "tool",
        toolCallId: "c1",
        pending: { id: "guard-1" },
      });
    });

    it("on runWithAnswer the hook sees the answer, lets the call through, and the loop continues", async () => {
      const log: any[] = [];
      const { client, toolkit, runs, fake } = await setup(
        [echoCall("c1", "a"), { content: "done" }],
        guard(log),
      );
      const halted = roundTrip(await client.run("hello", { toolkit }));
      const answer = answerOutput("guard-1", { approvedBy: "ops" });
      const result = await client.runWithAnswer({
        ...halted,
        toolkit,
        history: halted.messages,
        pending: halted.pending!,
        answer,
      });

      expect(log).toEqual([
        { name: "echo", turn: 0, answer: undefined },
        { name: "echo", turn: 0, answer },
      ]);
      expect(runs).toEqual([{ tool: "echo", args: { text: "a" }, answer }]);
      expect(result.status).toBe("done");
      expect(result.text).toBe("done");
      expect(fake.bodies).toHaveLength(2);
      expect(toolMessages(fake.bodies[1])).toEqual([
        { role: "tool", tool_call_id: "c1", content: "echo:a" },
      ]);
      assertBalanced("openai", fake.bodies[1]);
    });

    it("a declined answer feeds declined/expired and neither the hook nor the tool runs again", async () => {
      const log: any[] = [];
      const { client, toolkit, runs, fake } = await setup(
        [echoCall("c1", "a"), { content: "ok, not doing it" }],
        guard(log),
      );
      const halted = roundTrip(await client.run("hello", { toolkit }));
      const result = await client.runWithAnswer({
        ...halted,
        toolkit,
        history: halted.messages,
        pending: halted.pending!,
        answer: answerDeclined("guard-1"),
      });
      expect(log).toHaveLength(1);
      expect(runs).toEqual([]);
      expect(result.status).toBe("done");
      expect(toolMessages(fake.bodies[1])[0].content).toBe("declined/expired: Allow echo?");
    });

    it("with waitFor, the hook sees the answer on the re-execution", async () => {
      const log: any[] = [];
      const asked: unknown[] = [];
      const { client, toolkit, runs } = await setup(
        [echoCall("c1", "a"), { content: "done" }],
        guard(log),
        {
          waitFor: (request) => {
            asked.push(request.id);
            return answerOutput(request.id);
          },
        },
      );
      const result = await client.run("hello", { toolkit });
      expect(asked).toEqual(["guard-1"]);
      expect(log.map((l) => l.answer?.ok)).toEqual([undefined, true]);
      expect(runs).toHaveLength(1);
      expect(result.status).toBe("done");
    });
  });
});

describe("afterTool", () => {
  it("can replace the result the model sees", async () => {
    const seen: ToolResult[] = [];
    const { client, toolkit, fake } = await setup([echoCall("c1", "a"), { content: "done" }], {
      afterTool: ({ name, result, id, turn }) => {
        seen.push(result);
        expect([name, id, turn]).toEqual(["echo", "c1", 0]);
        return { result: { output: "replaced", isError: true } };
      },
    });
    const result = await client.run("hello", { toolkit });
    expect(seen).toEqual([{ output: "echo:a", isError: false }]);
    expect(toolMessages(fake.bodies[1])[0].content).toBe("replaced");
    expect(result.toolCalls[0]).toMatchObject({ output: "replaced", isError: true });
  });

  it("a hook that throws becomes an error result", async () => {
    const { client, toolkit, fake } = await setup([echoCall("c1", "a"), { content: "done" }], {
      afterTool: () => {
        throw new Error("audit log down");
      },
    });
    await client.run("hello", { toolkit });
    expect(toolMessages(fake.bodies[1])[0].content).toContain("audit log down");
  });

  it("never sees a pending result: not at the halt, only the resolved one on resume", async () => {
    const seen: ToolResult[] = [];
    const { client, toolkit } = await setup([echoCall("c1", "a"), { content: "done" }], {
      beforeTool: ({ answer }) =>
        answer ? undefined : { result: pending({ kind: "approval", prompt: "ok?", id: "p-1" }) },
      afterTool: ({ result }) => {
        seen.push(result);
      },
    });
    const halted = roundTrip(await client.run("hello", { toolkit }));
    expect(halted.status).toBe("pending");
    expect(seen).toEqual([]);
    await client.runWithAnswer({
      ...halted,
      toolkit,
      history: halted.messages,
      pending: halted.pending!,
      answer: answerOutput("p-1"),
    });
    expect(seen).toEqual([{ output: "echo:a", isError: false }]);
  });

  it("a tool that suspends again after its answer reaches afterTool as `unresolved`, not as pending", async () => {
    const seen: ToolResult[] = [];
    const { client, toolkit } = await setup(
      [echoCall("c1", "a"), { content: "done" }],
      {
        beforeTool: () => ({ result: pending({ kind: "question", prompt: "Which one?" }) }),
        afterTool: ({ result }) => {
          seen.push(result);
        },
      },
      { waitFor: (r) => answerOutput(r.id, "the blue one") },
    );
    const result = await client.run("hello", { toolkit });
    expect(result.status).toBe("done");
    expect(seen).toHaveLength(1);
    expect(isPending(seen[0])).toBe(false);
    expect(seen[0]!.output).toBe("unresolved: Which one?");
  });
});

describe("tool metrics", () => {
  it("a suspension is reported as pending, not as an error", async () => {
    const events: MetricEvent[] = [];
    const { client, toolkit } = await setup(
      [echoCall("c1", "a")],
      {
        beforeTool: () => ({ result: pending({ kind: "approval", prompt: "ok?" }) }),
      },
      { onMetric: (e) => events.push(e) },
    );
    const halted = await client.run("hello", { toolkit });
    expect(halted.status).toBe("pending");
    const toolEvents = events.filter((e) => e.type === "tool_call");
    expect(toolEvents).toEqual([
      {
        type: "tool_call",
        tool: "echo",
        source: "native",
        isError: false,
        pending: true,
        durationMs: expect.any(Number),
      },
    ]);
    expect(client.metrics()).toContain(
      'toolnexus_tool_calls_total{tool="echo",source="native",is_error="false"} 1\n',
    );
  });

  it("counts completed and failed calls by tool, source and outcome", async () => {
    const events: MetricEvent[] = [];
    const { client, toolkit } = await setup(
      [
        {
          toolCalls: [
            { id: "c1", name: "echo", args: { text: "a" } },
            { id: "c2", name: "clock" },
            { id: "c3", name: "echo", args: {} },
          ],
        },
        { content: "done" },
      ],
      {},
      { onMetric: (e) => events.push(e) },
    );
    await client.run("hello", { toolkit });
    const text = client.metrics();
    expect(text).toContain(
      'toolnexus_tool_calls_total{tool="echo",source="native",is_error="false"} 1\n',
    );
    expect(text).toContain(
      'toolnexus_tool_calls_total{tool="echo",source="native",is_error="true"} 1\n',
    );
    expect(text).toContain(
      'toolnexus_tool_calls_total{tool="clock",source="native",is_error="false"} 1\n',
    );
    expect(events.filter((e) => e.type === "tool_call" && e.pending)).toEqual([]);
  });
});
