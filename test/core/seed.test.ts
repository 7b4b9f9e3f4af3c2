// The seed document's three examples (../shared/seed/answer_declined.md), in TypeScript.
import { describe, expect, it } from "vitest";
import {
  answerDeclined,
  answerOutput,
  createClient,
  createToolkit,
  type Tool,
} from "../../src/core";
import { fakeLlm } from "../helpers/fake-llm";

describe("answerDeclined (seed)", () => {
  it("1. the smallest useful call: the default reason", () => {
    const answer = answerDeclined("req-1");
    expect(answer.id).toBe("req-1");
    expect(answer.ok).toBe(false);
    expect(answer.reason).toBe("declined");
    expect(answer).toEqual({ id: "req-1", ok: false, reason: "declined" });
  });

  it("2. an explicit reason is kept; a non-string reason raises", () => {
    const withReason = answerDeclined("req-1", "budget exceeded");
    expect(withReason.ok).toBe(false);
    expect(withReason.reason).toBe("budget exceeded");
    expect(() => answerDeclined("req-1", {} as unknown as string)).toThrow(TypeError);
    expect(() => answerDeclined("req-1", {} as unknown as string)).toThrow(/must be a string/);
    expect(() => answerDeclined("req-1", 42 as unknown as string)).toThrow(/must be a string/);
  });

  it("null reason means no reason key", () => {
    expect(answerDeclined("req-1", null)).toEqual({ id: "req-1", ok: false });
    expect("reason" in answerDeclined("req-1", null)).toBe(false);
  });

  it("ids must be non-empty strings", () => {
    expect(() => answerDeclined("")).toThrow(TypeError);
    expect(() => answerDeclined(7 as unknown as string)).toThrow(TypeError);
    expect(() => answerOutput("")).toThrow(TypeError);
    expect(() => answerOutput(null as unknown as string)).toThrow(TypeError);
  });

  it("answerOutput carries data", () => {
    expect(answerOutput("req-1", { n: 1 })).toEqual({ id: "req-1", ok: true, data: { n: 1 } });
    expect(answerOutput("req-1")).toEqual({ id: "req-1", ok: true });
  });

  it("3. a decline resolves to an error result, never re-invoking the tool", async () => {
    let invocations = 0;
    const deleteAccount: Tool = {
      name: "delete_account",
      description: "delete the user's account",
      inputSchema: { type: "object", properties: {} },
      source: "native",
      async execute() {
        invocations += 1;
        return {
          output: "approval required",
          isError: true,
          metadata: {
            pending: { id: "req-1", kind: "authorization", prompt: "Delete this account?" },
          },
        };
      },
    };
    const llm = fakeLlm("openai", [
      { content: null, toolCalls: [{ id: "c1", name: "delete_account", args: {} }] },
      { content: "understood, cancelled" },
    ]);
    const client = createClient({
      baseUrl: "http://localhost",
      style: "openai",
      model: "gpt-x",
      apiKey: "test-key",
      fetch: llm.fetch,
      waitFor: () => answerDeclined("req-1", "not authorized"),
    });
    const result = await client.run("delete my account", {
      toolkit: await createToolkit({ tools: [deleteAccount] }),
    });

    expect(result.status).toBe("done");
    expect(result.text).toBe("understood, cancelled");
    expect(invocations).toBe(1);
    const toolMessage = llm.bodies[1].messages.find((m: any) => m.role === "tool");
    expect(toolMessage).toEqual({
      role: "tool",
      tool_call_id: "c1",
      content: "declined/expired: Delete this account?",
    });
  });
});
