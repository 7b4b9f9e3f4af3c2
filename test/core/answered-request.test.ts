// The re-execution after a resolved suspension sees the request it answers (`ctx.answered`),
// as the halted run stored it: a tool's own state in `data` (an MCP server's requestState)
// comes back after a JSON round trip, byte for byte (issue 41).
import { describe, expect, it } from "vitest";
import {
  answerOutput,
  createInProcessClient,
  createToolkit,
  defineTool,
  pending,
  type Context,
} from "../../src/core";

describe("ctx.answered", () => {
  it("is the stored request on the re-execution, and absent on the first", async () => {
    const seen: Array<Context["answered"]> = [];
    const toolkit = await createToolkit({
      tools: [
        defineTool({
          name: "ask",
          description: "Asks, keeping a state of its own in the request",
          run: (_args, ctx) => {
            seen.push(ctx.answered);
            return ctx.answer
              ? `state ${String(ctx.answered?.data?.state)}`
              : pending({ kind: "input", prompt: "Name?", data: { state: "s+/=\u00e9" } });
          },
        }),
      ],
    });
    let turn = 0;
    const client = createInProcessClient({
      model: "m",
      generate: (request) =>
        ++turn === 1
          ? { toolCalls: [{ id: "c1", name: "ask", arguments: {} }] }
          : { content: String(request.messages.at(-1)?.content) },
    });
    const halted = JSON.parse(JSON.stringify(await client.run("go", { toolkit })));
    expect(halted.status).toBe("pending");
    const done = await client.runWithAnswer({
      ...halted,
      toolkit,
      history: halted.messages,
      pending: halted.pending,
      answer: answerOutput(halted.pending.id, { name: "Ann" }),
    });
    expect(done.text).toBe("state s+/=\u00e9");
    expect(seen[0]).toBeUndefined();
    expect(seen[1]).toEqual(halted.pending);
  });
});
