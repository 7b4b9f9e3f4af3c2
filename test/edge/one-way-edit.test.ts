/**
 * Issue 37, item 2: there is one way to edit a call's arguments — the `args` of a decision,
 * checked (edit rules, the tool's schema, the gate's policy, the quorum reset, argsHash). Data
 * sent with an approval never changes what runs: `data.args` on a request about a call is
 * `400 invalid_data`, nothing is written, and the run goes on with the arguments it asked for.
 * One test per surface of the demo worker; the surfaces that never pass a caller's data (the
 * inbox, the approval page, AG-UI's approval payload) document that they stay safe. MCP and
 * AG-UI's other payloads: test/edge-mcp/one-way-edit.test.ts; Slack: test/slack/one-way-edit.test.ts.
 * Item 9: an edit carrying a `__proto__` key is `400 invalid_args`, not silently dropped.
 */
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { api, API_TOKEN, BASE, getRun, signedDecision, waitForStatus } from "../helpers/edge";
import { startPending, until } from "../helpers/durable";
import {
  agUiPost,
  answeredAssistant,
  chatPost,
  readFrames,
  runAgentInput,
  userMessage,
} from "../helpers/chat";
import { receiptsOf } from "../helpers/receipts";
import { argsHash } from "../../src/core/approvers/args-hash";
import { ApprovalPayloadSchema } from "../../src/edge/protocols/ag-ui/input";
import { ChatBodySchema } from "../../src/edge/protocols/chat/request";

const SMALL = "Please refund $75 on order 42"; // one approval, no rules
const BIG = "Please refund $1500 on order 42"; // finance, quorum 2, amount editable
const BIG_ARGS = { orderId: "42", amount: 1500 };

type Json = Record<string, any> & { error?: { code: string; message: string } };
const read = async (response: Response) => ({
  status: response.status,
  json: (await response.json()) as Json,
});

/** The run goes on with the arguments it asked for. */
async function ranWith(runId: string, amount: number) {
  const done = await waitForStatus(runId, ["done"]);
  expect(done.text).toContain(`Refunded $${amount} on order 42`);
  expect(done.toolCalls?.map((c) => c.args)).toContainEqual({ orderId: "42", amount });
}

describe("webhook: data.args is never an edit", { timeout: 30_000 }, () => {
  it("a request without rules: approving with data.args is 400 invalid_data, nothing written; the $75 runs", async () => {
    const { runId, request } = await startPending(SMALL);
    const smuggled = await read(
      await signedDecision({
        runId,
        requestId: request.id,
        decision: "approve",
        data: { args: { orderId: "42", amount: 50_000 } },
      }),
    );
    expect(smuggled.status).toBe(400);
    expect(smuggled.json.error?.code).toBe("invalid_data");
    expect(smuggled.json.error?.message).toContain("data.args");
    const run = await getRun(runId);
    expect(run.status).toBe("pending");
    expect(run.decisions).toHaveLength(0);

    // Other data still travels with the answer.
    const approved = await signedDecision({
      runId,
      requestId: request.id,
      decision: "approve",
      data: { note: "ok" },
    });
    expect(approved.status).toBe(202);
    await ranWith(runId, 75);
  });

  it("four eyes: bob's data.args is refused, ann's vote stands, and the receipt names $1,500 under its own hash", async () => {
    const { runId, request } = await startPending(BIG);
    const shown = argsHash(BIG_ARGS);
    const ann = await signedDecision({
      runId,
      requestId: request.id,
      decision: "approve",
      decidedBy: "ann@example.com",
      argsHash: shown,
    });
    expect(ann.status).toBe(202);
    const bob = await read(
      await signedDecision({
        runId,
        requestId: request.id,
        decision: "approve",
        decidedBy: "bob",
        argsHash: shown,
        data: { args: { orderId: "42", amount: 9999 } },
      }),
    );
    expect(bob.status).toBe(400);
    expect(bob.json.error?.code).toBe("invalid_data");
    const waiting = await getRun(runId);
    expect(waiting.status).toBe("pending");
    expect(waiting.requests[0]?.votes?.map((v) => v.decidedBy)).toEqual(["ann@example.com"]);

    const carol = await signedDecision({
      runId,
      requestId: request.id,
      decision: "approve",
      decidedBy: "carol@example.com",
      argsHash: shown,
    });
    expect(carol.status).toBe(202);
    await ranWith(runId, 1500);
    const receipt = await until(
      async () => (await receiptsOf(runId)).find((r) => r.requestId === request.id),
      "the approval's receipt",
    );
    expect(receipt.argsHash).toBe(shown);
    expect(receipt.votes?.map((v) => v.decidedBy)).toEqual([
      "ann@example.com",
      "carol@example.com",
    ]);
  });

  it("the documented edit still works: args, within the rule, resets the quorum", async () => {
    const { runId, request } = await startPending(BIG);
    const edited = { orderId: "42", amount: 1200 };
    const bob = await signedDecision({
      runId,
      requestId: request.id,
      decision: "approve",
      decidedBy: "bob",
      args: edited,
    });
    expect(bob.status).toBe(202);
    const ann = await signedDecision({
      runId,
      requestId: request.id,
      decision: "approve",
      decidedBy: "ann@example.com",
      argsHash: argsHash(edited),
    });
    expect(ann.status).toBe(202);
    await ranWith(runId, 1200);
  });
});

describe("A2A: a decision part's data.args is never an edit", { timeout: 30_000 }, () => {
  let seq = 0;
  const rpc = async (method: string, params: unknown) => {
    const response = await SELF.fetch(`${BASE}/a2a`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++seq, method, params }),
    });
    return response.json<any>();
  };
  const messageOn = (parts: unknown[], taskId?: string) => ({
    message: {
      kind: "message",
      role: "user",
      messageId: crypto.randomUUID(),
      ...(taskId ? { taskId } : {}),
      parts,
    },
  });

  it("refuses the approval (nothing written); the plain approval then refunds $75", async () => {
    const { result: task } = await rpc("message/send", messageOn([{ kind: "text", text: SMALL }]));
    expect(task.status.state).toBe("input-required");
    const part = task.status.message.parts.find((p: { kind: string }) => p.kind === "data").data;
    const smuggled = await rpc(
      "message/send",
      messageOn(
        [
          {
            kind: "data",
            data: {
              requestId: part.id,
              decision: "approve",
              data: { args: { orderId: "42", amount: 60_000 } },
            },
          },
        ],
        task.id,
      ),
    );
    expect(smuggled.error?.code).toBe(-32602);
    expect(smuggled.error?.message).toContain("data.args");
    expect((await getRun(task.id)).decisions).toHaveLength(0);

    const { result: done } = await rpc(
      "message/send",
      messageOn([{ kind: "data", data: { requestId: part.id, decision: "approve" } }], task.id),
    );
    expect(done.status.state).toBe("completed");
    await ranWith(task.id, 75);
  });
});

describe("chat: a tool part's output is never an edit", { timeout: 30_000 }, () => {
  it("an output-available part on the approval is 400 invalid_data; the approval then refunds $75", async () => {
    const id = `chat-${crypto.randomUUID()}`;
    const user = userMessage("refund $75 on order 42");
    const frames = await readFrames(await chatPost({ id, messages: [user] }));
    const input = frames.find((f) => f.type === "tool-input-available");
    const start = frames.find((f) => f.type === "start");
    const runId = String(start?.messageId).slice(2);
    const smuggled = await chatPost({
      id,
      messages: [
        user,
        {
          id: String(start?.messageId),
          role: "assistant",
          parts: [
            {
              type: `tool-${String(input?.toolName)}`,
              toolCallId: input?.toolCallId,
              state: "output-available",
              input: input?.input,
              output: { args: { orderId: "42", amount: 50_000 } },
            },
          ],
        },
      ],
    });
    expect(smuggled.status).toBe(400);
    expect((await smuggled.json<Json>()).error?.code).toBe("invalid_data");
    expect((await getRun(runId)).decisions).toHaveLength(0);

    const approved = await chatPost({
      id,
      messages: [user, answeredAssistant(frames, { approved: true })],
    });
    expect(approved.status).toBe(200);
    await readFrames(approved);
    await ranWith(runId, 75);
  });
});

describe("AG-UI: an approval's payload has no data", { timeout: 30_000 }, () => {
  it("a payload with data.args is 400 invalid_body (safe before the fix too)", async () => {
    const threadId = `agui-${crypto.randomUUID()}`;
    const message = { id: "m1", role: "user", content: "refund $75 on order 42" };
    const frames = await readFrames(
      await agUiPost(runAgentInput(threadId, { messages: [message] })),
    );
    const finished = frames.at(-1) as unknown as { outcome: { interrupts: Array<{ id: string }> } };
    const [interrupt] = finished.outcome.interrupts;
    const resume = (payload: unknown) => [
      { interruptId: interrupt?.id, status: "resolved", payload },
    ];
    const smuggled = await agUiPost(
      runAgentInput(threadId, {
        resume: resume({ approved: true, data: { args: { orderId: "42", amount: 50_000 } } }),
      }),
    );
    expect(smuggled.status).toBe(400);
    expect((await smuggled.json<Json>()).error?.code).toBe("invalid_body");

    const approved = await agUiPost(
      runAgentInput(threadId, { resume: resume({ approved: true }) }),
    );
    expect(approved.status).toBe(200);
    await readFrames(approved);
  });
});

describe("inbox and approval page: forms never carry data for an approval", {
  timeout: 30_000,
}, () => {
  const hidden = (html: string, name: string) =>
    new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? "";

  it("page: extra fields named data, args or amount change nothing; $75 runs (safe before the fix too)", async () => {
    const { runId, request } = await startPending(SMALL);
    const link = await api(`/v1/runs/${runId}/links`, {
      method: "POST",
      body: JSON.stringify({ requestId: request.id, approver: "ann@example.com" }),
    });
    expect(link.status).toBe(201);
    const path = new URL((await link.json<{ url: string }>()).url).pathname;
    const posted = await SELF.fetch(`${BASE}${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        decision: "approve",
        data: JSON.stringify({ args: { orderId: "42", amount: 50_000 } }),
        args: JSON.stringify({ orderId: "42", amount: 50_000 }),
        "data.args": JSON.stringify({ orderId: "42", amount: 50_000 }),
        "arg:amount": "50000",
      }).toString(),
    });
    expect(posted.status).toBe(200);
    await ranWith(runId, 75);
  });

  it("inbox: the same extra fields on a four-eyes vote change nothing (safe before the fix too)", async () => {
    const { runId, request } = await startPending(BIG);
    const created = await api("/v1/approvers/links", {
      method: "POST",
      body: JSON.stringify({ approver: "ann@example.com" }),
    });
    const { url } = await created.json<{ url: string }>();
    const signedIn = await SELF.fetch(`${BASE}${new URL(url).pathname}`, { redirect: "manual" });
    const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const page = await until(async () => {
      const html = await (await SELF.fetch(`${BASE}/inbox`, { headers: { cookie } })).text();
      return html.includes(request.id) && html;
    }, "the request on ann's inbox");
    const response = await SELF.fetch(`${BASE}/inbox/decide`, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        csrf: hidden(page, "csrf"),
        runId,
        requestId: request.id,
        decision: "approve",
        argsHash: argsHash(BIG_ARGS),
        data: JSON.stringify({ args: { orderId: "42", amount: 9999 } }),
        args: JSON.stringify({ orderId: "42", amount: 9999 }),
      }).toString(),
    });
    expect(response.status).toBe(200);
    const bob = await signedDecision({
      runId,
      requestId: request.id,
      decision: "approve",
      decidedBy: "bob",
      argsHash: argsHash(BIG_ARGS),
    });
    expect(bob.status).toBe(202);
    await ranWith(runId, 1500);
  });
});

describe("item 9: an edit with a reserved key", { timeout: 30_000 }, () => {
  // `__proto__` is the key parsers drop; `constructor` and `prototype` stay own keys and are
  // refused as any added key is (test/edge/four-eyes.test.ts "edits name only what the tool takes").
  for (const [key, code] of [
    ["__proto__", "invalid_args"],
    ["constructor", "not_editable"],
    ["prototype", "not_editable"],
  ]) {
    it(`webhook: args with ${key} are 400 ${code}, nothing written`, async () => {
      const { runId, request } = await startPending(BIG);
      const raw = `{"runId":${JSON.stringify(runId)},"requestId":${JSON.stringify(request.id)},"decision":"approve","decidedBy":"bob","args":{"orderId":"42","amount":1200,${JSON.stringify(key)}:{"amount":9999}}}`;
      const response = await read(await signedDecision(undefined, { raw }));
      expect(response.status).toBe(400);
      expect(response.json.error?.code).toBe(code);
      expect(response.json.error?.message).toContain(key);
      expect((await getRun(runId)).requests[0]?.votes ?? []).toHaveLength(0);
    });
  }

  it("chat and AG-UI keep the own __proto__ key of an edit for the ledger to refuse", () => {
    const args = JSON.parse('{"orderId":"42","amount":1200,"__proto__":{"amount":9999}}');
    const payload = ApprovalPayloadSchema.parse({ approved: true, editedArgs: args });
    expect(Object.hasOwn(payload.editedArgs ?? {}, "__proto__")).toBe(true);
    const body = ChatBodySchema.parse({
      id: "c1",
      messages: [userMessage("hi")],
      edits: { apr_1: args },
    });
    expect(Object.hasOwn(body.edits?.apr_1 ?? {}, "__proto__")).toBe(true);
  });
});
