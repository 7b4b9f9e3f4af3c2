// The demo `support` agent driven end to end by its offline model (runs in workerd and Node).
import { describe, expect, it } from "vitest";
import {
  answerDeclined,
  answerOutput,
  createInProcessClient,
  createToolkit,
  type Answer,
  type Message,
  type RunResult,
  type Tool,
  type WaitFor,
} from "../../src/core";
import { demoSupportModel } from "../../src/edge/demo/model";
import { supportAgent } from "../../src/edge/demo/agent";
import { refusalText } from "../../src/edge/approvals/refusal";

const toolkit = () => createToolkit({ tools: supportAgent.tools as Tool[] });
// As the edge runs it: refusals carry the `reason:` line, the only way the model hears why.
const client = (waitFor?: WaitFor, edge = true) =>
  createInProcessClient({
    model: "demo",
    generate: demoSupportModel,
    systemPrompt: supportAgent.systemPrompt,
    waitFor,
    ...(edge ? { refusalText } : {}),
  });
const roundTrip = (r: RunResult): RunResult => JSON.parse(JSON.stringify(r));
const toolOutputs = (r: RunResult) =>
  r.messages.filter((m) => m.role === "tool").map((m) => m.content);

/** Runs `prompt` until it halts, then resumes the halted result (after a JSON round trip) with `decide`. */
async function haltThenResume(prompt: string, decide: (id: string) => Answer) {
  const c = client();
  const tk = await toolkit();
  const halted = await c.run(prompt, { toolkit: tk });
  expect(halted.status).toBe("pending");
  const saved = roundTrip(halted);
  const resumed = await c.runWithAnswer({
    ...saved,
    toolkit: tk,
    history: saved.messages,
    pending: saved.pending!,
    answer: decide(saved.pending!.id),
  });
  return { halted, resumed };
}

describe("demo support agent", () => {
  it("looks an order up in two turns and reports its status", async () => {
    const result = await client().run("Where is order 42?", { toolkit: await toolkit() });
    expect(result.status).toBe("done");
    expect(result.turns).toBe(2);
    expect(result.toolCalls).toMatchObject([
      { name: "lookup_order", args: { orderId: "42" }, isError: false },
    ]);
    expect(result.text).toMatch(/order 42 is shipped/i);
    expect(result.usage.promptTokens).toBeGreaterThan(0);
    expect(result.usage.completionTokens).toBeGreaterThan(0);
  });

  it("reports an unknown order as an error", async () => {
    const result = await client().run("status of order 0000000000042", {
      toolkit: await toolkit(),
    });
    expect(result.text).toMatch(/^Something went wrong: order \d+ not found/);
  });

  it("refunds $50 or less without approval", async () => {
    const result = await client().run("Please refund $20 on order #42", {
      toolkit: await toolkit(),
    });
    expect(result.status).toBe("done");
    expect(result.pending).toBeUndefined();
    expect(result.toolCalls).toMatchObject([
      {
        name: "refund_order",
        args: { orderId: "42", amount: 20 },
        output: "Refunded $20 on order 42",
      },
    ]);
    expect(result.text).toMatch(/refunded \$20 on order 42/i);
  });

  it("asks for the amount when a refund has none", async () => {
    const result = await client().run("refund order 42", { toolkit: await toolkit() });
    expect(result.toolCallCount).toBe(0);
    expect(result.text).toMatch(/which amount/i);
  });

  it("suspends a refund over $50 for approval, and an approval runs it", async () => {
    const { halted, resumed } = await haltThenResume("refund 120 dollars on order 42", (id) =>
      answerOutput(id),
    );
    expect(halted.pending).toMatchObject({ kind: "approval", prompt: "Refund $120 on order 42?" });
    expect(resumed.status).toBe("done");
    expect(resumed.text).toMatch(/refunded \$120 on order 42/i);
  });

  it("says so when the refund is declined", async () => {
    const { resumed } = await haltThenResume("refund $120 on order 42", (id) => answerDeclined(id));
    expect(resumed.status).toBe("done");
    expect(resumed.text).toBe(
      "Understood — I did not refund $120 on order 42 because it was declined.",
    );
    expect(toolOutputs(resumed)).not.toContain("Refunded $120 on order 42");
  });

  it("says so when the approval expired", async () => {
    const { resumed } = await haltThenResume("refund $120 on order 42", (id) =>
      answerDeclined(id, "expired"),
    );
    expect(resumed.text).toBe(
      "The approval request expired, so I did not refund $120 on order 42.",
    );
  });

  it("reads only the wire: with the kernel's default text it cannot tell an expiry from a decline", async () => {
    const tk = await toolkit();
    const expired = await client((req) => answerDeclined(req.id, "expired"), false).run(
      "refund $120 on order 42",
      { toolkit: tk },
    );
    expect(toolOutputs(expired)).toEqual(["declined/expired: Refund $120 on order 42?"]);
    expect(expired.text).toBe(
      "Understood — I did not refund $120 on order 42 because it was declined.",
    );
  });

  it("hears the approver's words, folded onto one line", async () => {
    const result = await client((req) =>
      answerDeclined(req.id, "customer\nalready   refunded"),
    ).run("refund $120 on order 42", { toolkit: await toolkit() });
    expect(toolOutputs(result)).toEqual([
      "declined/expired: Refund $120 on order 42?\nreason: customer already refunded",
    ]);
    expect(result.text).toBe(
      "Understood — I did not refund $120 on order 42 because it was declined (customer already refunded).",
    );
  });

  it("lets the policy block a huge refund without suspending", async () => {
    const asked: unknown[] = [];
    const result = await client((req) => (asked.push(req), answerOutput(req.id))).run(
      "refund amount 50000 on order 42",
      {
        toolkit: await toolkit(),
      },
    );
    expect(asked).toEqual([]);
    expect(result.status).toBe("done");
    expect(result.text).toMatch(
      /^A policy blocked this: refunds over \$10,000 need finance review/,
    );
  });

  it("never deletes an account without approval; a decline leaves it alone", async () => {
    const { halted, resumed } = await haltThenResume("Please delete my account", (id) =>
      answerDeclined(id),
    );
    expect(halted.pending).toMatchObject({ kind: "approval" });
    expect(halted.pending!.prompt).toMatch(/delete this account\?/i);
    expect(resumed.text).toMatch(/did not delete your account/);
    // The tool body's only effect is its output: it never reached the transcript.
    expect(toolOutputs(resumed)).not.toContain("Account deleted");
    expect(resumed.toolCalls.map((c) => c.output)).not.toContain("Account deleted");
  });

  it("deletes the account once approved", async () => {
    const result = await client((req) => answerOutput(req.id)).run("delete account", {
      toolkit: await toolkit(),
    });
    expect(result.text).toBe("Done: Account deleted");
  });

  it("asks the user for input with a schema and uses the answer", async () => {
    const { halted, resumed } = await haltThenResume("I need to change my shipping address", (id) =>
      answerOutput(id, { answer: "1 Main St" }),
    );
    expect(halted.pending).toMatchObject({
      kind: "input",
      prompt: "What is your new shipping address?",
      data: { schema: { type: "object", required: ["answer"] } },
    });
    expect(halted.pending!.id).toMatch(/^inp_[A-Za-z0-9_-]+$/);
    expect(resumed.text).toContain("1 Main St");
  });

  it("is deterministic: the same transcript gives the same message", async () => {
    const transcript: Message[] = [
      { role: "system", content: supportAgent.systemPrompt },
      { role: "user", content: "refund $120 on order 42" },
    ];
    const tools = (await toolkit()).tools();
    const first = demoSupportModel({ model: "demo", messages: transcript, tools });
    expect(
      demoSupportModel({ model: "demo", messages: structuredClone(transcript), tools }),
    ).toEqual(first);
    expect(first.toolCalls).toHaveLength(1);
    expect(first.toolCalls![0]!.id).toMatch(/^call_0_0_/);

    const a = await client().run("refund $120 on order 42", { toolkit: await toolkit() });
    const b = await client().run("refund $120 on order 42", { toolkit: await toolkit() });
    expect(b.pending).toEqual(a.pending);
    expect(b.messages).toEqual(a.messages);
  });

  it("answers an unknown intent with what it can do", async () => {
    const result = await client().run("Tell me a joke", { toolkit: await toolkit() });
    expect(result.status).toBe("done");
    expect(result.toolCallCount).toBe(0);
    expect(result.text).toMatch(/I can look up an order/);
  });
});
