// The suspension rule (docs/architecture.md §3), on both wire styles.
import { describe, expect, it } from "vitest";
import {
  answerDeclined,
  answerOutput,
  authRequired,
  createClient,
  createToolkit,
  defineTool,
  isPending,
  pending,
  requireApproval,
  ResumeError,
  type Context,
  type MetricEvent,
  type Request,
  type RunResult,
  type WaitFor,
} from "../../src/core";
import { assertBalanced, fakeLlm, type Step, type Style } from "../helpers/fake-llm";

/** A tool that suspends until answered, recording every execution's args and context. */
function approvalTool(
  name: string,
  opts: { requestId?: string; suspendAgain?: boolean; delayMs?: number } = {},
) {
  const calls: Array<{ args: unknown; ctx: Context }> = [];
  const tool = defineTool({
    name,
    description: `${name} (needs approval)`,
    inputSchema: { type: "object", properties: { n: { type: "number" } } },
    async run(args, ctx) {
      calls.push({ args, ctx });
      if (opts.delayMs) {
        await new Promise((r) => setTimeout(r, opts.delayMs));
      }
      if (ctx.answer && !opts.suspendAgain) {
        return `${name} done with ${JSON.stringify(ctx.answer.data ?? null)}`;
      }
      return pending({
        kind: "approval",
        prompt: `Allow ${name}?`,
        id: opts.requestId ?? `req-${name}`,
      });
    },
  });
  return { tool, calls };
}

function counterTool(name: string) {
  const calls: unknown[] = [];
  const tool = defineTool({
    name,
    description: name,
    run: (args) => (calls.push(args), `${name} ok`),
  });
  return { tool, calls };
}

const roundTrip = (r: RunResult): RunResult => JSON.parse(JSON.stringify(r));

describe.each<Style>(["openai", "anthropic"])("suspension rule on %s", (style) => {
  const client = (
    steps: Step[],
    extra: { waitFor?: WaitFor; onMetric?: (e: MetricEvent) => void } = {},
  ) => {
    const llm = fakeLlm(style, steps);
    return {
      llm,
      client: createClient({
        baseUrl: "http://llm.test",
        style,
        model: "m",
        fetch: llm.fetch,
        ...extra,
      }),
    };
  };

  it("rule 1: ok ⇒ the same call runs once more with ctx.answer and the same callId", async () => {
    const { tool, calls } = approvalTool("refund");
    const { llm, client: c } = client(
      [{ toolCalls: [{ id: "c1", name: "refund", args: { n: 5 } }] }, { content: "refunded" }],
      { waitFor: (req) => answerOutput(req.id, { approver: "ann" }) },
    );
    const result = await c.run("refund it", { toolkit: await createToolkit({ tools: [tool] }) });
    expect(result.status).toBe("done");
    expect(result.text).toBe("refunded");
    expect(calls).toHaveLength(2);
    expect(calls[0]!.ctx.answer).toBeUndefined();
    expect(calls[1]!.ctx.answer).toEqual({ id: "req-refund", ok: true, data: { approver: "ann" } });
    expect(calls[1]!.args).toEqual({ n: 5 });
    expect(calls[0]!.ctx.callId).toBeTruthy();
    expect(calls[1]!.ctx.callId).toBe(calls[0]!.ctx.callId);
    expect(JSON.stringify(llm.bodies[1])).toContain('refund done with {\\"approver\\":\\"ann\\"}');
    assertBalanced(style, llm.bodies[1]);
  });

  it("rule 1: a second suspension after an ok answer ⇒ unresolved, never a loop", async () => {
    const { tool, calls } = approvalTool("refund", { suspendAgain: true });
    let asked = 0;
    const { llm, client: c } = client(
      [{ toolCalls: [{ id: "c1", name: "refund", args: {} }] }, { content: "could not" }],
      { waitFor: (req) => (asked++, answerOutput(req.id)) },
    );
    const result = await c.run("go", { toolkit: await createToolkit({ tools: [tool] }) });
    expect(result.status).toBe("done");
    expect(asked).toBe(1);
    expect(calls).toHaveLength(2);
    expect(JSON.stringify(llm.bodies[1])).toContain("unresolved: Allow refund?");
  });

  it("rule 1: not ok ⇒ declined/expired, the tool is not executed again, the loop continues", async () => {
    const { tool, calls } = approvalTool("refund");
    const { llm, client: c } = client(
      [{ toolCalls: [{ id: "c1", name: "refund", args: {} }] }, { content: "ok, I will not" }],
      { waitFor: (req) => answerDeclined(req.id, "expired") },
    );
    const result = await c.run("go", { toolkit: await createToolkit({ tools: [tool] }) });
    expect(result.text).toBe("ok, I will not");
    expect(calls).toHaveLength(1);
    expect(JSON.stringify(llm.bodies[1])).toContain("declined/expired: Allow refund?");
    expect(result.toolCalls).toEqual([
      {
        id: "c1",
        name: "refund",
        args: {},
        output: "declined/expired: Allow refund?",
        isError: true,
      },
    ]);
  });

  it("rule 2: without waitFor the run halts with the first suspension in tool-call order", async () => {
    const slow = approvalTool("first", { delayMs: 20 });
    const fast = approvalTool("second");
    const plain = counterTool("lookup");
    const { llm, client: c } = client([
      {
        toolCalls: [
          { id: "c1", name: "first", args: {} },
          { id: "c2", name: "lookup", args: { q: 1 } },
          { id: "c3", name: "second", args: {} },
        ],
      },
    ]);
    const result = await c.run("go", {
      toolkit: await createToolkit({ tools: [slow.tool, fast.tool, plain.tool] }),
    });
    expect(result.status).toBe("pending");
    expect(result.pending?.id).toBe("req-first");
    expect(llm.bodies).toHaveLength(1);
    const slots = result.messages.filter((m) => m.role === "tool");
    expect(slots.map((m) => m.role === "tool" && m.toolCallId)).toEqual(["c1", "c2", "c3"]);
    expect(slots.map((m) => m.role === "tool" && m.pending?.id)).toEqual([
      "req-first",
      undefined,
      "req-second",
    ]);
  });

  it("rule 3: halt → JSON → resume in a fresh client with approve", async () => {
    const { tool, calls } = approvalTool("refund");
    const first = client([{ toolCalls: [{ id: "c1", name: "refund", args: { n: 1 } }] }]);
    const halted = roundTrip(
      await first.client.run("go", { toolkit: await createToolkit({ tools: [tool] }) }),
    );
    expect(halted.status).toBe("pending");
    // The halted transcript is valid as it is: the placeholder fills the slot.
    expect(halted.messages.at(-1)).toMatchObject({
      role: "tool",
      toolCallId: "c1",
      pending: { id: "req-refund" },
    });

    const second = client([{ content: "refund approved and done" }]);
    const toolkit = await createToolkit({ tools: [tool] });
    const resumed = await second.client.runWithAnswer({
      ...halted,
      toolkit,
      history: halted.messages,
      pending: halted.pending!,
      answer: answerOutput("req-refund", "yes"),
    });
    expect(resumed.status).toBe("done");
    expect(resumed.text).toBe("refund approved and done");
    expect(calls).toHaveLength(2);
    expect(calls[1]!.ctx.callId).toBe(calls[0]!.ctx.callId);
    expect(calls[1]!.ctx.runId).toBe(halted.runId);
    // No new user turn, the placeholder replaced, the transcript balanced.
    const body = second.llm.bodies[0];
    assertBalanced(style, body);
    expect(JSON.stringify(body)).not.toContain("pending: Allow refund?");
    expect(resumed.messages.filter((m) => m.role === "user")).toHaveLength(1);
    expect(resumed.turns).toBe(2);
    expect(resumed.usage.totalTokens).toBe(12);
  });

  it("rule 3: resume with a decline feeds declined/expired without executing the tool", async () => {
    const { tool, calls } = approvalTool("refund");
    const first = client([{ toolCalls: [{ id: "c1", name: "refund", args: {} }] }]);
    const halted = roundTrip(
      await first.client.run("go", { toolkit: await createToolkit({ tools: [tool] }) }),
    );
    const second = client([{ content: "understood, cancelled" }]);
    const resumed = await second.client.runWithAnswer({
      toolkit: await createToolkit({ tools: [tool] }),
      history: halted.messages,
      pending: halted.pending!,
      answer: answerDeclined(halted.pending!.id),
    });
    expect(resumed.text).toBe("understood, cancelled");
    expect(calls).toHaveLength(1);
    expect(JSON.stringify(second.llm.bodies[0])).toContain("declined/expired: Allow refund?");
    assertBalanced(style, second.llm.bodies[0]);
  });

  it("rule 3: an answer with the wrong id throws and changes nothing", async () => {
    const { tool, calls } = approvalTool("refund");
    const first = client([{ toolCalls: [{ id: "c1", name: "refund", args: {} }] }]);
    const halted = roundTrip(
      await first.client.run("go", { toolkit: await createToolkit({ tools: [tool] }) }),
    );
    const snapshot = JSON.stringify(halted);
    const second = client([{ content: "never" }]);
    const toolkit = await createToolkit({ tools: [tool] });
    await expect(
      second.client.runWithAnswer({
        toolkit,
        history: halted.messages,
        pending: halted.pending!,
        answer: answerOutput("req-other"),
      }),
    ).rejects.toThrow(ResumeError);
    await expect(
      second.client.runWithAnswer({
        toolkit,
        history: halted.messages,
        pending: halted.pending!,
        answer: answerOutput("req-other"),
      }),
    ).rejects.toThrow(/does not match/);
    // A pending request that is not in the transcript is refused too.
    const stranger: Request = { id: "req-x", kind: "approval", prompt: "?" };
    await expect(
      second.client.runWithAnswer({
        toolkit,
        history: halted.messages,
        pending: stranger,
        answer: answerOutput("req-x"),
      }),
    ).rejects.toThrow(/not pending/);
    expect(JSON.stringify(halted)).toBe(snapshot);
    expect(calls).toHaveLength(1);
    expect(second.llm.bodies).toHaveLength(0);
  });

  it("rule 3: two concurrent suspensions — completed calls never re-run, the second surfaces without running again", async () => {
    const a = approvalTool("wire_money", { requestId: "req-a" });
    const b = approvalTool("close_account", { requestId: "req-b" });
    const plain = counterTool("lookup");
    const tools = () => createToolkit({ tools: [a.tool, b.tool, plain.tool] });
    const first = client([
      {
        toolCalls: [
          { id: "c1", name: "wire_money", args: { n: 1 } },
          { id: "c2", name: "lookup", args: { q: "x" } },
          { id: "c3", name: "close_account", args: { n: 3 } },
        ],
      },
    ]);
    const halted1 = roundTrip(await first.client.run("go", { toolkit: await tools() }));
    expect(halted1.pending?.id).toBe("req-a");
    expect(plain.calls).toHaveLength(1);

    // Answer the first: no model call yet, because close_account is still suspended.
    const second = client([]);
    const halted2 = roundTrip(
      await second.client.runWithAnswer({
        ...halted1,
        toolkit: await tools(),
        history: halted1.messages,
        pending: halted1.pending!,
        answer: answerOutput("req-a"),
      }),
    );
    expect(halted2.status).toBe("pending");
    expect(halted2.pending?.id).toBe("req-b");
    expect(second.llm.bodies).toHaveLength(0);
    expect(a.calls).toHaveLength(2);
    expect(b.calls).toHaveLength(1);
    expect(plain.calls).toHaveLength(1);

    // Answer the second (a decline): now the model hears all three results, once each.
    const third = client([{ content: "wired, looked up, kept the account" }]);
    const done = await third.client.runWithAnswer({
      ...halted2,
      toolkit: await tools(),
      history: halted2.messages,
      pending: halted2.pending!,
      answer: answerDeclined("req-b"),
    });
    expect(done.status).toBe("done");
    expect(a.calls).toHaveLength(2);
    expect(b.calls).toHaveLength(1);
    expect(plain.calls).toHaveLength(1);
    const body = third.llm.bodies[0];
    assertBalanced(style, body);
    const text = JSON.stringify(body);
    expect(text).toContain("wire_money done");
    expect(text).toContain("lookup ok");
    expect(text).toContain("declined/expired: Allow close_account?");
    expect(done.toolCallCount).toBe(3);
  });

  it("rule 3: a call with no stored result (never ran) runs on resume", async () => {
    const a = approvalTool("wire_money", { requestId: "req-a" });
    const plain = counterTool("lookup");
    const first = client([
      {
        toolCalls: [
          { id: "c1", name: "wire_money", args: {} },
          { id: "c2", name: "lookup", args: {} },
        ],
      },
    ]);
    const halted = roundTrip(
      await first.client.run("go", {
        toolkit: await createToolkit({ tools: [a.tool, plain.tool] }),
      }),
    );
    // Simulate a crash after the suspension was stored but before lookup's result was.
    const history = halted.messages.filter((m) => !(m.role === "tool" && m.toolCallId === "c2"));
    const second = client([{ content: "done" }]);
    const done = await second.client.runWithAnswer({
      toolkit: await createToolkit({ tools: [a.tool, plain.tool] }),
      history,
      pending: halted.pending!,
      answer: answerOutput("req-a"),
    });
    expect(done.status).toBe("done");
    expect(plain.calls).toHaveLength(2);
    assertBalanced(style, second.llm.bodies[0]);
  });

  it("rule 4: a suspension is not a tool error, and afterTool sees only resolved results", async () => {
    const events: MetricEvent[] = [];
    const seen: string[] = [];
    const { tool } = approvalTool("refund");
    const llm = fakeLlm(style, [
      { toolCalls: [{ id: "c1", name: "refund", args: {} }] },
      { content: "ok" },
    ]);
    const c = createClient({
      baseUrl: "http://llm.test",
      style,
      model: "m",
      fetch: llm.fetch,
      onMetric: (e) => events.push(e),
      waitFor: (req) => answerOutput(req.id),
      hooks: { afterTool: ({ result }) => void seen.push(result.output) },
    });
    await c.run("go", { toolkit: await createToolkit({ tools: [tool] }) });
    const toolEvents = events.filter((e) => e.type === "tool_call");
    expect(toolEvents[0]).toMatchObject({ pending: true, isError: false });
    expect(toolEvents[1]).toMatchObject({ pending: false, isError: false });
    expect(seen).toEqual(["refund done with null"]);
    expect(c.metrics()).toContain(
      'toolnexus_tool_calls_total{tool="refund",source="native",is_error="false"} 2',
    );
  });

  it("rule 4: a beforeTool guard may raise the suspension itself", async () => {
    const plain = counterTool("transfer");
    const llm = fakeLlm(style, [
      { toolCalls: [{ id: "c1", name: "transfer", args: { n: 9 } }] },
      { content: "done" },
    ]);
    const c = createClient({
      baseUrl: "http://llm.test",
      style,
      model: "m",
      fetch: llm.fetch,
      hooks: {
        beforeTool: ({ answer }) =>
          answer
            ? undefined
            : { result: pending({ kind: "approval", prompt: "Guard: transfer?", id: "g1" }) },
      },
    });
    const toolkit = await createToolkit({ tools: [plain.tool] });
    const halted = roundTrip(await c.run("go", { toolkit }));
    expect(halted.pending).toMatchObject({ id: "g1", prompt: "Guard: transfer?" });
    expect(plain.calls).toHaveLength(0);
    const done = await c.runWithAnswer({
      ...halted,
      toolkit,
      history: halted.messages,
      pending: halted.pending!,
      answer: answerOutput("g1"),
    });
    expect(done.status).toBe("done");
    expect(plain.calls).toEqual([{ n: 9 }]);
  });

  it("requireApproval with a declining policy never suspends and never runs the tool", async () => {
    const plain = counterTool("refund");
    const guarded = requireApproval(plain.tool, {
      prompt: (a: { amount?: number }) => `Refund $${a.amount}?`,
      policy: (a: { amount?: number }, req) =>
        (a.amount ?? 0) > 1000
          ? answerDeclined(req.id, "policy: amount over threshold")
          : undefined,
    });
    const { llm, client: c } = client([
      { toolCalls: [{ id: "c1", name: "refund", args: { amount: 5000 } }] },
      { content: "I cannot refund that much" },
    ]);
    const result = await c.run("refund 5000", {
      toolkit: await createToolkit({ tools: [guarded] }),
    });
    expect(result.status).toBe("done");
    expect(plain.calls).toHaveLength(0);
    expect(JSON.stringify(llm.bodies[1])).toContain("declined/expired: Refund $5000?");
  });

  it("requireApproval suspends, then runs the wrapped tool once on approval (durably)", async () => {
    const plain = counterTool("refund");
    const guarded = requireApproval(plain.tool, {
      when: (a: { amount: number }) => a.amount > 100,
      expiresIn: 60_000,
    });
    const first = client([{ toolCalls: [{ id: "c1", name: "refund", args: { amount: 500 } }] }]);
    const halted = roundTrip(
      await first.client.run("go", { toolkit: await createToolkit({ tools: [guarded] }) }),
    );
    expect(halted.pending?.kind).toBe("approval");
    expect(halted.pending?.data).toEqual({ tool: "refund", args: { amount: 500 } });
    expect(Date.parse(halted.pending!.expiresAt!)).toBeGreaterThan(Date.now());
    expect(plain.calls).toHaveLength(0);
    const second = client([{ content: "refunded" }]);
    await second.client.runWithAnswer({
      ...halted,
      toolkit: await createToolkit({ tools: [guarded] }),
      history: halted.messages,
      pending: halted.pending!,
      answer: answerOutput(halted.pending!.id),
    });
    expect(plain.calls).toEqual([{ amount: 500 }]);
  });
});

describe("suspension helpers", () => {
  it("authRequired suspends with an authorization request carrying the url (rule 6)", () => {
    const result = authRequired("https://example.com/oauth");
    expect(isPending(result)).toBe(true);
    expect(result.isError).toBe(true);
    expect(result.metadata?.pending).toMatchObject({
      kind: "authorization",
      url: "https://example.com/oauth",
      prompt: "Authorization required to continue",
    });
  });

  it("isPending is false for results whose metadata.pending is not a Request", () => {
    expect(
      isPending({
        output: "x",
        isError: true,
        metadata: { pending: { id: "" } as unknown as Request },
      }),
    ).toBe(false);
    expect(isPending({ output: "x", isError: false })).toBe(false);
    expect(
      isPending({
        output: "x",
        isError: true,
        metadata: { pending: "req-1" as unknown as Request },
      }),
    ).toBe(false);
  });

  it("pending() generates distinct ids when none is given", () => {
    const a = pending({ kind: "question", prompt: "?" }).metadata!.pending!.id;
    const b = pending({ kind: "question", prompt: "?" }).metadata!.pending!.id;
    expect(a).not.toBe(b);
  });
});
