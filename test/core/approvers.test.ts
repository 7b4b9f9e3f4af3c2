// Approver rules in the kernel (docs/architecture.md §6 "Rules", "What the model is told"):
// the pure vote function, rules on the request, edited arguments and refusal texts.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  answerDeclined,
  answerOutput,
  approvalGate,
  argsHash,
  createBallot,
  createInProcessClient,
  createToolkit,
  decideVote,
  defineTool,
  describeApproval,
  parseDuration,
  pending,
  pendingOf,
  requireApproval,
  validateRules,
  type Answer,
  type GeneratedMessage,
  type Request,
  type Vote,
} from "../../src/core";

const request = (rules?: Record<string, unknown>, args: Record<string, unknown> = { amount: 5 }) =>
  ({
    id: "apr_1",
    kind: "approval",
    prompt: "Refund?",
    data: { tool: "refund", args, ...(rules ? { approvers: rules } : {}) },
  }) satisfies Request;

const vote = (decidedBy: string, decision: Vote["decision"], extra: Partial<Vote> = {}): Vote => ({
  decidedBy,
  decision,
  channel: "webhook",
  at: "2026-01-01T00:00:00.000Z",
  ...extra,
});

const members = ["ann", "bob", "cy", "dee"];

describe("parseDuration", () => {
  it.each([
    [1500, 1500],
    ["90s", 90_000],
    ["15m", 900_000],
    ["4h", 14_400_000],
    ["2d", 172_800_000],
  ])("%j ⇒ %i ms", (input, ms) => expect(parseDuration(input)).toBe(ms));

  it.each([0, -5, 1.5, "15", "15 minutes", "0m", "m", "", null, {}])("rejects %j", (input) => {
    expect(() => parseDuration(input, "remindEvery")).toThrow(/remindEvery must be/);
  });
});

describe("validateRules", () => {
  it("keeps a complete rule as plain JSON", () => {
    const rules = {
      group: "finance",
      anyOf: ["cfo@example.com"],
      quorum: 2,
      editable: ["amount"],
      remindEvery: "10m",
      escalate: { after: "30m", to: "managers" },
      warnBefore: "10m",
      delay: 120_000,
    };
    expect(validateRules(rules)).toEqual(rules);
  });

  it.each([
    [{}, /must name a group or anyOf/],
    [{ group: "" }, /group must be a non-empty string/],
    [{ group: "g", quorum: 0 }, /quorum must be a whole number/],
    [{ group: "g", quorum: 2.5 }, /quorum/],
    [{ group: "g", qourum: 2 }, /qourum is not a rule/],
    [{ group: "g", editable: "amount" }, /editable must be/],
    [{ group: "g", remindEvery: "soon" }, /remindEvery must be/],
    [{ group: "g", escalate: { after: "1h" } }, /escalate.to must be/],
    [{ group: "g", warnBefore: "later" }, /warnBefore must be/],
    [{ group: "g", delay: -5 }, /delay must be/],
    [{ anyOf: [] }, /anyOf must be a non-empty array/],
    [[], /must be an object/],
  ])("rejects %j", (rules, message) => {
    expect(() => validateRules(rules)).toThrow(message);
  });
});

describe("decideVote", () => {
  const base = { members, votes: [] as Vote[] };

  it("a request without rules: anyone decides, once", () => {
    const out = decideVote({ ...base, request: request(), vote: { decision: "approve" } });
    expect(out).toEqual({
      outcome: "applied",
      answer: { id: "apr_1", ok: true },
      votes: 1,
      needed: 1,
      argsHash: argsHash({ amount: 5 }),
    });
  });

  it("rules: a vote must say who decides (400 member_required)", () => {
    const out = decideVote({
      ...base,
      request: request({ group: "g" }),
      vote: { decision: "approve" },
    });
    expect(out).toMatchObject({ outcome: "refused", code: "member_required" });
  });

  it("rules: outsiders are refused (403), and so is the requester", () => {
    const r = request({ group: "g" });
    expect(
      decideVote({ ...base, request: r, vote: { decidedBy: "eve", decision: "approve" } }),
    ).toMatchObject({ outcome: "refused", code: "not_an_approver" });
    expect(
      decideVote({
        ...base,
        request: r,
        requestedBy: "ann",
        vote: { decidedBy: "ann", decision: "approve" },
      }),
    ).toMatchObject({ outcome: "refused", code: "own_request" });
    // Even a cancel needs a member.
    expect(
      decideVote({ ...base, request: r, vote: { decidedBy: "eve", decision: "cancel" } }),
    ).toMatchObject({ outcome: "refused", code: "not_an_approver" });
  });

  it("quorum 2: the first approval waits, a second member's applies", () => {
    const r = request({ group: "g", quorum: 2 });
    const first = decideVote({
      ...base,
      request: r,
      vote: { decidedBy: "ann", decision: "approve" },
    });
    expect(first).toEqual({
      outcome: "waiting",
      votes: 1,
      needed: 2,
      argsHash: argsHash({ amount: 5 }),
    });
    const second = decideVote({
      ...base,
      request: r,
      votes: [vote("ann", "approve")],
      vote: { decidedBy: "bob", decision: "approve" },
    });
    expect(second).toEqual({
      outcome: "applied",
      answer: { id: "apr_1", ok: true },
      votes: 2,
      needed: 2,
      argsHash: argsHash({ amount: 5 }),
    });
  });

  it("duplicate (200) vs conflict (409) for the same member; anyone after settlement is 409", () => {
    const r = request({ group: "g", quorum: 2 });
    const votes = [vote("ann", "approve")];
    expect(
      decideVote({ ...base, request: r, votes, vote: { decidedBy: "ann", decision: "approve" } }),
    ).toMatchObject({ outcome: "refused", code: "duplicate", votes: 1, needed: 2 });
    expect(
      decideVote({
        ...base,
        request: r,
        votes,
        vote: { decidedBy: "ann", decision: "approve", args: { amount: 5 } },
      }),
    ).toMatchObject({ code: "duplicate" });
    expect(
      decideVote({ ...base, request: r, votes, vote: { decidedBy: "ann", decision: "decline" } }),
    ).toMatchObject({ code: "conflicting_vote" });

    const settled = [vote("ann", "approve"), vote("bob", "approve")];
    expect(
      decideVote({
        ...base,
        request: r,
        votes: settled,
        vote: { decidedBy: "bob", decision: "approve" },
      }),
    ).toMatchObject({ code: "duplicate" });
    expect(
      decideVote({
        ...base,
        request: r,
        votes: settled,
        vote: { decidedBy: "cy", decision: "approve" },
      }),
    ).toMatchObject({ code: "already_decided" });
    // A stranger after settlement hears "no longer pending" (409) before "not an approver".
    expect(
      decideVote({
        ...base,
        request: r,
        votes: settled,
        vote: { decidedBy: "eve", decision: "decline" },
      }),
    ).toMatchObject({ code: "already_decided" });
  });

  it("one decline declines at once, with the approver's reason; cancel says cancelled", () => {
    const r = request({ group: "g", quorum: 3 });
    const out = decideVote({
      ...base,
      request: r,
      votes: [vote("ann", "approve")],
      vote: { decidedBy: "bob", decision: "decline", reason: "not this customer" },
    });
    expect(out).toMatchObject({
      outcome: "applied",
      answer: { id: "apr_1", ok: false, reason: "not this customer" },
    });
    expect(
      decideVote({ ...base, request: r, vote: { decidedBy: "bob", decision: "cancel" } }),
    ).toMatchObject({ answer: { ok: false, reason: "cancelled" } });
  });

  it("edits: only editable keys; unchanged keys are not edits; an edit resets earlier approvals", () => {
    const r = request(
      { group: "g", quorum: 2, editable: ["amount"] },
      { orderId: "42", amount: 5 },
    );
    expect(
      decideVote({
        ...base,
        request: r,
        vote: { decidedBy: "ann", decision: "approve", args: { orderId: "43", amount: 5 } },
      }),
    ).toMatchObject({
      outcome: "refused",
      code: "not_editable",
      message: expect.stringContaining('"orderId"'),
    });
    expect(
      decideVote({
        ...base,
        request: r,
        vote: { decidedBy: "ann", decision: "approve", args: [1] },
      }),
    ).toMatchObject({ code: "invalid_args" });
    // Same values ⇒ not an edit (no editable check, no reset).
    expect(
      decideVote({
        ...base,
        request: r,
        vote: { decidedBy: "ann", decision: "approve", args: { amount: 5, orderId: "42" } },
      }),
    ).toEqual({
      outcome: "waiting",
      votes: 1,
      needed: 2,
      argsHash: argsHash({ orderId: "42", amount: 5 }),
    });

    const edited = decideVote({
      ...base,
      request: r,
      votes: [vote("ann", "approve")],
      vote: { decidedBy: "bob", decision: "approve", args: { orderId: "42", amount: 3 } },
    });
    expect(edited).toEqual({
      outcome: "waiting",
      votes: 1,
      needed: 2,
      argsHash: argsHash({ orderId: "42", amount: 3 }),
      edit: { args: { orderId: "42", amount: 3 } },
    });
    // ann's reset approval lets her approve again: the new args apply, carried on the answer.
    const votes = [
      vote("ann", "approve", { reset: true }),
      vote("bob", "approve", { args: { orderId: "42", amount: 3 } }),
    ];
    // …but only with the new arguments' version: a vote is bound to what the approver saw.
    expect(
      decideVote({ ...base, request: r, votes, vote: { decidedBy: "ann", decision: "approve" } }),
    ).toMatchObject({
      outcome: "refused",
      code: "args_changed",
      current: {
        args: { orderId: "42", amount: 3 },
        argsHash: argsHash({ orderId: "42", amount: 3 }),
      },
    });
    expect(
      decideVote({
        ...base,
        request: r,
        votes,
        vote: {
          decidedBy: "ann",
          decision: "approve",
          argsHash: argsHash({ orderId: "42", amount: 3 }),
        },
      }),
    ).toEqual({
      outcome: "applied",
      answer: { id: "apr_1", ok: true, data: { args: { orderId: "42", amount: 3 } } },
      votes: 2,
      needed: 2,
      argsHash: argsHash({ orderId: "42", amount: 3 }),
    });
  });

  it("rules without editable refuse any change", () => {
    const out = decideVote({
      ...base,
      request: request({ group: "g" }),
      vote: { decidedBy: "ann", decision: "approve", args: { amount: 6 } },
    });
    expect(out).toMatchObject({ code: "not_editable" });
  });
});

describe("createBallot (an in-process waitFor host)", () => {
  const directory = {
    membersOf: (g: string) =>
      ({ finance: ["ann", "bob"], managers: ["max"] })[g] as string[] | undefined,
    memberOf: (identity: string) =>
      ({ "Bob@Example.com": "bob", "bob@example.com": "bob" })[identity],
  };

  it("counts one person once whatever identity they use, and applies at quorum", async () => {
    const ballot = createBallot(
      request({ group: "finance", quorum: 2, escalate: { after: "30m", to: "managers" } }),
      directory,
    );
    expect(ballot.cast({ decidedBy: "bob", decision: "approve" })).toMatchObject({
      outcome: "waiting",
    });
    expect(ballot.cast({ decidedBy: "bob@example.com", decision: "approve" })).toMatchObject({
      code: "duplicate",
    });
    expect(ballot.cast({ decidedBy: "max", decision: "approve" })).toMatchObject({
      code: "not_an_approver",
    });
    ballot.escalate();
    expect(ballot.cast({ decidedBy: "max", decision: "approve" })).toMatchObject({
      outcome: "applied",
    });
    await expect(ballot.answer).resolves.toEqual({ id: "apr_1", ok: true });
    expect(ballot.votes().map((v) => v.decidedBy)).toEqual(["bob", "max"]);
  });

  it("drives a real run: rules on the request, two approvals, the tool runs once", async () => {
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
        approvers: (a: { amount: number }) =>
          a.amount > 1000 ? { group: "finance", quorum: 2, editable: ["amount"] } : undefined,
      },
    );
    const seen: Request[] = [];
    const client = createInProcessClient({
      model: "local",
      generate: script({ orderId: "42", amount: 5000 }),
      waitFor: (req) => {
        seen.push(req);
        const ballot = createBallot(req, { ...directory, requestedBy: "cy" });
        ballot.cast({ decidedBy: "ann", decision: "approve" });
        ballot.cast({
          decidedBy: "bob",
          decision: "approve",
          args: { orderId: "42", amount: 4000 },
        });
        ballot.cast({
          decidedBy: "ann",
          decision: "approve",
          argsHash: argsHash({ orderId: "42", amount: 4000 }),
        });
        return ballot.answer;
      },
    });
    const result = await client.run("refund", {
      toolkit: await createToolkit({ tools: [refund] }),
    });
    expect(seen[0]?.data?.approvers).toEqual({ group: "finance", quorum: 2, editable: ["amount"] });
    expect(ran).toEqual([{ orderId: "42", amount: 4000 }]);
    const toolMessage = result.messages.find((m) => m.role === "tool");
    expect(toolMessage?.content).toBe(
      'the approver changed the arguments to {"orderId":"42","amount":4000}\nrefunded 4000',
    );
    expect(result.toolCalls[0]?.args).toEqual({ orderId: "42", amount: 4000 });
  });
});

/** A model that calls `refund` once with `args`, then answers with the tool's output. */
function script(args: Record<string, unknown>) {
  return (req: { messages: Array<{ role: string; content?: unknown }> }): GeneratedMessage => {
    const tool = req.messages.find((m) => m.role === "tool");
    return tool
      ? { content: `done: ${String(tool.content)}` }
      : { toolCalls: [{ id: "c1", name: "refund", arguments: args }] };
  };
}

describe("requireApproval with approvers", () => {
  const base = defineTool({
    name: "refund",
    description: "Refund",
    inputSchema: { type: "object", properties: { amount: { type: "number" } } },
    run: () => "ok",
  });

  it("describes its static rules for listings", () => {
    expect(describeApproval(base)).toBeUndefined();
    expect(
      describeApproval(
        requireApproval(base, {
          when: () => true,
          approvers: { group: "finance", quorum: 2, remindEvery: "10m" },
        }),
      ),
    ).toEqual({ needsApproval: "conditional", group: "finance", quorum: 2, remindEvery: "10m" });
    expect(describeApproval(requireApproval(base, { approvers: () => undefined }))).toEqual({
      needsApproval: "always",
      rulesByArgs: true,
    });
    expect(describeApproval(requireApproval(base))).toEqual({ needsApproval: "always" });
  });

  it("a malformed static rule fails where the tool is defined", () => {
    expect(() => requireApproval(base, { approvers: { group: "g", quorum: 0 } })).toThrow(
      /requireApproval\(refund\)\.approvers\.quorum/,
    );
  });

  it("a function's rules are resolved at suspension and carried on the request", async () => {
    const gated = requireApproval(base, {
      approvers: (a: { amount: number }) => (a.amount > 100 ? { group: "big" } : undefined),
    });
    const big = await gated.execute({ amount: 500 }, { callId: "c1" });
    const small = await gated.execute({ amount: 5 }, { callId: "c2" });
    expect(pendingOf(big)?.data).toEqual({
      tool: "refund",
      args: { amount: 500 },
      approvers: { group: "big" },
    });
    expect(pendingOf(small)?.data).toEqual({
      tool: "refund",
      args: { amount: 5 },
    });
  });

  it("its gate builds the request a call with given arguments would raise, under a given id", async () => {
    const gated = requireApproval(base, {
      prompt: (a: { amount: number }) => `Refund $${a.amount}?`,
      approvers: (a: { amount: number }) => (a.amount > 100 ? { group: "big" } : undefined),
      expiresIn: 60_000,
    });
    const raised = pendingOf(await gated.execute({ amount: 500 }, { callId: "c1" }));
    const built = approvalGate(gated)?.requestFor({ amount: 500 }, "apr_c1_ask2");
    expect(built).toEqual({ ...raised, id: "apr_c1_ask2", expiresAt: expect.any(String) });
    expect(Date.parse(built?.expiresAt ?? "")).toBeGreaterThan(Date.now());
  });
});

describe("what the model is told", () => {
  const gated = (policy?: (a: { amount: number }, r: Request) => Answer | undefined) =>
    requireApproval(
      defineTool({
        name: "refund",
        description: "Refund",
        inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
        run: () => "refunded",
      }),
      { prompt: "Refund?", ...(policy ? { policy } : {}) },
    );
  const run = async (
    tool: ReturnType<typeof gated>,
    waitFor: (r: Request) => Answer,
    refusalText?: (r: Request, a: Answer) => string,
  ) => {
    const client = createInProcessClient({
      model: "local",
      generate: script({ orderId: "42", amount: 20_000 }),
      waitFor,
      ...(refusalText ? { refusalText } : {}),
    });
    const result = await client.run("x", { toolkit: await createToolkit({ tools: [tool] }) });
    return result.messages.find((m) => m.role === "tool")?.content;
  };

  it("the kernel's default stays the contract's exact text", async () => {
    expect(await run(gated(), (r) => answerDeclined(r.id, "too much"))).toBe(
      "declined/expired: Refund?",
    );
  });

  it("refusalText replaces it for human and policy refusals alike", async () => {
    const text = (r: Request, a: Answer) => `declined/expired: ${r.prompt}\nreason: ${a.reason}`;
    expect(await run(gated(), (r) => answerDeclined(r.id, "too much"), text)).toBe(
      "declined/expired: Refund?\nreason: too much",
    );
    const policy = (_a: unknown, r: Request) => answerDeclined(r.id, "policy: over threshold");
    expect(await run(gated(policy), () => answerOutput("never"), text)).toBe(
      "declined/expired: Refund?\nreason: policy: over threshold",
    );
  });

  it("data.args on an answer to a request without data.args changes nothing", async () => {
    const ran: unknown[] = [];
    const tool = defineTool({
      name: "refund",
      description: "Refund",
      run: (a, ctx) => {
        if (!ctx.answer) {
          return pending({ id: "r1", kind: "input", prompt: "?" });
        }
        ran.push(a);
        return "done";
      },
    });
    const client = createInProcessClient({
      model: "local",
      generate: script({ orderId: "42" }),
      waitFor: (r) => answerOutput(r.id, { args: { orderId: "99" } }),
    });
    await client.run("x", { toolkit: await createToolkit({ tools: [tool] }) });
    expect(ran).toEqual([{ orderId: "42" }]);
  });

  it("arguments a host migrated (data.argsMigrated) are told as a migration, not an approver's edit", async () => {
    const refund = requireApproval(
      defineTool({
        name: "refund",
        description: "Refund",
        inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
        run: (a) => `refunded ${a.amount}`,
      }),
    );
    const client = createInProcessClient({
      model: "local",
      generate: script({ orderId: "42", amount: 5 }),
      waitFor: (r) =>
        answerOutput(r.id, { args: { orderId: "42", amount: 500 }, argsMigrated: true }),
    });
    const result = await client.run("x", { toolkit: await createToolkit({ tools: [refund] }) });
    expect(result.messages.find((m) => m.role === "tool")?.content).toBe(
      'the arguments were migrated to the tool\'s current version: {"orderId":"42","amount":500}\nrefunded 500',
    );
  });
});
