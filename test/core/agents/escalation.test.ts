/**
 * SPEC §7D suspension escalation: the nearest `waitFor` answers inline; with none, the root
 * halts `pending` carrying `data.path`, the stored transcripts are rewound to their pre-turn
 * state, and `runWithAnswer` routes the answer to the deepest suspended handle, whose
 * parents replay and reattach to it by task key — no duplicate child, no re-execution.
 */
import { describe, expect, it } from "vitest";
import {
  ResumeError,
  answerDeclined,
  answerOutput,
  createAgentRuntime,
  defineTool,
  memoryConversationStore,
  pending,
  type AgentDef,
  type AgentRuntimeOptions,
  type Request,
} from "../../../src/core";
import { call, lastUser, scripted, toolMessages } from "./scripted";

function secretTool() {
  const runs: Array<{ answered: boolean }> = [];
  const tool = defineTool({
    name: "check_secret",
    description: "Needs approval",
    run: (_args, ctx) => {
      runs.push({ answered: ctx.answer !== undefined });
      return ctx.answer?.ok
        ? "secret-token"
        : pending({ kind: "approval", prompt: "approve secret access?" });
    },
  });
  return { tool, runs };
}

function setup(parentExtra: Partial<AgentDef> = {}, options: Partial<AgentRuntimeOptions> = {}) {
  const secret = secretTool();
  const model = scripted({
    "m-parent": (request) => {
      if (lastUser(request) === "hello") {
        return { content: "hi" };
      }
      const results = toolMessages(request);
      return results.length === 0
        ? call("task", { agent: "asker", prompt: "get the secret" })
        : { content: `parent-final: ${results.at(-1)?.content}` };
    },
    "m-asker": (request) => {
      const got = toolMessages(request).at(-1)?.content;
      return got === undefined ? call("check_secret", {}) : { content: `asker-done: ${got}` };
    },
  });
  const asker: AgentDef = {
    name: "asker",
    does: "needs approvals",
    model: "m-asker",
    tools: [secret.tool],
  };
  const parent: AgentDef = {
    name: "approverParent",
    does: "delegates",
    model: "m-parent",
    team: ["asker"],
    ...parentExtra,
  };
  const rt = createAgentRuntime({
    client: { generate: model.generate },
    model: "m",
    agents: [parent, asker],
    ...options,
  });
  return { rt, secret, model };
}

const PARENT = "root/approverParent.1";
const CHILD = "root/approverParent.1/asker.1";

describe("inline escalation (SPEC §7D S3)", () => {
  it("the parent's waitFor answers the child's request; only the child traces suspended", async () => {
    const asked: Request[] = [];
    const { rt, secret } = setup({
      waitFor: (request) => {
        asked.push(request);
        return answerOutput(request.id);
      },
    });
    const result = await rt.run("approverParent", "do the secret thing");
    expect(result.status).toBe("done");
    expect(result.text).toBe("parent-final: asker-done: secret-token");
    expect(asked).toHaveLength(1);
    // Issue 40: segments, stamped by the level that relays the request to the interpreter.
    expect(asked[0]?.data?.path).toEqual(CHILD.split("/"));
    expect(secret.runs).toEqual([{ answered: false }, { answered: true }]);
    expect(rt.inspect(PARENT).transitions).toEqual(["idle→running", "running→idle"]);
    expect(rt.inspect(CHILD).transitions).toEqual([
      "idle→running",
      "running→suspended",
      "suspended→running",
      "running→idle",
      "idle→closed",
    ]);
    expect(rt.notes()).toContain(`${CHILD}: request ${asked[0]?.id} escalated to ${PARENT}`);
  });

  it("the nearest interpreter wins: the child's own waitFor before the parent's and the runtime's", async () => {
    const heard: string[] = [];
    const { rt } = setup(
      { waitFor: (r) => (heard.push("parent"), answerOutput(r.id)) },
      { waitFor: (r) => (heard.push("runtime"), answerOutput(r.id)) },
    );
    expect((await rt.run("approverParent", "do the secret thing")).status).toBe("done");
    expect(heard).toEqual(["parent"]);

    const runtimeOnly = setup({}, { waitFor: (r) => (heard.push("runtime"), answerOutput(r.id)) });
    expect((await runtimeOnly.rt.run("approverParent", "do the secret thing")).status).toBe("done");
    expect(heard).toEqual(["parent", "runtime"]);
  });
});

describe("durable pending and resume (SPEC §7D S4)", () => {
  it("halts at the root with data.path, rewinds stored transcripts, and reattaches on resume", async () => {
    const { rt, secret, model } = setup();
    expect((await rt.run("approverParent", "hello")).text).toBe("hi");
    const before = await rt.store.get(PARENT);

    expect(rt.wake(PARENT, "do the secret thing")).toEqual({ ok: true, queued: false });
    const halted = await rt.wait(PARENT);
    expect(halted.status).toBe("pending");
    expect(halted.pending).toMatchObject({ kind: "approval", prompt: "approve secret access?" });
    // Issue 40: the suspended subtree as seen from the root, re-stamped by each relaying level.
    expect(halted.pending?.data?.path).toEqual(PARENT.split("/"));
    expect(rt.list().map((h) => h.state)).toEqual(["suspended", "suspended"]);
    // The rewind: the parent's stored transcript is its pre-turn one, without a placeholder.
    expect(await rt.store.get(PARENT)).toEqual(before);
    expect(await rt.store.get(CHILD)).toBeUndefined();
    const leafBefore = rt.inspect(CHILD);

    const parentCalls = model.calls.filter((m) => m === "m-parent").length;
    const done = await rt.runWithAnswer({ answer: answerOutput(halted.pending?.id ?? "") });
    expect(done.status).toBe("done");
    expect(done.handle).toBe(PARENT);
    expect(done.text).toBe("parent-final: asker-done: secret-token");
    // The parent replayed its halted turn (two model calls again); the child was not re-run.
    expect(model.calls.filter((m) => m === "m-parent").length - parentCalls).toBe(2);
    expect(secret.runs).toEqual([{ answered: false }, { answered: true }]);
    expect(rt.list().map((h) => h.id)).toEqual([PARENT, CHILD]);
    expect(rt.notes()).toContain(`${PARENT}: task replay → REATTACH ${CHILD}`);

    const leafAfter = rt.inspect(CHILD);
    expect(leafAfter.turns).toBe(leafBefore.turns + 1);
    expect(leafAfter.usage.totalTokens).toBeGreaterThan(leafBefore.usage.totalTokens);
    expect(rt.inspect(PARENT).transitions).toEqual([
      "idle→running",
      "running→idle",
      "idle→running",
      "running→suspended",
      "suspended→idle",
      "idle→running",
      "running→idle",
    ]);
    expect(leafAfter.transitions).toEqual([
      "idle→running",
      "running→suspended",
      "suspended→idle",
      "idle→running",
      "running→idle",
      "idle→closed",
    ]);
    // The stored transcript holds the turn once: one user message, one task result.
    const stored = (await rt.store.get(PARENT)) ?? [];
    expect(stored.filter((m) => m.role === "user").map((m) => m.content)).toEqual([
      "hello",
      "do the secret thing",
    ]);
    expect(stored.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      "asker-done: secret-token",
    ]);
    expect(stored.some((m) => m.role === "tool" && m.pending)).toBe(false);
  });

  it("resumes in a new runtime from a JSON snapshot and the shared store (the persistence seam)", async () => {
    const store = memoryConversationStore();
    const first = setup({}, { store });
    const halted = await first.rt.run("approverParent", "do the secret thing");
    expect(halted.status).toBe("pending");
    const saved = JSON.parse(JSON.stringify(first.rt.snapshot()));

    const second = setup({}, { store, restore: saved });
    expect(second.rt.list().map((h) => [h.id, h.state])).toEqual([
      [PARENT, "suspended"],
      [CHILD, "suspended"],
    ]);
    const done = await second.rt.runWithAnswer({ answer: answerOutput(halted.pending?.id ?? "") });
    expect(done.text).toBe("parent-final: asker-done: secret-token");
    expect(first.secret.runs).toEqual([{ answered: false }]);
    expect(second.secret.runs).toEqual([{ answered: true }]);
  });

  it("feeds a refusal to the child's model and the tool does not run again", async () => {
    const { rt, secret } = setup();
    const halted = await rt.run("approverParent", "do the secret thing");
    const done = await rt.runWithAnswer({ answer: answerDeclined(halted.pending?.id ?? "", "no") });
    expect(done.text).toBe("parent-final: asker-done: declined/expired: approve secret access?");
    expect(secret.runs).toEqual([{ answered: false }]);
  });

  it("refuses an answer nobody waits for, and one that does not match the given pending request", async () => {
    const { rt } = setup();
    const halted = await rt.run("approverParent", "do the secret thing");
    await expect(rt.runWithAnswer({ answer: answerOutput("req_unknown") })).rejects.toMatchObject({
      code: "not_pending",
    });
    await expect(
      rt.runWithAnswer({ answer: answerOutput("req_other"), pending: halted.pending as Request }),
    ).rejects.toBeInstanceOf(ResumeError);
    expect(rt.inspect(CHILD).state).toBe("suspended");
  });

  it("cascades through a middle level and re-surfaces a sibling's request (suspended ⇒ its pending)", async () => {
    const secret = secretTool();
    const model = scripted({
      top: (request) =>
        toolMessages(request).length === 0
          ? call("task", { agent: "middle", prompt: "delegate" })
          : { content: `top: ${toolMessages(request)[0]?.content}` },
      middle: (request) => {
        const results = toolMessages(request);
        if (results.length === 0) {
          return {
            toolCalls: [
              { name: "task", arguments: { agent: "leaf", prompt: "one" } },
              { name: "task", arguments: { agent: "leaf", prompt: "two" } },
            ],
          };
        }
        return { content: results.map((m) => m.content).join(" & ") };
      },
      leaf: (request) => {
        const got = toolMessages(request).at(-1)?.content;
        return got === undefined
          ? call("check_secret", {})
          : { content: `${lastUser(request)}:${got}` };
      },
    });
    const rt = createAgentRuntime({
      client: { generate: model.generate },
      model: "m",
      agents: [
        { name: "top", does: "top", model: "top", team: ["middle"] },
        { name: "middle", does: "middle", model: "middle", team: ["leaf"] },
        { name: "leaf", does: "leaf", model: "leaf", tools: [secret.tool] },
      ],
    });
    const first = await rt.run("top", "go");
    expect(first.pending?.data?.path).toEqual(["root", "top.1"]);
    expect(rt.inspect("root/top.1/middle.1/leaf.1").state).toBe("suspended");
    const second = await rt.runWithAnswer({ answer: answerOutput(first.pending?.id ?? "") });
    expect(second.status).toBe("pending");
    expect(second.handle).toBe("root/top.1");
    expect(second.pending?.data?.path).toEqual(["root", "top.1"]);
    expect(rt.inspect("root/top.1/middle.1/leaf.2").state).toBe("suspended");
    const done = await rt.runWithAnswer({ answer: answerOutput(second.pending?.id ?? "") });
    expect(done.text).toBe("top: one:secret-token & two:secret-token");
    expect(rt.list().map((h) => h.id)).toEqual([
      "root/top.1",
      "root/top.1/middle.1",
      "root/top.1/middle.1/leaf.1",
      "root/top.1/middle.1/leaf.2",
    ]);
    expect(secret.runs.filter((r) => r.answered)).toHaveLength(2);
    expect(secret.runs).toHaveLength(4);
  });
});
