/**
 * Large values through the chat (AI SDK UI stream), AG-UI and A2A entrances: a 3 MB and a
 * 20 MB model reply and tool output reach each caller exactly (durable/storage/large/values.ts
 * stores them; src/edge/packed.ts carries a large view across RPC). /events and GET
 * /v1/runs/:id: test/edge-mcp/large-values.test.ts.
 */
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { BIG_AGENT, bigText } from "../fixtures/big-values-agent";
import { agUiPost, chatPost, readFrames, runAgentInput, userMessage } from "../helpers/chat";
import { API_TOKEN, BASE } from "../helpers/edge";

const MB = 1_000_000;
/** A 20 MB value is written and read several times over (log, transcript, view): minutes, not seconds, on a busy machine. */
const SLOW = 180_000;

/** Compares without handing vitest a 20 MB diff to print. */
function same(actual: unknown, expected: string): void {
  expect(typeof actual).toBe("string");
  expect((actual as string).length).toBe(expected.length);
  expect(actual === expected).toBe(true);
}

async function a2a(method: string, params: unknown): Promise<any> {
  const response = await SELF.fetch(`${BASE}/a2a`, {
    method: "POST",
    headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  expect(response.status).toBe(200);
  return (await response.json<any>()).result;
}

const chatBody = (text: string) => ({
  id: `chat-${crypto.randomUUID()}`,
  messages: [userMessage(text)],
  trigger: "submit-message",
});

const a2aMessage = (text: string) => ({
  message: {
    kind: "message",
    role: "user",
    messageId: crypto.randomUUID(),
    parts: [{ kind: "text", text }],
    metadata: { skill: BIG_AGENT },
  },
});

for (const size of [3 * MB, 20 * MB]) {
  const expected = () => bigText(size);

  describe(`a ${size / MB} MB value through the chat, AG-UI and A2A`, () => {
    it(
      "chat: the reply's text deltas and the tool's output",
      async () => {
        const reply = await readFrames(await chatPost(chatBody(`reply ${size}`), {}, BIG_AGENT));
        same(
          reply
            .filter((f) => f.type === "text-delta")
            .map((f) => f.delta)
            .join(""),
          expected(),
        );
        const tool = await readFrames(await chatPost(chatBody(`tool ${size}`), {}, BIG_AGENT));
        same(tool.find((f) => f.type === "tool-output-available")?.output, expected());
        expect(tool.some((f) => f.type === "error")).toBe(false);
      },
      SLOW,
    );

    it(
      "AG-UI: the reply's text chunks and the tool call's result",
      async () => {
        const reply = await readFrames(
          await agUiPost(
            runAgentInput(`agui-${crypto.randomUUID()}`, {
              messages: [{ id: "u1", role: "user", content: `reply ${size}` }],
            }),
            {},
            BIG_AGENT,
          ),
        );
        same(
          reply
            .filter((f) => f.type === "TEXT_MESSAGE_CHUNK")
            .map((f) => f.delta)
            .join(""),
          expected(),
        );
        expect(reply.at(-1)?.type).toBe("RUN_FINISHED");
        const tool = await readFrames(
          await agUiPost(
            runAgentInput(`agui-${crypto.randomUUID()}`, {
              messages: [{ id: "u1", role: "user", content: `tool ${size}` }],
            }),
            {},
            BIG_AGENT,
          ),
        );
        same(tool.find((f) => f.type === "TOOL_CALL_RESULT")?.content, expected());
        expect(tool.at(-1)?.type).toBe("RUN_FINISHED");
      },
      SLOW,
    );

    it(
      "A2A: the completed task's artifact, from the blocking send and from tasks/get",
      async () => {
        const task = await a2a("message/send", a2aMessage(`reply ${size}`));
        expect(task.status.state).toBe("completed");
        same(task.artifacts[0].parts[0].text, expected());
        const got = await a2a("tasks/get", { id: task.id });
        same(got.artifacts[0].parts[0].text, expected());
        const tool = await a2a("message/send", a2aMessage(`tool ${size}`));
        expect(tool.status.state).toBe("completed");
        expect(tool.artifacts[0].parts[0].text).toBe(`tool said ${size} units`);
      },
      SLOW,
    );
  });
}
