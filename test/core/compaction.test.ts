/**
 * SPEC §7F compaction: over maxTokens the older body becomes one summary system message and a
 * tail is kept; tool-pair safety holds for both wire styles (openai `tool` messages, anthropic
 * `tool_result` blocks in user messages); the leading system prompt is kept verbatim; at or
 * below the limit the request is byte-identical to one without a compactor; on an agent run a
 * compacted turn that suspends resumes from the whole transcript and compacts again.
 */
import { describe, expect, it } from "vitest";
import {
  SUMMARY_PREFIX,
  FLUSH_REMINDER,
  answerOutput,
  compactMessages,
  compactor,
  createAgentRuntime,
  createClient,
  createToolkit,
  defineTool,
  estimateTokens,
  pending,
  type Message,
} from "../../src/core";
import { fakeLlm } from "../helpers/fake-llm";
import { call, scripted, toolMessages } from "./agents/scripted";

type Raw = {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string; type?: string; function?: unknown }>;
  tool_call_id?: string;
};

function openaiTranscript(groups: number): Raw[] {
  const out: Raw[] = [{ role: "system", content: "You are Ava. SOUL." }];
  for (let i = 0; i < groups; i += 1) {
    out.push(
      { role: "user", content: `question ${i} ${"pad ".repeat(40)}` },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: `c${i}`, type: "function", function: { name: "lookup", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: `c${i}`, content: `result ${i} ${"data ".repeat(40)}` },
      { role: "assistant", content: `answer ${i}` },
    );
  }
  return out;
}

/** Anthropic shape: one user turn, then several tool rounds whose results are user messages. */
function anthropicTranscript(groups: number): Raw[] {
  const out: Raw[] = [{ role: "system", content: "SOUL" }];
  for (let i = 0; i < groups; i += 1) {
    out.push({ role: "user", content: `question ${i} ${"pad ".repeat(30)}` });
    for (let j = 0; j < 3; j += 1) {
      const id = `tu_${i}_${j}`;
      out.push(
        { role: "assistant", content: [{ type: "tool_use", id, name: "lookup", input: {} }] },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: id, content: "data ".repeat(30) }],
        },
      );
    }
    out.push({ role: "assistant", content: [{ type: "text", text: `answer ${i}` }] });
  }
  return out;
}

/** Every tool result (either style) has its call in an earlier message of the list. */
function pairSafe(messages: Raw[]): boolean {
  const calls = new Set<string>();
  for (const m of messages) {
    for (const c of m.tool_calls ?? []) {
      calls.add(c.id);
    }
    const blocks = Array.isArray(m.content) ? (m.content as Array<Record<string, string>>) : [];
    for (const b of blocks) {
      if (b.type === "tool_use") {
        calls.add(b.id as string);
      }
      if (b.type === "tool_result" && !calls.has(b.tool_use_id as string)) {
        return false;
      }
    }
    if (m.role === "tool" && !calls.has(m.tool_call_id as string)) {
      return false;
    }
  }
  return true;
}

const summarize = (older: unknown[]) => `summarized ${older.length} messages`;

describe("compactor (SPEC §7F)", () => {
  it("summarizes the older body, keeps a tail from a user turn and the system prompt verbatim (openai)", async () => {
    const input = openaiTranscript(30);
    const out = (await compactMessages(input, { maxTokens: 2000, keepTail: 800, summarize })) ?? [];
    expect(estimateTokens(out)).toBeLessThan(estimateTokens(input));
    expect(out[0]).toBe(input[0]);
    expect(out[1]?.role).toBe("system");
    const tail = out.slice(2);
    expect(out[1]?.content).toBe(
      `${SUMMARY_PREFIX}summarized ${input.length - 1 - tail.length} messages`,
    );
    expect(tail[0]?.role).toBe("user");
    expect(estimateTokens(tail)).toBeLessThanOrEqual(800);
    expect(input.slice(-tail.length)).toEqual(tail);
    expect(pairSafe(out)).toBe(true);
  });

  it("never cuts at a user message that carries tool_result blocks (anthropic), whatever keepTail", async () => {
    const input = anthropicTranscript(6);
    for (const keepTail of [50, 150, 300, 450, 700, 1000]) {
      const out = (await compactMessages(input, { maxTokens: 400, keepTail, summarize })) ?? [];
      const tail = out.slice(2);
      expect(tail[0]?.role).toBe("user");
      expect(typeof tail[0]?.content).toBe("string");
      expect(pairSafe(out)).toBe(true);
    }
    // keepTail smaller than any safe tail: the most recent boundary, not a cut inside the tool group.
    const tight = (await compactMessages(input, { maxTokens: 400, keepTail: 10, summarize })) ?? [];
    expect(tight.slice(2)).toEqual(input.slice(-8));
  });

  it("summarizes the whole body with an empty tail when no boundary exists", async () => {
    const input: Raw[] = [
      { role: "system", content: "SOUL" },
      { role: "assistant", content: "x".repeat(400) },
      { role: "tool", tool_call_id: "a", content: "y".repeat(400) },
    ];
    const out = await compactMessages(input, { maxTokens: 10, summarize });
    expect(out).toEqual([
      input[0],
      { role: "system", content: `${SUMMARY_PREFIX}summarized 2 messages` },
    ]);
  });

  it("adds the flush reminder before the tail when flushToMemory is set", async () => {
    const out =
      (await compactMessages(openaiTranscript(10), {
        maxTokens: 500,
        summarize,
        flushToMemory: true,
      })) ?? [];
    expect(out[2]).toEqual({ role: "system", content: FLUSH_REMINDER });
    expect(out[3]?.role).toBe("user");
  });

  it("is a no-op at or below maxTokens: the request body is byte-identical to one without a compactor", async () => {
    const bodies = async (withCompactor: boolean) => {
      const fake = fakeLlm("openai", [
        { toolCalls: [{ id: "c1", name: "echo", args: { text: "hi" } }] },
        { content: "done" },
      ]);
      const texts: string[] = [];
      const toolkit = await createToolkit({
        tools: [defineTool({ name: "echo", description: "Echo", run: ({ text }) => text })],
      });
      let calls = 0;
      const client = createClient({
        style: "openai",
        baseUrl: "http://llm.test/v1",
        model: "m",
        systemPrompt: "SOUL",
        fetch: (input, init) => {
          texts.push(String(init?.body));
          return fake.fetch(input, init);
        },
        ...(withCompactor
          ? {
              hooks: { beforeLLM: compactor({ maxTokens: 10_000, summarize: () => `${calls++}` }) },
            }
          : {}),
      });
      await client.run("say hi", { toolkit });
      expect(calls).toBe(0);
      return texts;
    };
    expect(await bodies(true)).toEqual(await bodies(false));
  });

  it("rejects options it cannot work with", () => {
    expect(() => compactor({ maxTokens: Number.NaN, summarize })).toThrow(/maxTokens/);
    expect(() => compactor({ maxTokens: 10 } as never)).toThrow(/summarize/);
  });
});

describe("compaction on an agent run", () => {
  it("a compacted turn that suspends resumes from the whole transcript and compacts again", async () => {
    const summaries: number[] = [];
    const sent: Message[][] = [];
    const gated = defineTool({
      name: "gated",
      description: "Needs approval",
      run: (_a, ctx) => (ctx.answer ? "approved" : pending({ kind: "approval", prompt: "ok?" })),
    });
    const model = scripted({
      "m-long": (request) => {
        sent.push(request.messages);
        const last = request.messages.at(-1);
        if (last?.role === "user" && last.content.startsWith("now")) {
          return call("gated", {});
        }
        return { content: toolMessages(request).at(-1)?.content ?? `reply ${"words ".repeat(20)}` };
      },
    });
    const rt = createAgentRuntime({
      client: { generate: model.generate },
      model: "m",
      agents: [
        {
          name: "long",
          does: "a long-lived agent",
          model: "m-long",
          systemPrompt: "SOUL",
          tools: [gated],
          hooks: {
            beforeLLM: compactor({
              maxTokens: 150,
              keepTail: 60,
              summarize: (older) => (summaries.push(older.length), "earlier"),
            }),
          },
        },
      ],
    });
    const h = rt.spawn(rt.root, "long");
    for (const prompt of ["one", "two", "three"]) {
      rt.wake(h, prompt);
      expect((await rt.wait(h)).status).toBe("done");
    }
    const whole = (await rt.store.get(h.id)) ?? [];
    rt.wake(h, "now the gated thing");
    const halted = await rt.wait(h);
    expect(halted.status).toBe("pending");
    expect(sent.at(-1)?.[1]).toEqual({ role: "system", content: `${SUMMARY_PREFIX}earlier` });
    expect(await rt.store.get(h.id)).toEqual(whole);

    const compactionsBefore = summaries.length;
    const done = await rt.runWithAnswer({ answer: answerOutput(halted.pending?.id ?? "") });
    expect(done).toMatchObject({ status: "done", text: "approved" });
    expect(summaries.length).toBeGreaterThan(compactionsBefore);
    const stored = (await rt.store.get(h.id)) ?? [];
    expect(stored.slice(0, whole.length)).toEqual(whole);
    expect(stored.some((m) => m.role === "system" && m.content.startsWith(SUMMARY_PREFIX))).toBe(
      false,
    );
  });

  it("a definition's hooks replace the runtime's for that agent (never merged)", async () => {
    const heard: string[] = [];
    const model = scripted({ m: () => ({ content: "ok" }) });
    const rt = createAgentRuntime({
      client: { generate: model.generate },
      model: "m",
      hooks: { beforeLLM: () => void heard.push("runtime") },
      agents: [
        { name: "own", does: "d", hooks: { beforeLLM: () => void heard.push("own") } },
        { name: "plain", does: "d" },
      ],
    });
    await rt.run("own", "x");
    await rt.run("plain", "x");
    expect(heard).toEqual(["own", "runtime"]);
  });
});
