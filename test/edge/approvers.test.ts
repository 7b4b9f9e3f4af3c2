/**
 * Approvers at the edge (docs/architecture.md §6 "Runs", "Groups", "Identity", "Rules", "What the
 * model is told") through the decisions webhook: who may decide, quorum, duplicates and
 * conflicts, edited arguments, the vote record, the race, and storage from before votes.
 */
import { describe, expect, it } from "vitest";
import {
  abortAllDurableObjects,
  createExecutionContext,
  env,
  runDurableObjectAlarm,
} from "cloudflare:test";
import { z } from "zod";
import { api, getRun, signedDecision, waitForStatus } from "../helpers/edge";
import { errorOf } from "../helpers/http";
import { eventsOf, inThread, sleep, sqlIn, startPending, until } from "../helpers/durable";
import { createWorker } from "../../src/edge/create-worker";
import { defineAgent } from "../../src/edge/agent";
import { defineTool } from "../../src/core/tools/define";
import { argsHash } from "../../src/core/approvers/args-hash";
import { SCHEMA_VERSION } from "../../durable/storage/schema";
import { requireApproval } from "../../src/core/tools/approval";
import { readConfig, type EdgeEnv } from "../../src/edge/settings";
import { buildNotification, notificationId } from "../../src/edge/notify/notification";

const BIG_REFUND = "Please refund $2000 on order 42";
const PROMPT = "Refund $2000 on order 42?";
const QUEUE_SETTLE_MS = 1_800;

type Vote = Record<string, unknown>;
async function vote(runId: string, requestId: string, body: Vote) {
  const response = await signedDecision({ runId, requestId, decision: "approve", ...body });
  const json = (await response.json()) as Record<string, unknown> & {
    error?: { code: string; message: string };
  };
  return { status: response.status, json };
}

describe("who may decide a request with rules", { timeout: 30_000 }, () => {
  it("two finance members apply a large refund: the first waits, duplicates and strangers change nothing", async () => {
    const { runId, request } = await startPending(BIG_REFUND, { requestedBy: "cy@example.com" });
    expect(request.data).toMatchObject({
      tool: "refund_order",
      args: { orderId: "42", amount: 2000 },
      approvers: { group: "finance", quorum: 2, editable: ["amount"] },
    });

    const first = await vote(runId, request.id, { decidedBy: "ann@example.com" });
    expect(first).toEqual({
      status: 202,
      json: { runId, requestId: request.id, duplicate: false, decision: null, votes: 1, needed: 2 },
    });
    // The same member again (another spelling of the same email): an idempotent repeat.
    const again = await vote(runId, request.id, { decidedBy: "ANN@example.com" });
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ duplicate: true, votes: 1, needed: 2 });
    // The same member, changing their mind: a conflict.
    const changed = await vote(runId, request.id, {
      decidedBy: "ann@example.com",
      decision: "decline",
    });
    expect(changed.status).toBe(409);
    expect(changed.json.error?.code).toBe("conflicting_decision");
    // Someone outside the group: refused and kept on the record.
    const stranger = await vote(runId, request.id, { decidedBy: "eve@example.com" });
    expect(stranger.status).toBe(403);
    expect(stranger.json.error?.code).toBe("not_an_approver");
    // No decider at all on a request with rules.
    const anonymous = await vote(runId, request.id, {});
    expect(anonymous.status).toBe(400);
    expect(anonymous.json.error?.code).toBe("member_required");
    expect((await getRun(runId)).status).toBe("pending");

    // Bob under another identity of his: the second distinct member applies it.
    const second = await vote(runId, request.id, { decidedBy: "bob@example.com" });
    expect(second.status).toBe(202);
    expect(second.json).toMatchObject({
      votes: 2,
      needed: 2,
      decision: { decision: "approve", decidedBy: "bob", answer: { ok: true } },
    });

    const done = await waitForStatus(runId, ["done"]);
    expect(done.text).toBe("Done: Refunded $2000 on order 42");
    expect(done.toolCalls.filter((c) => c.name === "refund_order")).toHaveLength(1);
    expect(done.requestedBy).toBe("cy@example.com");
    expect(done.decisions).toHaveLength(1);
    expect(done.requests).toEqual([
      {
        requestId: request.id,
        rules: { group: "finance", quorum: 2, editable: ["amount"] },
        approvals: 2,
        needed: 2,
        args: { orderId: "42", amount: 2000 },
        argsHash: argsHash({ orderId: "42", amount: 2000 }),
        // Which policy asked (issue 43): the demo's in-code rule.
        policy: "code",
        policyDecision: {
          id: "in-code",
          version: done.agentVersion,
          decision: "ask",
          source: "code",
        },
        votes: [
          {
            decidedBy: "ann@example.com",
            decision: "approve",
            channel: "webhook",
            argsHash: argsHash({ orderId: "42", amount: 2000 }),
            at: expect.any(String),
          },
          {
            decidedBy: "bob",
            decision: "approve",
            channel: "webhook",
            argsHash: argsHash({ orderId: "42", amount: 2000 }),
            at: expect.any(String),
          },
        ],
        refused: [
          {
            decidedBy: "eve@example.com",
            channel: "webhook",
            code: "not_an_approver",
            at: expect.any(String),
          },
        ],
        reminders: 0,
        escalatedAt: null,
      },
    ]);
    // After the request settled: the applying member's repeat is a duplicate, anyone else 409.
    expect((await vote(runId, request.id, { decidedBy: "bob" })).status).toBe(200);
    const late = await vote(runId, request.id, { decidedBy: "carol@example.com" });
    expect(late.status).toBe(409);
    expect(late.json.error?.code).toBe("already_decided");
  });

  it("the requester may not approve their own request (403 own_request), even as a member", async () => {
    const { runId, request } = await startPending(BIG_REFUND, { requestedBy: "Ann@Example.com" });
    const own = await vote(runId, request.id, { decidedBy: "ann@example.com" });
    expect(own.status).toBe(403);
    expect(own.json.error?.code).toBe("own_request");
    const run = await getRun(runId);
    expect(run.requests[0]?.votes).toEqual([]);
    expect(run.requests[0]?.refused).toMatchObject([
      { decidedBy: "ann@example.com", code: "own_request" },
    ]);
  });

  it("order of checks: 404 before 409 before 403 before the edited-args 400", async () => {
    const { runId, request } = await startPending(BIG_REFUND);
    const badEdit = { decidedBy: "eve@example.com", args: { orderId: "43", amount: 2000 } };
    expect((await vote(runId, "apr_nope", badEdit)).status).toBe(404);
    expect((await vote(runId, request.id, badEdit)).status).toBe(403);
    expect(
      (await vote(runId, request.id, { ...badEdit, decidedBy: "ann@example.com" })).json.error
        ?.code,
    ).toBe("not_editable");
    // One decline declines at once; after that, even a stranger hears 409 first.
    const declined = await vote(runId, request.id, {
      decidedBy: "carol@example.com",
      decision: "decline",
      reason: "not\nthis   customer",
    });
    expect(declined.status).toBe(202);
    expect((await vote(runId, request.id, badEdit)).status).toBe(409);

    const done = await waitForStatus(runId, ["done"]);
    const message = (await getRun(runId, "?transcript=true")).transcript?.find(
      (m) => (m as { role: string }).role === "tool",
    ) as { content: string };
    expect(message.content).toBe(`declined/expired: ${PROMPT}\nreason: not this customer`);
    expect(done.text).toBe(
      "Understood — I did not refund $2000 on order 42 because it was declined (not this customer).",
    );
  });

  it("a request without rules takes no edits (400) and no decidedBy is needed", async () => {
    const { runId, request } = await startPending("Please refund $80 on order 42");
    expect(request.data?.approvers).toBeUndefined();
    const edit = await vote(runId, request.id, { args: { orderId: "42", amount: 10 } });
    expect(edit.status).toBe(400);
    expect(edit.json.error?.code).toBe("not_editable");
    expect((await vote(runId, request.id, {})).status).toBe(202);
    await waitForStatus(runId, ["done"]);
    expect((await getRun(runId)).requests).toEqual([]);
  });
});

describe("edited arguments", { timeout: 30_000 }, () => {
  it("an edit resets earlier approvals; the tool runs once with the edit and the model hears it", async () => {
    const { runId, request } = await startPending(BIG_REFUND);
    expect((await vote(runId, request.id, { decidedBy: "ann@example.com" })).json).toMatchObject({
      votes: 1,
    });
    const edited = await vote(runId, request.id, {
      decidedBy: "bob",
      args: { orderId: "42", amount: 1500 },
    });
    expect(edited.status).toBe(202);
    expect(edited.json).toMatchObject({ decision: null, votes: 1, needed: 2 });
    // Ann approved $2000, not $1500: she approves again, the $1500 she now sees, and that applies it.
    const reapproved = await vote(runId, request.id, {
      decidedBy: "ann@example.com",
      argsHash: argsHash({ orderId: "42", amount: 1500 }),
    });
    expect(reapproved.json).toMatchObject({ votes: 2, decision: { decision: "approve" } });

    const done = await waitForStatus(runId, ["done"]);
    expect(done.toolCalls).toEqual([
      {
        id: expect.any(String),
        name: "refund_order",
        args: { orderId: "42", amount: 1500 },
        output:
          'the approver changed the arguments to {"orderId":"42","amount":1500}\nRefunded $1500 on order 42',
        isError: false,
        compensable: true, // refund_order can be taken back (docs/undo.md)
      },
    ]);
    expect(done.text).toBe(
      'Done, with the approver\'s changes ({"orderId":"42","amount":1500}): Refunded $1500 on order 42',
    );
    // The ledger keeps both: the request's arguments and the edit.
    expect(done.decisions[0]?.answer).toEqual({
      id: request.id,
      ok: true,
      data: { args: { orderId: "42", amount: 1500 } },
    });
    expect(done.requests[0]?.votes).toEqual([
      expect.objectContaining({ decidedBy: "ann@example.com", reset: true }),
      expect.objectContaining({ decidedBy: "bob", args: { orderId: "42", amount: 1500 } }),
      expect.not.objectContaining({ reset: true }),
    ]);
    const transcript = (await getRun(runId, "?transcript=true")).transcript as Array<{
      role: string;
      toolCalls?: Array<{ arguments: string }>;
    }>;
    expect(JSON.parse(transcript.find((m) => m.toolCalls)!.toolCalls![0]!.arguments)).toEqual({
      orderId: "42",
      amount: 2000,
    });
  });

  it("edits are checked against the tool's schema and its policy; refused edits record nothing", async () => {
    const { runId, request } = await startPending(BIG_REFUND);
    const ann = (args: Record<string, unknown>) =>
      vote(runId, request.id, { decidedBy: "ann@example.com", args });

    const locked = await ann({ orderId: "43", amount: 2000 });
    expect(locked.status).toBe(400);
    expect(locked.json.error?.code).toBe("not_editable");
    const invalid = await ann({ orderId: "42", amount: -5 });
    expect(invalid.status).toBe(400);
    expect(invalid.json.error?.code).toBe("invalid_args");
    // $5,000 may not become $50,000 past the $10,000 policy.
    const pastPolicy = await ann({ orderId: "42", amount: 50_000 });
    expect(pastPolicy.status).toBe(400);
    expect(pastPolicy.json.error).toMatchObject({
      code: "edit_refused",
      message: expect.stringContaining("policy: refunds over $10,000 need finance review"),
    });
    const missingKey = await ann({ amount: 1200 });
    expect(missingKey.json.error?.code).toBe("not_editable");

    const run = await getRun(runId);
    expect(run.status).toBe("pending");
    expect(run.requests[0]?.votes ?? []).toEqual([]);
    expect(run.decisions).toEqual([]);
  });
});

describe("the race", { timeout: 60_000 }, () => {
  it("50 concurrent votes from 5 members apply the request exactly once; the tool runs once", async () => {
    const { runId, request } = await startPending(BIG_REFUND);
    const members = [
      "ann@example.com",
      "bob",
      "carol@example.com",
      "dan@example.com",
      "erin@example.com",
    ];
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        vote(runId, request.id, { decidedBy: members[i % members.length] }),
      ),
    );
    const applied = results.filter((r) => r.status === 202 && r.json.decision !== null);
    expect(applied).toHaveLength(1);
    // Exactly one waiting vote before it, and only repeats or late votes after.
    expect(results.filter((r) => r.status === 202)).toHaveLength(2);
    expect(new Set(results.map((r) => r.status))).toEqual(new Set([200, 202, 409]));

    const done = await waitForStatus(runId, ["done"]);
    await sleep(QUEUE_SETTLE_MS);
    const run = await getRun(runId);
    expect(run.updatedAt).toBe(done.updatedAt);
    expect(run.decisions).toHaveLength(1);
    expect(run.toolCalls.filter((c) => c.name === "refund_order")).toHaveLength(1);
    expect(run.requests[0]?.votes).toHaveLength(2);
  });
});

describe("configuration", () => {
  const worker = (
    tools: ReturnType<typeof requireApproval>[],
    vars: Record<string, string> = {},
  ) => {
    const agent = defineAgent({
      name: "ops",
      description: "ops",
      systemPrompt: "ops",
      tools,
      demoModel: () => ({ content: "ok" }),
    });
    const handler = createWorker({ agents: [agent] });
    return (path: string, init: RequestInit = {}) =>
      handler.fetch!(
        new Request(`https://edge.test${path}`, {
          ...init,
          headers: { authorization: "Bearer test-token", "content-type": "application/json" },
        }) as Parameters<NonNullable<typeof handler.fetch>>[0],
        { ...(env as Env & EdgeEnv), ...vars },
        createExecutionContext(),
      );
  };
  const wipe = requireApproval(
    defineTool({
      name: "wipe_disk",
      description: "wipe",
      inputSchema: z.object({}),
      run: () => "",
    }),
    { approvers: { group: "ghosts", escalate: { after: "1h", to: "managers" } } },
  );

  it("a rule naming an undefined group is a 500 config_error naming agent, tool and group", async () => {
    const response = await worker([wipe])("/v1/runs", {
      method: "POST",
      body: JSON.stringify({ agent: "ops", input: "wipe it" }),
    });
    expect(response.status).toBe(500);
    const error = await errorOf(response);
    expect(error.code).toBe("config_error");
    expect(error.message).toMatch(/agent "ops", tool "wipe_disk": approver group "ghosts"/);
  });

  it("a malformed APPROVER_GROUPS fails every request with config_error naming it", async () => {
    const response = await worker([], { APPROVER_GROUPS: '{"finance": []}' })("/v1/agents");
    expect(response.status).toBe(500);
    expect(await errorOf(response)).toMatchObject({
      code: "config_error",
      message: expect.stringMatching(/APPROVER_GROUPS\.finance\.members/),
    });
  });
});

describe("storage written before votes existed (schema v4)", { timeout: 30_000 }, () => {
  it("a run suspended under v4 stays decidable and readable after the upgrade", async () => {
    const { runId, threadId, request } = await startPending("Please refund $80 on order 42");
    // Back to v4 exactly: no vote tables, no requested_by column, version row 4.
    for (const statement of [
      "DROP TABLE votes",
      "DROP TABLE refusals",
      "DROP TABLE approvals",
      "ALTER TABLE runs DROP COLUMN requested_by",
      "UPDATE meta SET value = '4' WHERE key = 'schema_version'",
    ]) {
      await sqlIn(threadId, statement);
    }
    await abortAllDurableObjects(); // the next call constructs the object again, migrating

    const decided = await vote(runId, request.id, {});
    expect(decided.status).toBe(202);
    const done = await waitForStatus(runId, ["done"]);
    expect(done).toMatchObject({ requestedBy: null, requests: [] });
    expect(done.text).toBe("Done: Refunded $80 on order 42");
    const version = await sqlIn(threadId, "SELECT value FROM meta WHERE key = 'schema_version'");
    expect(version).toEqual([{ value: String(SCHEMA_VERSION) }]); // v4 → the current version in one migration
    const columns = await sqlIn(threadId, "SELECT name FROM pragma_table_info('runs')");
    expect(columns.map((c) => c.name)).toContain("requested_by");
  });
});

describe("reminders and escalation", { timeout: 30_000 }, () => {
  const timers = (threadId: string, requestId: string) =>
    sqlIn(
      threadId,
      "SELECT reminders, next_remind_at, escalate_at, escalated_at FROM approvals WHERE request_id = ?",
      requestId,
    );

  it("the object's alarm reminds, escalates to the next group, and stops once decided", async () => {
    const { runId, threadId, request, stub } = await startPending("Please delete my account", {
      callbackUrl: `http://127.0.0.1:9/hooks/${crypto.randomUUID()}`,
    });
    const [armed] = await timers(threadId, request.id);
    // remindEvery 10m and escalate after 30m, from when the request surfaced.
    expect(Number(armed!.escalate_at) - Number(armed!.next_remind_at)).toBe(20 * 60_000);
    // Before the escalation a manager may not decide.
    expect((await vote(runId, request.id, { decidedBy: "max@example.com" })).status).toBe(403);

    await sqlIn(
      threadId,
      "UPDATE approvals SET next_remind_at = ?, escalate_at = ? WHERE request_id = ?",
      Date.now() - 1,
      Date.now() - 1,
      request.id,
    );
    await runDurableObjectAlarm(stub);
    const events = (await eventsOf(runId)).filter((e) =>
      ["reminded", "escalated"].includes(e.type),
    );
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ["reminded", { requestId: request.id, n: 1 }],
      ["escalated", { requestId: request.id, to: "managers" }],
    ]);
    const [after] = await timers(threadId, request.id);
    expect(after!.reminders).toBe(1);
    expect(Number(after!.next_remind_at)).toBeGreaterThan(Date.now());
    expect((await getRun(runId)).requests[0]).toMatchObject({
      reminders: 1,
      escalatedAt: expect.any(String),
    });

    // Escalated: the managers' inbox shows it, and a manager may decide now.
    await until(async () => {
      const response = await api("/v1/approvals?group=managers&limit=200");
      const { items } = (await response.json()) as { items: Array<{ requestId: string }> };
      return items.some((i) => i.requestId === request.id);
    }, "the request in the managers' inbox");
    expect((await vote(runId, request.id, { decidedBy: "max@example.com" })).status).toBe(202);
    await waitForStatus(runId, ["done"]);
    // The decision disarmed the timers; even a stale one firing sends nothing.
    expect((await timers(threadId, request.id))[0]!.next_remind_at).toBeNull();
    await sqlIn(
      threadId,
      "UPDATE approvals SET next_remind_at = ? WHERE request_id = ?",
      Date.now() - 1,
      request.id,
    );
    await inThread(threadId, (instance) => instance.alarm());
    expect((await eventsOf(runId)).filter((e) => e.type === "reminded")).toHaveLength(1);
    expect((await timers(threadId, request.id))[0]!.next_remind_at).toBeNull();
  });

  it("reminders and the escalation are notified with their own type and webhook-id", async () => {
    const { runId, threadId, request } = await startPending("Please delete my account");
    const source = {
      run: {
        runId,
        threadId,
        agent: "support",
        callbackUrl: "https://hooks.example/x",
        publicUrl: "https://edge.test",
        metadata: null,
        requestedBy: "cy@example.com",
      },
      request,
      expiresAt: null,
      votes: { votes: 0, needed: 1 },
    };
    const config = readConfig(env as unknown as EdgeEnv);
    const first = await buildNotification(source, config);
    const reminder = await buildNotification(source, config, { reminder: 2 });
    const escalated = await buildNotification(source, config, { escalated: true });
    expect(first).toMatchObject({ type: "run.pending", requestedBy: "cy@example.com", votes: 0 });
    // A request with rules: no anonymous link, a place to ask for personal ones.
    expect(first.approvalUrl).toBeUndefined();
    expect(first.linksUrl).toBe(`https://edge.test/v1/runs/${runId}/links`);
    expect(reminder).toMatchObject({ type: "run.reminder", reminder: 2 });
    expect(escalated).toMatchObject({ type: "run.escalated", escalatedTo: "managers" });
    const base = `msg_${runId.slice(runId.indexOf(".") + 1)}_${request.id}`;
    expect(notificationId(first)).toBe(base);
    expect(notificationId(reminder)).toBe(`${base}_r2`);
    expect(notificationId(escalated)).toBe(`${base}_esc`);
  });
});
