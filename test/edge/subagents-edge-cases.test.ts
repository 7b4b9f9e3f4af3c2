/**
 * Issue 24 at the edge, the rest: who asked on every approval surface, the schema upgrade
 * (v7 → v8) with a tree suspended across it, team checks at createEdge, and compaction: a
 * compacted turn that suspends is compacted again on resume while the stored transcript
 * stays whole.
 */
import { describe, expect, it } from "vitest";
import { abortAllDurableObjects } from "cloudflare:test";
import { getRun, signedDecision, startRun, waitForStatus } from "../helpers/edge";
import { inThread, messageRows, sqlIn } from "../helpers/durable";
import { SCHEMA_VERSION } from "../../durable/storage/schema";
import { createEdge } from "../../src/create-edge";
import { defineAgent } from "../../src/edge/agent";
import { renderApprovalPage } from "../../src/edge/approvals/page";
import { approvalMessage } from "../../src/edge/slack/blocks";
import { slackState, slackView } from "../../src/edge/slack/sync";
import type { InboxItem } from "../../src/edge/inbox/item";
import { SUMMARY_PREFIX } from "../../src/core/compaction";
import { COMPACTED_NOTE } from "../../src/edge/demo/team-model";
import type { Message } from "../../src/core/types";

async function pendingTree(input: string, extra: Record<string, unknown> = {}) {
  const started = await startRun({ agent: "coordinator", input, ...extra });
  const run = await waitForStatus(started.runId, ["pending", "done", "failed"]);
  expect(run.status).toBe("pending");
  return { ...started, run, request: run.pending as NonNullable<typeof run.pending> };
}

async function approveTwice(runId: string, requestId: string) {
  for (const decidedBy of ["ann@example.com", "bob@example.com"]) {
    const response = await signedDecision({ runId, requestId, decision: "approve", decidedBy });
    expect(response.status).toBe(202);
  }
}

describe("who asked, on whose behalf", () => {
  it("the inbox item, the approval page and the Slack message say 'refunds, for coordinator'", async () => {
    const { threadId, request } = await pendingTree("Refund $1500 on order 42");
    const [row] = await sqlIn(
      threadId,
      "SELECT item FROM inbox_requests WHERE request_id = ?",
      request.id,
    );
    const item = JSON.parse(String(row?.item)) as InboxItem;
    expect(item.askedBy).toBe("refunds, for coordinator");
    expect(item.agent).toBe("coordinator");
    expect(item.groups).toEqual(["finance"]);

    const page = renderApprovalPage({
      prompt: request.prompt,
      kind: request.kind,
      args: request.data?.args,
      runId: item.runId,
      requestId: request.id,
      actionPath: "/approve/x",
      ...(request.data ? { data: request.data } : {}),
      agent: item.agent,
    });
    expect(page).toContain('<span id="asked-by">refunds, for coordinator</span>');

    const message = approvalMessage(slackView(item), slackState(item));
    expect(JSON.stringify(message.blocks)).toContain("refunds, for coordinator");
  });

  it("a request of the run's own agent has no askedBy", async () => {
    const started = await startRun({ agent: "support", input: "Refund $120 on order 42" });
    const run = await waitForStatus(started.runId, ["pending"]);
    const rows = await sqlIn(
      started.threadId,
      "SELECT item FROM inbox_requests WHERE request_id = ?",
      run.pending?.id ?? "",
    );
    const items = rows.map((r) => JSON.parse(String(r.item)) as InboxItem);
    for (const item of items) {
      expect("askedBy" in item).toBe(false);
    }
  });
});

describe("schema v8", () => {
  it("storage of v7 is upgraded in place; a tree suspended across the upgrade is decided", async () => {
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(8); // v9 only adds runs.trace
    const { runId, threadId, request } = await pendingTree("Refund $1200 on order 42");
    // v7 had no tree tables: simulate storage written by it that still holds them (a v8 object
    // rolled back), then drop only the version row; the upgrade must keep every row.
    await inThread(threadId, (_instance, state) => {
      state.storage.sql.exec("UPDATE meta SET value = '7' WHERE key = 'schema_version'");
      state.storage.sql.exec("DROP INDEX agent_messages_handle");
      state.storage.sql.exec("DROP INDEX agent_handles_call");
    });
    await abortAllDurableObjects();
    await approveTwice(runId, request.id);
    const done = await waitForStatus(runId, ["done", "failed"]);
    expect(done.text).toContain("Refunded $1200 on order 42");
    const [version] = await sqlIn(threadId, "SELECT value FROM meta WHERE key = 'schema_version'");
    expect(version?.value).toBe(String(SCHEMA_VERSION));
    const indexes = await sqlIn(
      threadId,
      "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'agent_%'",
    );
    expect(indexes.map((r) => r.name).sort()).toEqual([
      "agent_handles_call",
      "agent_messages_handle",
    ]);
  });

  it("a v7 thread without the tree tables gets them on its next start", async () => {
    const first = await startRun({ agent: "support", input: "where is order 42" });
    await waitForStatus(first.runId, ["done"]);
    await inThread(first.threadId, (_instance, state) => {
      state.storage.sql.exec("DROP TABLE agent_messages");
      state.storage.sql.exec("DROP TABLE agent_handles");
      state.storage.sql.exec("UPDATE meta SET value = '7' WHERE key = 'schema_version'");
    });
    await abortAllDurableObjects();
    const next = await pendingTree("Refund $1200 on order 42", { threadId: first.threadId });
    expect(next.request.data?.path).toEqual(["root", "coordinator.1", "refunds.1"]);
  });
});

describe("team checks at createEdge", () => {
  const member = (name: string, team?: string[], maxDepth?: number) =>
    defineAgent({
      name,
      description: `${name} agent`,
      systemPrompt: "x",
      tools: [],
      ...(team ? { team } : {}),
      ...(maxDepth === undefined ? {} : { budget: { maxDepth } }),
    });

  it("a team naming an undefined agent fails with the names", () => {
    expect(() =>
      createEdge({ agents: [member("boss", ["helper", "ghost"]), member("helper")] }),
    ).toThrow(/the team of "boss" names undefined agents: ghost \(defined: boss, helper\)/);
  });

  it("a cycle without maxDepth is refused; with one it is allowed", () => {
    expect(() => createEdge({ agents: [member("a", ["b"]), member("b", ["a"])] })).toThrow(
      /cycle \(a → b → a\) and no maxDepth/,
    );
    expect(() => createEdge({ agents: [member("a", ["b"], 3), member("b", ["a"])] })).not.toThrow();
  });

  it("two agents with one name are refused", () => {
    expect(() =>
      createEdge({ agents: [member("boss", ["helper"]), member("helper"), member("helper")] }),
    ).toThrow('two different agents are named "helper"');
  });

  it("defineAgent refuses a team that is not a list of names", () => {
    expect(() => member("x", [""])).toThrow(/team must be an array of agent names/);
  });
});

describe("compaction at the edge", () => {
  it("a compacted turn that suspends is compacted again on resume; the stored transcript stays whole", async () => {
    // A long first run on the thread: the next run's transcript is over the coordinator's limit.
    const long = `Where is order 7? ${"Please hurry, this matters a lot. ".repeat(200)}`;
    const first = await startRun({ agent: "coordinator", input: long });
    const firstRun = await waitForStatus(first.runId, ["done"]);
    expect(firstRun.text).not.toContain(COMPACTED_NOTE);

    const { runId, request, threadId } = await pendingTree("Refund $1200 on order 42", {
      threadId: first.threadId,
    });
    const halted = (await getRun(runId, "?transcript=true")).transcript as Message[];
    const taskTurn = halted.find((m) => m.role === "assistant" && m.toolCalls?.length);
    expect(taskTurn?.content).toBe(COMPACTED_NOTE); // what the model was sent was compacted

    await abortAllDurableObjects();
    await approveTwice(runId, request.id);
    const done = await waitForStatus(runId, ["done", "failed"]);
    expect(done.text?.startsWith(COMPACTED_NOTE)).toBe(true); // compacted again on resume
    expect(done.text).toContain("Refunded $1200 on order 42");

    const stored = (await messageRows(threadId)).map((r) => JSON.parse(r.body) as Message);
    expect(stored.some((m) => m.role === "user" && m.content === long)).toBe(true);
    expect(stored.some((m) => (m.content ?? "").startsWith(SUMMARY_PREFIX))).toBe(false);
    expect(stored.filter((m) => m.role === "user")).toHaveLength(2);
  });
});

describe("the coordinator's waitFor (an agent option)", () => {
  it("answers its child's request without approver rules; the ledger records who decided", async () => {
    const started = await startRun({ agent: "coordinator", input: "Refund $80 on order 42" });
    const run = await waitForStatus(started.runId, ["done", "pending", "failed"]);
    expect(run.status).toBe("done");
    expect(run.text).toContain("Refunded $80 on order 42");
    expect(run.decisions).toEqual([
      expect.objectContaining({
        channel: "policy",
        decidedBy: "agent:coordinator",
        decision: "approve",
      }),
    ]);
  });

  it("leaves a request without rules that it does not answer to surface", async () => {
    const { request } = await pendingTree("Refund $500 on order 42");
    expect(request.data?.approvers).toBeUndefined();
    expect(request.data?.path).toEqual(["root", "coordinator.1", "refunds.1"]);
  });

  it("is never offered a request with approver rules", async () => {
    const { request } = await pendingTree("Refund $1200 on order 42");
    expect(request.data?.approvers).toMatchObject({ group: "finance" });
  });
});
