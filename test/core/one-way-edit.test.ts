/**
 * Issue 37, item 2, in the kernel: one way to edit. `decideVote` (the ledger's and the
 * in-process ballot's one rule) refuses a vote whose `data` carries `args` on a request about a
 * call (`invalid_data`), refuses an edit with an own `__proto__` key (`invalid_args`), and puts
 * `args` on the answer only for checked edits. The loop itself keeps the contract: an `ok`
 * answer whose `data.args` is set re-runs the call with them — a trusted in-process host's word.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  answerOutput,
  createBallot,
  createInProcessClient,
  createToolkit,
  decideVote,
  defineTool,
  requireApproval,
  type GeneratedMessage,
  type Request,
} from "../../src/core";

const refundRequest = (approvers?: Record<string, unknown>): Request => ({
  id: "apr_1",
  kind: "approval",
  prompt: "Refund $75?",
  data: {
    tool: "refund",
    args: { orderId: "42", amount: 75 },
    ...(approvers ? { approvers } : {}),
  },
});
const FOUR_EYES = { group: "finance", quorum: 2, editable: ["amount"] };

describe("decideVote: data.args is never an edit", () => {
  it("refuses data.args on a request without rules (400 invalid_data), whatever it holds", () => {
    for (const args of [{ orderId: "42", amount: 50_000 }, { orderId: "42", amount: 75 }, null]) {
      const out = decideVote({
        request: refundRequest(),
        members: [],
        votes: [],
        vote: { decision: "approve", data: { args } },
      });
      expect(out).toMatchObject({ outcome: "refused", code: "invalid_data" });
    }
  });

  it("refuses it from a member of a four-eyes rule, and their vote is not counted", () => {
    const request = refundRequest(FOUR_EYES);
    const out = decideVote({
      request,
      members: ["ann", "bob"],
      votes: [
        { decidedBy: "ann", decision: "approve", channel: "webhook", at: "2026-01-01T00:00:00Z" },
      ],
      vote: {
        decidedBy: "bob",
        decision: "approve",
        data: { args: { orderId: "42", amount: 9999 } },
      },
    });
    expect(out).toMatchObject({ outcome: "refused", code: "invalid_data", votes: 1, needed: 2 });
  });

  it("keeps other data, and a field named args on a request that is not about a call", () => {
    const approved = decideVote({
      request: refundRequest(),
      members: [],
      votes: [],
      vote: { decision: "approve", data: { note: "ok" } },
    });
    expect(approved).toMatchObject({
      outcome: "applied",
      answer: { id: "apr_1", ok: true, data: { note: "ok" } },
    });
    // A ruled input form with a field called `args`: the answer is the form, nothing added.
    const form: Request = {
      id: "inp_1",
      kind: "input",
      prompt: "Which arguments?",
      data: { approvers: { anyOf: ["ann"] } },
    };
    const answered = decideVote({
      request: form,
      members: ["ann"],
      votes: [],
      vote: { decidedBy: "ann", decision: "approve", data: { args: "--verbose" } },
    });
    expect(answered).toMatchObject({
      outcome: "applied",
      answer: { id: "inp_1", ok: true, data: { args: "--verbose" } },
    });
  });

  it("an edit with an own __proto__ key is 400 invalid_args (JSON.parse makes it; a spread would drop it)", () => {
    const edited = JSON.parse('{"orderId":"42","amount":1200,"__proto__":{"amount":9999}}');
    const out = decideVote({
      request: refundRequest(FOUR_EYES),
      members: ["ann", "bob"],
      votes: [],
      vote: { decidedBy: "ann", decision: "approve", args: edited },
    });
    expect(out).toMatchObject({ outcome: "refused", code: "invalid_args" });
    expect(out.outcome === "refused" && out.message).toContain("__proto__");
  });
});

describe("the loop and an in-process host", () => {
  function refundRig(waitFor: (request: Request) => Promise<ReturnType<typeof answerOutput>>) {
    const ran: unknown[] = [];
    const refund = requireApproval(
      defineTool({
        name: "refund",
        description: "Refund",
        inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
        run: (a) => {
          ran.push(a);
          return `refunded ${a.amount}`;
        },
      }),
      {
        approvers: (a: { amount: number }) => (a.amount > 1000 ? FOUR_EYES : undefined),
      },
    );
    const generate = (req: {
      messages: Array<{ role: string; content?: unknown }>;
    }): GeneratedMessage =>
      req.messages.some((m) => m.role === "tool")
        ? { content: "done" }
        : { toolCalls: [{ id: "c1", name: "refund", arguments: { orderId: "42", amount: 1500 } }] };
    const client = createInProcessClient({ model: "local", generate, waitFor });
    return {
      ran,
      run: async () => client.run("refund", { toolkit: await createToolkit({ tools: [refund] }) }),
    };
  }

  it("a ballot refuses data.args: the tool runs with the arguments it asked for", async () => {
    const rig = refundRig((request) => {
      const ballot = createBallot(request, { membersOf: () => ["ann", "bob", "cy"] });
      ballot.cast({ decidedBy: "ann", decision: "approve" });
      const smuggled = ballot.cast({
        decidedBy: "bob",
        decision: "approve",
        data: { args: { orderId: "42", amount: 9999 } },
      });
      expect(smuggled).toMatchObject({ outcome: "refused", code: "invalid_data" });
      ballot.cast({ decidedBy: "cy", decision: "approve" });
      return ballot.answer;
    });
    await rig.run();
    expect(rig.ran).toEqual([{ orderId: "42", amount: 1500 }]);
  });

  it("a host's own answer with data.args still re-runs the call with them (the kernel contract)", async () => {
    const rig = refundRig(async (request) =>
      answerOutput(request.id, { args: { orderId: "42", amount: 1400 } }),
    );
    await rig.run();
    expect(rig.ran).toEqual([{ orderId: "42", amount: 1400 }]);
  });
});
