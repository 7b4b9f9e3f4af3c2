/**
 * MCP elicitation bridged onto the suspension contract (docs/architecture.md §3 rule 5), in
 * process: a real SDK server elicits during a tool call; the toolkit's `waitFor` (or
 * its per-call `onElicitation` hook) answers; the answer maps back to accept /
 * decline / cancel.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  answerDeclined,
  answerOutput,
  createInProcessClient,
  createToolkit,
  isPending,
  pendingOf,
  suspendCall,
  type ElicitationContext,
  type Request,
  type Toolkit,
  type ToolkitOptions,
} from "../../src/core";
import type { GeneratedMessage } from "../../src/core/client";
import {
  routeFetch,
  sseOnlyServer,
  streamableServer,
  text,
  type TestServer,
  type TestTool,
} from "../helpers/mcp-server";

const ORIGIN = "https://tickets.test";
const SCHEMA = {
  type: "object",
  properties: {
    title: { type: "string", minLength: 3 },
    priority: { type: "integer", minimum: 1, maximum: 5 },
  },
  required: ["title"],
} as const;

/** Asks for ticket details, then reports what it got back. */
const createTicket: TestTool = {
  name: "create_ticket",
  run: async (_args, io) => {
    const reply = await io.elicit({ message: "Ticket details?", requestedSchema: SCHEMA as never });
    return text(`action=${reply.action} content=${JSON.stringify(reply.content ?? null)}`);
  },
};
/** Same, but the elicitation is not related to the call (travels on the GET stream). */
const createTicketUnrelated: TestTool = {
  name: "create_ticket_unrelated",
  run: async (_args, io) => {
    const reply = await io.elicitUnrelated({
      message: "Ticket details?",
      requestedSchema: SCHEMA as never,
    });
    return text(`action=${reply.action} content=${JSON.stringify(reply.content ?? null)}`);
  },
};
const connectAccount: TestTool = {
  name: "connect_account",
  run: async (_args, io) => {
    const reply = await io.elicit({
      mode: "url",
      message: "Connect your account",
      url: "https://auth.example.com/connect?s=1",
      elicitationId: "el-1",
    });
    return text(`action=${reply.action}`);
  },
};
/** Elicits, then never finishes, whatever the reply. */
const stubborn: TestTool = {
  name: "stubborn",
  run: async (_args, io) => {
    await io.elicit({ message: "Ticket details?", requestedSchema: SCHEMA as never });
    return new Promise(() => {});
  },
};
const tryElicit: TestTool = {
  name: "try_elicit",
  run: async (_args, io) => {
    try {
      await io.elicit({
        message: "Anything?",
        requestedSchema: { type: "object", properties: {} },
      });
      return text("elicited");
    } catch (error) {
      return {
        isError: true,
        content: [{ type: "text", text: `cannot elicit: ${(error as Error).message}` }],
      };
    }
  },
};

const toCleanUp: Array<Toolkit | TestServer> = [];
afterEach(async () => {
  await Promise.allSettled(toCleanUp.splice(0).map((x) => x.close()));
});

async function setup(options: Omit<ToolkitOptions, "mcp" | "fetch"> = {}, serverTimeout?: number) {
  const server = streamableServer({
    tools: [createTicket, createTicketUnrelated, connectAccount, tryElicit, stubborn],
  });
  const toolkit = await createToolkit({
    ...options,
    mcp: {
      mcpServers: {
        tickets: { url: `${ORIGIN}/mcp`, ...(serverTimeout ? { timeout: serverTimeout } : {}) },
      },
    },
    fetch: routeFetch({ [ORIGIN]: server.fetch }),
  });
  toCleanUp.push(server, toolkit);
  expect(toolkit.mcpStatus().tickets!.status).toBe("connected");
  return { server, toolkit };
}

describe("elicitation capability", () => {
  it("without any waitFor the client still advertises elicitation (a caller's loop may answer), and a direct call suspends on it", async () => {
    const { server, toolkit } = await setup();
    expect(server.initializeParams()[0].capabilities).toEqual({
      elicitation: { form: {}, url: {} },
    });
    const result = await toolkit.execute("tickets_try_elicit", {}, { callId: "direct" });
    expect(pendingOf(result)).toMatchObject({
      id: "eli_direct",
      kind: "input",
      prompt: "Anything?",
    });
    expect(server.elicitResults).toEqual([{ action: "cancel" }]);
  });

  it("with a waitFor the client advertises form and url elicitation", async () => {
    const { server } = await setup({ waitFor: (r) => answerDeclined(r.id) });
    expect(server.initializeParams()[0].capabilities).toEqual({
      elicitation: { form: {}, url: {} },
    });
  });
});

describe("elicitation through waitFor", () => {
  it("form mode ⇒ kind input with the schema; ok ⇒ accept with answer.data as content", async () => {
    const asked: Request[] = [];
    const { server, toolkit } = await setup({
      waitFor: (request) => (
        asked.push(request), answerOutput(request.id, { title: "Printer on fire", priority: 1 })
      ),
    });
    const result = await toolkit.execute("tickets_create_ticket", {});
    expect(result).toEqual({
      output: 'action=accept content={"title":"Printer on fire","priority":1}',
      isError: false,
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toEqual({
      id: expect.stringMatching(/^elicit_/),
      kind: "input",
      prompt: "Ticket details?",
      data: { schema: SCHEMA, server: "tickets", tool: "tickets_create_ticket" },
    });
    expect(server.elicitResults).toEqual([
      { action: "accept", content: { title: "Printer on fire", priority: 1 } },
    ]);
  });

  it("declined ⇒ decline; any other refusal (cancelled, expired, policy) ⇒ cancel", async () => {
    const reasons: Array<string | null> = [
      "declined",
      "expired",
      "cancelled",
      "policy: no tickets on Sunday",
      null,
    ];
    const answers = [...reasons];
    const { server, toolkit } = await setup({
      waitFor: (r) => answerDeclined(r.id, answers.shift()),
    });
    const outputs: string[] = [];
    for (let i = 0; i < reasons.length; i++) {
      outputs.push((await toolkit.execute("tickets_create_ticket", {})).output);
    }
    expect(server.elicitResults.map((r) => r.action)).toEqual([
      "decline",
      "cancel",
      "cancel",
      "cancel",
      "cancel",
    ]);
    expect(outputs[0]).toBe("action=decline content=null");
    expect(outputs[1]).toBe("action=cancel content=null");
  });

  it("data that does not fit the requested schema ⇒ cancel to the server, and the result tells the model why", async () => {
    const { server, toolkit } = await setup({
      waitFor: (r) => answerOutput(r.id, { title: "x", priority: 9 }),
    });
    const result = await toolkit.execute("tickets_create_ticket", {});
    expect(server.elicitResults).toEqual([{ action: "cancel" }]);
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(
      /^action=cancel content=null\n\nnote: the answer to the server's question "Ticket details\?" did not fit the requested schema/,
    );
    expect(result.output).toMatch(/^- \/title: .+/m);
    expect(result.output).toMatch(/^- \/priority: .+/m);
  });

  it("nested or non-object data is refused the same way (the protocol carries flat fields only)", async () => {
    const { server, toolkit } = await setup({
      waitFor: (r) => answerOutput(r.id, "just a string"),
    });
    const result = await toolkit.execute("tickets_create_ticket", {});
    expect(server.elicitResults).toEqual([{ action: "cancel" }]);
    expect(result.output).toMatch(/- \(root\): the answer must be an object of fields/);
  });

  it("url mode ⇒ kind authorization with the url; ok ⇒ accept", async () => {
    const asked: Request[] = [];
    const { server, toolkit } = await setup({
      waitFor: (r) => (asked.push(r), answerOutput(r.id)),
    });
    expect(await toolkit.execute("tickets_connect_account", {})).toEqual({
      output: "action=accept",
      isError: false,
    });
    // Issue 40: the SPEC's request and nothing more, unless the caller opts in.
    expect(asked[0]).toEqual({
      id: asked[0]?.id,
      kind: "authorization",
      prompt: "Connect your account",
      url: "https://auth.example.com/connect?s=1",
    });
    expect(server.elicitResults).toEqual([{ action: "accept" }]);
  });

  it("url mode with attributeElicitations: the request names server, tool and elicitation", async () => {
    const asked: Request[] = [];
    const { toolkit } = await setup({
      waitFor: (r) => (asked.push(r), answerOutput(r.id)),
      attributeElicitations: true,
    });
    await toolkit.execute("tickets_connect_account", {});
    expect(asked[0]?.data).toEqual({
      server: "tickets",
      tool: "tickets_connect_account",
      elicitationId: "el-1",
    });
  });

  it("an answer addressed to another request is not applied (cancel + note)", async () => {
    const { server, toolkit } = await setup({
      waitFor: () => answerOutput("some-other-request", { title: "Stale" }),
    });
    const result = await toolkit.execute("tickets_create_ticket", {});
    expect(server.elicitResults).toEqual([{ action: "cancel" }]);
    expect(result).toMatchObject({ isError: true });
    expect(result.output).toContain('was for another request ("some-other-request")');
  });

  it("a waitFor that throws ⇒ cancel, and the model is told", async () => {
    const { server, toolkit } = await setup({
      waitFor: () => {
        throw new Error("approval service down");
      },
    });
    const result = await toolkit.execute("tickets_create_ticket", {});
    expect(server.elicitResults).toEqual([{ action: "cancel" }]);
    expect(result.output).toContain("could not be asked (approval service down)");
  });

  it("time spent waiting on a person does not count against the server timeout", async () => {
    const { toolkit } = await setup(
      { waitFor: async (r) => (await sleep(400), answerOutput(r.id, { title: "Slow human" })) },
      150,
    );
    expect(await toolkit.execute("tickets_create_ticket", {})).toEqual({
      output: 'action=accept content={"title":"Slow human"}',
      isError: false,
    });
  });

  it("aborting the call while a person is being asked cancels the elicitation and ends the call", async () => {
    const { server, toolkit } = await setup({ waitFor: () => new Promise(() => {}) });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect(
      await toolkit.execute("tickets_create_ticket", {}, { signal: controller.signal }),
    ).toEqual({ output: "tickets_create_ticket aborted", isError: true });
    expect(server.elicitResults).toEqual([]); // the server's handler was cancelled before it could read a reply
  });

  it("an elicitation on the standalone stream is attributed to the only call in flight", async () => {
    const asked: Request[] = [];
    const { toolkit } = await setup({
      waitFor: (r) => (asked.push(r), answerOutput(r.id, { title: "Via GET stream" })),
    });
    const result = await toolkit.execute("tickets_create_ticket_unrelated", {});
    expect(result.output).toBe('action=accept content={"title":"Via GET stream"}');
    expect(asked[0]!.data).toMatchObject({
      server: "tickets",
      tool: "tickets_create_ticket_unrelated",
    });
  });

  it("concurrent calls that both elicit are each attributed to their own call", async () => {
    const asked: Request[] = [];
    const { toolkit } = await setup({
      attributeElicitations: true, // the URL request names its tool only when asked to (issue 40)
      waitFor: async (r) => {
        asked.push(r);
        await sleep(30);
        return r.data?.tool === "tickets_connect_account"
          ? answerOutput(r.id)
          : answerOutput(r.id, { title: "Concurrent" });
      },
    });
    const [a, b] = await Promise.all([
      toolkit.execute("tickets_create_ticket", {}),
      toolkit.execute("tickets_connect_account", {}),
    ]);
    expect(a.output).toBe('action=accept content={"title":"Concurrent"}');
    expect(b.output).toBe("action=accept");
    expect(asked.map((r) => [r.kind, r.data?.tool]).sort()).toEqual([
      ["authorization", "tickets_connect_account"],
      ["input", "tickets_create_ticket"],
    ]);
  });
});

describe("elicitation: attribution limits and the SSE transport", () => {
  it("with several calls in flight, an elicitation that is not on a call's stream is asked without a tool", async () => {
    const asked: Request[] = [];
    const { toolkit } = await setup({
      waitFor: async (r) => {
        asked.push(r);
        await sleep(30);
        return answerOutput(r.id, { title: "Unattributed" });
      },
    });
    const results = await Promise.all([
      toolkit.execute("tickets_create_ticket_unrelated", {}),
      toolkit.execute("tickets_create_ticket_unrelated", {}),
    ]);
    expect(results.map((r) => r.output)).toEqual(
      Array(2).fill('action=accept content={"title":"Unattributed"}'),
    );
    expect(asked.map((r) => r.data)).toEqual(Array(2).fill({ schema: SCHEMA, server: "tickets" }));
  });

  it("over the SSE fallback, elicitation works and is attributed to the only call in flight", async () => {
    const server = sseOnlyServer({ tools: [createTicket] });
    const asked: Request[] = [];
    const toolkit = await createToolkit({
      mcp: { mcpServers: { legacy: { url: `${ORIGIN}/sse` } } },
      fetch: routeFetch({ [ORIGIN]: server.fetch }),
      waitFor: (r) => (asked.push(r), answerOutput(r.id, { title: "Over SSE" })),
    });
    toCleanUp.push(server, toolkit);
    expect(toolkit.mcpStatus().legacy!.transport).toBe("sse");
    expect(server.initializeParams()[0].capabilities).toEqual({
      elicitation: { form: {}, url: {} },
    });
    expect((await toolkit.execute("legacy_create_ticket", {})).output).toBe(
      'action=accept content={"title":"Over SSE"}',
    );
    expect(asked[0]!.data).toMatchObject({ server: "legacy", tool: "legacy_create_ticket" });
  });
});

describe("onElicitation: the per-call hook the edge plugs into", () => {
  it("takes precedence over waitFor and sees the call's context", async () => {
    const seen: Array<{ request: Request; ctx: ElicitationContext }> = [];
    const { toolkit } = await setup({
      waitFor: () => {
        throw new Error("waitFor must not be called");
      },
      onElicitation: (request, ctx) => (
        seen.push({ request, ctx }), answerOutput(request.id, { title: "From hook" })
      ),
    });
    const result = await toolkit.execute(
      "tickets_create_ticket",
      {},
      { callId: "call-7", runId: "run-1" },
    );
    expect(result.output).toBe('action=accept content={"title":"From hook"}');
    const { ctx } = seen[0]!;
    expect(ctx).toMatchObject({
      server: "tickets",
      tool: "tickets_create_ticket",
      callId: "call-7",
      runId: "run-1",
    });
    expect(ctx.elicitation).toMatchObject({ mode: "form", message: "Ticket details?" });
    expect(ctx.signal).toBeInstanceOf(AbortSignal);
  });

  it("suspendCall ⇒ cancel upstream and a pending tool result; the decision re-executes the tool, which answers from ctx.answer", async () => {
    const hookCalls: Array<{ answer?: unknown }> = [];
    const onElicitation = (request: Request, ctx: ElicitationContext) => {
      hookCalls.push({ answer: ctx.answer });
      // The edge's choice: no decision within the window ⇒ suspend durably; on the
      // re-execution the durable decision is the answer (re-addressed to this request).
      if (ctx.answer?.ok) {
        return { ...ctx.answer, id: request.id };
      }
      return suspendCall({ ...request, id: `durable-${ctx.callId}` });
    };
    const { server, toolkit } = await setup({ onElicitation });

    const script: GeneratedMessage[] = [
      { toolCalls: [{ id: "call-1", name: "tickets_create_ticket", arguments: {} }] },
      { content: "Ticket filed." },
    ];
    const client = createInProcessClient({ model: "m", generate: () => script.shift()! });
    const halted = JSON.parse(JSON.stringify(await client.run("file a ticket", { toolkit })));
    expect(halted.status).toBe("pending");
    expect(halted.pending).toMatchObject({
      id: "durable-call-1",
      kind: "input",
      prompt: "Ticket details?",
      data: { schema: SCHEMA, tool: "tickets_create_ticket" },
    });
    expect(server.elicitResults).toEqual([{ action: "cancel" }]);

    const done = await client.runWithAnswer({
      toolkit,
      history: halted.messages,
      pending: halted.pending,
      answer: answerOutput("durable-call-1", { title: "Filed later", priority: 2 }),
    });
    expect(done.status).toBe("done");
    expect(done.text).toBe("Ticket filed.");
    const toolMessage = done.messages.find((m) => m.role === "tool");
    expect(toolMessage).toMatchObject({
      content: 'action=accept content={"title":"Filed later","priority":2}',
    });
    expect(server.elicitResults.at(-1)).toEqual({
      action: "accept",
      content: { title: "Filed later", priority: 2 },
    });
    expect(hookCalls).toEqual([
      { answer: undefined },
      { answer: { id: "durable-call-1", ok: true, data: { title: "Filed later", priority: 2 } } },
    ]);
  });

  it("suspendCall resolves the call promptly even when the server ignores the cancel", async () => {
    const { server, toolkit } = await setup(
      { onElicitation: (request) => suspendCall(request) },
      10_000,
    );
    const started = Date.now();
    const result = await toolkit.execute("tickets_stubborn", {}, { callId: "c1" });
    const elapsed = Date.now() - started;
    expect(isPending(result)).toBe(true);
    expect(pendingOf(result)).toMatchObject({
      kind: "input",
      prompt: "Ticket details?",
      data: { tool: "tickets_stubborn" },
    });
    expect(elapsed).toBeGreaterThanOrEqual(900); // the grace period: SUSPEND_GRACE_MS
    expect(elapsed).toBeLessThan(3000);
    expect(server.elicitResults).toEqual([{ action: "cancel" }]);
    await until(() => server.messages().some((m) => m.method === "notifications/cancelled"));
  });
});

describe("in a run: the toolkit's waitFor answers elicitations inline", () => {
  it("the model sees the tool's result after the person answered", async () => {
    const asked: Request[] = [];
    const { toolkit } = await setup({
      waitFor: (r) => (asked.push(r), answerOutput(r.id, { title: "From the run" })),
    });
    const script: GeneratedMessage[] = [
      { toolCalls: [{ id: "call-1", name: "tickets_create_ticket", arguments: {} }] },
      { content: "Done." },
    ];
    const client = createInProcessClient({ model: "m", generate: () => script.shift()! });
    const result = await client.run("file a ticket", { toolkit });
    expect(result.status).toBe("done");
    expect(result.toolCalls).toEqual([
      {
        id: "call-1",
        name: "tickets_create_ticket",
        args: {},
        output: 'action=accept content={"title":"From the run"}',
        isError: false,
      },
    ]);
    expect(asked).toHaveLength(1);
  });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(condition: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) {
      throw new Error("condition not met in time");
    }
    await sleep(10);
  }
}
