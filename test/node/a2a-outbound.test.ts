// The kernel's outbound A2A (src/core/a2a) against a real A2A 1.0 server built with
// @a2a-js/sdk in Node on 127.0.0.1: a skill that completes, one that fails, and one that asks
// for input — our run halts with an input request, is answered, and the remote task completes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
} from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import { agent, remoteTaskAnswer, remoteTaskData, remoteTaskPoller } from "../../src/core/a2a";
import { pendingOf } from "../../src/core/answers";
import { createToolkit } from "../../src/core/toolkit";
import { createInProcessClient } from "../../src/core/client";

const WORKING = 2;
const COMPLETED = 3;
const FAILED = 4;
const INPUT_REQUIRED = 6;
const textPart = (value: string) => ({ content: { $case: "text", value } });

const slowWaiters: Array<() => void> = [];
const releaseSlow = () => {
  for (const resolve of slowWaiters.splice(0)) {
    resolve();
  }
};

const executor: AgentExecutor = {
  async execute(ctx, bus) {
    const message = ctx.userMessage;
    const text = message.parts
      .map((p) => (p.content?.$case === "text" ? p.content.value : ""))
      .join("");
    const skill = (message.metadata as { skill?: string } | undefined)?.skill;
    const status = (state: number, words?: string) => ({
      state,
      timestamp: new Date().toISOString(),
      ...(words
        ? {
            message: {
              messageId: crypto.randomUUID(),
              role: 2,
              parts: [textPart(words)],
              contextId: ctx.contextId,
              taskId: ctx.taskId,
            },
          }
        : {}),
    });
    const update = (state: number, words?: string) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId: ctx.taskId,
          contextId: ctx.contextId,
          status: status(state, words),
          metadata: undefined,
        } as never),
      );
    const artifact = (words: string) =>
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId: ctx.taskId,
          contextId: ctx.contextId,
          artifact: { artifactId: crypto.randomUUID(), parts: [textPart(words)] },
          append: false,
          lastChunk: true,
          metadata: undefined,
        } as never),
      );
    if (!ctx.task) {
      bus.publish(
        AgentEvent.task({
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: status(WORKING),
          artifacts: [],
          history: [message],
        } as never),
      );
    }
    if (ctx.task) {
      artifact(`colour noted: ${text}`);
      update(COMPLETED);
    } else if (skill === "broken") {
      update(FAILED, "the remote broke");
    } else if (skill === "slow") {
      // Stays working until the test releases it (releaseSlow).
      await new Promise<void>((resolve) => slowWaiters.push(resolve));
      artifact(`slow done: ${text}`);
      update(COMPLETED);
    } else if (skill === "survey") {
      update(INPUT_REQUIRED, "Which colour?");
    } else {
      artifact(`echo: ${text}`);
      update(COMPLETED);
    }
    bus.finished();
  },
  async cancelTask() {},
};

let server: Server;
let cardUrl = "";

beforeAll(async () => {
  const app = express();
  const skills = ["echo", "broken", "survey", "slow"].map((id) => ({
    id,
    name: id,
    description: `the ${id} skill`,
    tags: [],
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  }));
  await new Promise<void>((resolve) => {
    server = app.listen(0, "127.0.0.1", () => resolve());
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card = {
    name: "Peer Agent",
    description: "a peer",
    supportedInterfaces: [
      { url: `${base}/a2a`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
    ],
    version: "1.0.0",
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text"],
    defaultOutputModes: ["text"],
    skills,
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card as never, new InMemoryTaskStore(), executor);
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler }));
  app.use(
    "/a2a",
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  cardUrl = `${base}/.well-known/agent-card.json`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("outbound A2A against an @a2a-js/sdk server", () => {
  it("gives one tool per skill, named from the card", async () => {
    const tools = await agent({ card: cardUrl, pollEvery: 10 }).tools();
    expect(tools.map((t) => t.name)).toEqual([
      "Peer_Agent_echo",
      "Peer_Agent_broken",
      "Peer_Agent_survey",
      "Peer_Agent_slow",
    ]);
    expect(tools[0]?.source).toBe("a2a");
  });

  it("completes and fails as the remote task does", async () => {
    const [echo, broken] = await agent({ card: cardUrl, pollEvery: 10 }).tools();
    const done = await echo!.execute({ task: "hello" }, {});
    expect(done).toMatchObject({
      output: "echo: hello",
      isError: false,
      metadata: { state: "completed" },
    });
    const failed = await broken!.execute({ task: "x" }, {});
    expect(failed.isError).toBe(true);
    expect(failed.output).toMatch(/^A2A task \S+ failed: the remote broke$/);
  });

  it("halts a run on input-required, and the answer completes the remote task", async () => {
    const toolkit = await createToolkit({
      tools: await agent({ card: cardUrl, pollEvery: 10 }).tools(),
    });
    let turn = 0;
    const client = createInProcessClient({
      model: "scripted",
      generate: async () =>
        turn++ === 0
          ? {
              role: "assistant",
              content: "",
              toolCalls: [
                {
                  id: "c1",
                  name: "Peer_Agent_survey",
                  arguments: JSON.stringify({ task: "pick a colour" }),
                },
              ],
            }
          : { role: "assistant", content: "All set." },
    } as never);
    const halted = await client.run("ask the peer", { toolkit });
    expect(halted.status).toBe("pending");
    expect(halted.pending).toMatchObject({ kind: "input", prompt: "Which colour?" });
    const request = halted.pending!;
    const resumed = await client.runWithAnswer({
      toolkit,
      history: halted.messages,
      pending: request,
      answer: { id: request.id, ok: true, data: { answer: "teal" } },
    } as never);
    expect(resumed.status).toBe("done");
    const result = resumed.toolCalls.find((c: any) =>
      JSON.stringify(c).includes("colour noted: teal"),
    );
    expect(result).toBeDefined();
  });
});

describe("createToolkit({ agents })", () => {
  it("registers each remote skill, and isolates an agent whose card fails", async () => {
    const warnings: string[] = [];
    const toolkit = await createToolkit({
      agents: [
        agent({ card: cardUrl }),
        agent({ card: `${new URL(cardUrl).origin}/missing.json` }),
      ],
      warn: (m) => warnings.push(m),
    });
    expect(toolkit.tools().map((t) => t.name)).toContain("Peer_Agent_echo");
    expect(warnings.join("\n")).toContain("missing.json");
  });
});

describe("the config agents block", () => {
  it("builds agents from { agents: { NAME: { url | card } } }, skipping disabled ones", async () => {
    const warnings: string[] = [];
    const origin = new URL(cardUrl).origin;
    const toolkit = await createToolkit({
      agents: {
        agents: {
          peer: { url: origin, pollEvery: 10, headers: { "x-test": "${PEER_TOKEN}" } },
          // Would fail if it were loaded: disabled entries are never fetched.
          off: { card: `${origin}/missing.json`, disabled: true },
        },
      },
      env: { PEER_TOKEN: "secret" },
      warn: (m) => warnings.push(m),
    });
    expect(toolkit.tools().map((t) => t.name)).toEqual([
      "Peer_Agent_echo",
      "Peer_Agent_broken",
      "Peer_Agent_survey",
      "Peer_Agent_slow",
    ]);
    expect(warnings).toEqual([]);
    const done = await toolkit.execute("Peer_Agent_echo", { task: "hi" });
    expect(done.isError).toBe(false);
  });

  it("adds an agent at run time by its card URL", async () => {
    const toolkit = await createToolkit({ warn: () => {} });
    expect(await toolkit.addAgent(cardUrl, { pollEvery: 10 })).toContain("Peer_Agent_echo");
    expect(toolkit.get("Peer_Agent_survey")?.source).toBe("a2a");
  });
});

describe("a remote task waited on durably (ctx.suspendAfterMs)", () => {
  it("suspends with a remote_task request after the window; the host polls with the tool's poller and answers; the call finishes", async () => {
    const tools = await agent({ card: cardUrl, pollEvery: 10 }).tools();
    const slow = tools.find((t) => t.name === "Peer_Agent_slow")!;
    const first = await slow.execute({ task: "long job" }, { suspendAfterMs: 30 });
    const request = pendingOf(first)!;
    expect(request.kind).toBe("remote_task");
    const data = remoteTaskData(request)!;
    expect(data).toMatchObject({
      agent: "Peer Agent",
      tool: "Peer_Agent_slow",
      state: "working",
      pollEvery: 10,
    });
    expect(data.deadline - data.startedAt).toBe(300_000);
    // The host's poll while it works: nothing to answer yet.
    const poll = remoteTaskPoller(slow)!;
    const working = await poll(data.taskId);
    expect(working.state).toBe("working");
    expect(remoteTaskAnswer(data, working, Date.now())).toBeUndefined();
    releaseSlow();
    let done = await poll(data.taskId);
    for (let i = 0; i < 50 && done.state !== "completed"; i++) {
      await new Promise((r) => setTimeout(r, 10));
      done = await poll(data.taskId);
    }
    const outcome = remoteTaskAnswer(data, done, Date.now())!;
    expect(outcome.timedOut).toBeFalsy();
    const finished = await slow.execute(
      { task: "long job" },
      { suspendAfterMs: 30, answer: { id: request.id, ok: true, data: outcome } },
    );
    expect(finished).toMatchObject({ isError: false, output: "slow done: long job" });
    expect(finished.metadata).toMatchObject({ taskId: data.taskId, state: "completed" });
  });

  it("a deadline passed is the SPEC's timeout result", async () => {
    const tools = await agent({ card: cardUrl, pollEvery: 10, timeout: 60_000 }).tools();
    const slow = tools.find((t) => t.name === "Peer_Agent_slow")!;
    const request = pendingOf(await slow.execute({ task: "x" }, { suspendAfterMs: 0 }))!;
    const data = remoteTaskData(request)!;
    const working = await remoteTaskPoller(slow)!(data.taskId);
    const outcome = remoteTaskAnswer(data, working, data.deadline)!;
    expect(outcome.timedOut).toBe(true);
    const timedOut = await slow.execute(
      { task: "x" },
      { answer: { id: request.id, ok: true, data: outcome } },
    );
    expect(timedOut.isError).toBe(true);
    expect(timedOut.output).toBe(`A2A task ${data.taskId} timed out after 60000ms (state=working)`);
    releaseSlow();
  });

  it("without the window (plain Node) it polls inline as the SPEC says", async () => {
    const tools = await agent({ card: cardUrl, pollEvery: 10 }).tools();
    const slow = tools.find((t) => t.name === "Peer_Agent_slow")!;
    const call = slow.execute({ task: "inline" });
    await new Promise((r) => setTimeout(r, 50));
    releaseSlow();
    expect(await call).toMatchObject({ isError: false, output: "slow done: inline" });
  });

  it("a task that finishes inside the window never suspends", async () => {
    const tools = await agent({ card: cardUrl, pollEvery: 10 }).tools();
    const echo = tools.find((t) => t.name === "Peer_Agent_echo")!;
    expect(await echo.execute({ task: "quick" }, { suspendAfterMs: 10_000 })).toMatchObject({
      isError: false,
      output: "echo: quick",
    });
  });
});
