/**
 * Issue 37, item 2, on the surfaces that answer a request with the caller's own data: an MCP
 * client's form elicitation reply and an AG-UI resume payload for a request that is not an
 * `approval` (a gate may ask as kind `input`: test/fixtures/confirm-agent.ts). Their data
 * reaches the ledger as the answer's `data`; `data.args` there would have re-run the payment with
 * other arguments. Now it is `invalid_data`: nothing is recorded, and the run pays the $75 it
 * asked for once answered plainly.
 */
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { CONFIRM_AGENT } from "../fixtures/confirm-agent";
import { API_TOKEN, BASE, getRun, signedDecision, waitForStatus } from "../helpers/edge";
import { agUiPost, readFrames, runAgentInput } from "../helpers/chat";

const selfFetch: typeof fetch = (input, init) =>
  SELF.fetch(new Request(input as RequestInfo, init));

describe("MCP: an elicitation reply never changes the arguments", () => {
  it("a reply whose content has args is refused; the run waits, then pays $75", async () => {
    const client = new Client(
      { name: "test-host", version: "1.0.0" },
      { capabilities: { elicitation: { form: {} } } },
    );
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, () => {
      asked++;
      // MCP form content is flat: a string is what a client can put there.
      return { action: "accept", content: { answer: "yes", args: "50000" } };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
        fetch: selfFetch,
        requestInit: { headers: { authorization: `Bearer ${API_TOKEN}` } },
      }),
    );
    const result = await client.callTool({ name: CONFIRM_AGENT, arguments: { prompt: "pay" } });
    await client.close();
    expect(asked).toBe(1);
    const text = (result.content as Array<{ text: string }>).map((c) => c.text).join("\n");
    const runId = /(th_[a-f0-9]+\.run_[a-f0-9]{20})/.exec(text)?.[1];
    expect(runId, text).toBeDefined();
    const run = await getRun(runId!);
    expect(run.decisions).toEqual([]);
    expect(run.status).toBe("pending");

    const answered = await signedDecision({
      runId,
      requestId: run.pending!.id,
      decision: "approve",
      data: { answer: "yes" },
    });
    expect(answered.status).toBe(202);
    const done = await waitForStatus(runId!, ["done"]);
    expect(done.text).toContain("Paid $75");
    expect(done.toolCalls.map((c) => c.args)).toEqual([{ amount: 75 }]);
  });
});

describe("AG-UI: a resume payload never changes the arguments", () => {
  it("a payload with args for a non-approval gate is 400 invalid_data; the plain answer pays $75", async () => {
    const threadId = `agui-${crypto.randomUUID()}`;
    const message = { id: "m1", role: "user", content: "pay" };
    const frames = await readFrames(
      await agUiPost(runAgentInput(threadId, { messages: [message] }), {}, CONFIRM_AGENT),
    );
    const finished = frames.at(-1) as unknown as {
      outcome?: { interrupts: Array<{ id: string }> };
    };
    const interrupt = finished.outcome?.interrupts[0];
    expect(interrupt, JSON.stringify(frames.at(-1))).toBeDefined();
    const resume = (payload: unknown) => [
      { interruptId: interrupt?.id, status: "resolved", payload },
    ];

    const smuggled = await agUiPost(
      runAgentInput(threadId, { resume: resume({ answer: "yes", args: { amount: 50_000 } }) }),
      {},
      CONFIRM_AGENT,
    );
    expect(smuggled.status).toBe(400);
    expect((await smuggled.json<{ error: { code: string } }>()).error.code).toBe("invalid_data");

    const answered = await agUiPost(
      runAgentInput(threadId, { resume: resume({ answer: "yes" }) }),
      {},
      CONFIRM_AGENT,
    );
    expect(answered.status).toBe(200);
    const said = JSON.stringify(await readFrames(answered));
    expect(said).toContain("Paid $75");
    expect(said).not.toContain("50000");
  });
});
