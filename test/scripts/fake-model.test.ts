/**
 * `npm run fake-model` (scripts/lib/fake-model.mjs): the kernel's own client talks to it
 * over real HTTP on 127.0.0.1 in both wire styles, streamed (as the edge always asks) and
 * not: a tool it names is called with guessed arguments, the result comes back as text,
 * usage is counted, and an approval-gated tool suspends the run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createClient, createToolkit, defineTool, requireApproval } from "../../src/core/index";
import { scriptedReply, startFakeModel } from "../../scripts/lib/fake-model.mjs";

let model: { url: string; close(): Promise<void> };
const logged: string[] = [];
beforeAll(async () => {
  model = await startFakeModel({ log: (line: string) => logged.push(line) });
});
afterAll(() => model.close());

const refunds: Array<{ orderId: string; amount: number }> = [];
const refund = defineTool<{ orderId: string; amount: number }>({
  name: "refund_order",
  description: "Refund an amount on an order",
  inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
  run: (args) => {
    refunds.push(args);
    return `Refunded $${args.amount} on order ${args.orderId}`;
  },
});
const lookup = defineTool<{ orderId: string }>({
  name: "lookup_order",
  description: "Look up an order",
  inputSchema: z.object({ orderId: z.string() }),
  run: ({ orderId }) => `order ${orderId}: shipped`,
});

describe.each(["openai", "anthropic"] as const)("%s style", (style) => {
  const client = (streaming: boolean) =>
    createClient({
      // The anthropic style appends /v1 itself; openai's base carries it.
      baseUrl: style === "openai" ? `${model.url}/v1` : model.url,
      style,
      model: "fake-model",
      streaming,
      retries: 0,
    });

  it.each([true, false])(
    "streaming %s: calls the tool the message names, then reports it",
    async (streaming) => {
      refunds.length = 0;
      logged.length = 0;
      const result = await client(streaming).run("Please refund $80 on order 42", {
        toolkit: await createToolkit({ tools: [lookup, refund] }),
      });
      expect(refunds).toEqual([{ orderId: "42", amount: 80 }]);
      expect(result.status).toBe("done");
      expect(result.text).toBe("The tool said: Refunded $80 on order 42");
      expect(result.usage.promptTokens).toBeGreaterThan(0);
      expect(result.usage.completionTokens).toBeGreaterThan(0);
      // Each model call was streamed (SSE) or not, as asked.
      expect(logged).toHaveLength(2);
      expect(
        logged.every((line) => line.startsWith(streaming ? `${style} (stream)` : `${style}:`)),
      ).toBe(true);
    },
  );

  it("`call <tool> {json}` picks the tool and arguments; an approval gate suspends the run", async () => {
    const gated = requireApproval(refund, {
      prompt: (a: { amount: number }) => `Refund $${a.amount}?`,
    });
    const result = await client(true).run('call refund_order {"orderId":"7","amount":1500}', {
      toolkit: await createToolkit({ tools: [gated] }),
    });
    expect(result.status).toBe("pending");
    expect(result.pending?.prompt).toBe("Refund $1500?");
  });
});

describe("scriptedReply", () => {
  it("answers plain text when no tool fits, and a refusal as not done", () => {
    expect(scriptedReply("openai", { messages: [{ role: "user", content: "hello" }] })).toEqual({
      text: "You said: hello",
      toolCalls: [],
    });
    const refused = scriptedReply("anthropic", {
      messages: [
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "t",
              content: "declined/expired: Refund $80?\nreason: expired",
            },
          ],
        },
      ],
    });
    expect(refused.text).toBe("Understood: that was not done (reason: expired).");
  });

  it("answers 404 off the two paths and 400 for a body that is not JSON", async () => {
    expect((await fetch(`${model.url}/v1/embeddings`, { method: "POST", body: "{}" })).status).toBe(
      404,
    );
    expect((await fetch(`${model.url}/v1/messages`, { method: "POST", body: "{" })).status).toBe(
      400,
    );
  });
});
