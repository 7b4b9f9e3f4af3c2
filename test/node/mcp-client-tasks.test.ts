/**
 * The MCP client and the tasks extension (io.modelcontextprotocol/tasks, 2026-07-28; issue 41),
 * against a 2026-07-28 server on 127.0.0.1 that answers tool calls with tasks: the client
 * declares the extension, follows a task with tasks/get until it completes (in process: inline,
 * with backoff), turns a task's input_required into our request and answers it with
 * tasks/update (a decline as `decline`), cancels the task when the call is aborted, and where
 * the host waits durably (`suspendAfterMs`) suspends on a `remote_task` request that the host
 * polls with the tool's own poller. Every request carries the call's traceparent.
 */
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  answerDeclined,
  answerOutput,
  createInProcessClient,
  createToolkit,
  isPending,
  pendingOf,
  type Request as AgentRequest,
  type Toolkit,
} from "../../src/core";
import { remoteTaskAnswer, remoteTaskData, remoteTaskPoller } from "../../src/core/a2a/remote-task";

const TRACE = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const TASKS = "io.modelcontextprotocol/tasks";

interface Task {
  tool: string;
  status: string;
  polls: number;
  answer?: Record<string, any>;
}

/** A 2026-07-28 server whose tools answer with tasks; what it received is in `seen`. */
async function taskServer() {
  const seen: any[] = [];
  const tasks = new Map<string, Task>();
  let next = 0;
  const confirm = {
    method: "elicitation/create",
    params: {
      mode: "form",
      message: "Confirm the transfer?",
      requestedSchema: {
        type: "object",
        properties: { ok: { type: "boolean" } },
        required: ["ok"],
      },
    },
  };
  const detailed = (taskId: string) => {
    const task = tasks.get(taskId)!;
    const base = { taskId, status: task.status, pollIntervalMs: 10, ttlMs: 60_000 };
    if (task.status === "input_required") {
      return { ...base, statusMessage: "needs a yes", inputRequests: { confirm } };
    }
    if (task.status === "completed") {
      const text =
        task.tool === "slow"
          ? "slow done"
          : `transfer ${task.answer?.confirm?.action}${task.answer?.confirm?.content ? ` ${JSON.stringify(task.answer.confirm.content)}` : ""}`;
      return { ...base, result: { content: [{ type: "text", text }] } };
    }
    return base;
  };
  const handle = (message: any): unknown => {
    const params = message.params ?? {};
    switch (message.method) {
      case "server/discover":
        return {
          supportedVersions: ["2026-07-28"],
          capabilities: { tools: {}, extensions: { [TASKS]: {} } },
          serverInfo: { name: "tasks-fixture", version: "1.0.0" },
        };
      case "tools/list":
        return {
          resultType: "complete",
          tools: ["slow", "transfer", "forever"].map((name) => ({
            name,
            inputSchema: { type: "object" },
          })),
        };
      case "tools/call": {
        const declared =
          params._meta?.["io.modelcontextprotocol/clientCapabilities"]?.extensions?.[TASKS];
        if (!declared) {
          return { resultType: "complete", content: [{ type: "text", text: "no tasks" }] };
        }
        const taskId = `t${++next}`;
        tasks.set(taskId, { tool: params.name, status: "working", polls: 0 });
        return { resultType: "task", ...detailed(taskId) };
      }
      case "tasks/get": {
        const task = tasks.get(params.taskId)!;
        task.polls += 1;
        if (task.tool === "slow" && task.polls >= 2) {
          task.status = "completed";
        }
        if (task.tool === "transfer" && task.status === "working" && !task.answer) {
          task.status = "input_required";
        }
        return { resultType: "complete", ...detailed(params.taskId) };
      }
      case "tasks/update": {
        const task = tasks.get(params.taskId)!;
        task.answer = params.inputResponses;
        task.status = "completed";
        return { resultType: "complete" };
      }
      case "tasks/cancel": {
        tasks.get(params.taskId)!.status = "cancelled";
        return { resultType: "complete" };
      }
      default:
        return undefined;
    }
  };
  const server: HttpServer = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const message = body ? JSON.parse(body) : {};
      seen.push(message);
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const result = handle(message);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify(
          result === undefined
            ? {
                jsonrpc: "2.0",
                id: message.id,
                error: { code: -32601, message: "Method not found" },
              }
            : { jsonrpc: "2.0", id: message.id, result },
        ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    tasks,
    methods: () => seen.filter((m) => m.id !== undefined).map((m) => m.method as string),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const cleanUp: Array<{ close(): Promise<void> | void }> = [];
afterEach(async () => {
  await Promise.all(cleanUp.splice(0).map((c) => c.close()));
});

async function setUp() {
  const server = await taskServer();
  cleanUp.push(server);
  const toolkit: Toolkit = await createToolkit({
    mcp: { mcpServers: { fx: { url: server.url } } },
  });
  cleanUp.push(toolkit);
  expect(toolkit.mcpStatus().fx!.status).toBe("connected");
  return { server, toolkit };
}

const script = (calls: string[], waitFor?: (request: AgentRequest) => Promise<unknown>) => {
  let turn = 0;
  return createInProcessClient({
    model: "scripted",
    ...(waitFor ? { waitFor } : {}),
    generate: async () => {
      const name = calls[turn++];
      return name
        ? { role: "assistant", content: "", toolCalls: [{ id: `c${turn}`, name, arguments: "{}" }] }
        : { role: "assistant", content: "done" };
    },
  } as never);
};

describe("MCP client: the tasks extension (2026-07-28)", () => {
  it("declares the extension; a task is polled with tasks/get until it completes; every request carries the traceparent", async () => {
    const { server, toolkit } = await setUp();
    const result = await toolkit.execute("fx_slow", {}, { traceparent: TRACE });
    expect(result).toEqual({ output: "slow done", isError: false });
    expect(server.methods().slice(-3)).toEqual(["tools/call", "tasks/get", "tasks/get"]);
    const call = server.seen.find((m) => m.method === "tools/call");
    expect(
      call.params._meta["io.modelcontextprotocol/clientCapabilities"].extensions[TASKS],
    ).toEqual({});
    for (const message of server.seen.filter((m) => m.method.startsWith("tasks/"))) {
      expect(message.params._meta.traceparent).toBe(TRACE);
      expect(message.params._meta["io.modelcontextprotocol/protocolVersion"]).toBe("2026-07-28");
    }
  });

  it("a task's input_required is our request; the answer goes back with tasks/update (after a JSON round trip)", async () => {
    const { server, toolkit } = await setUp();
    const halted = await script(["fx_transfer"]).run("transfer", { toolkit } as never);
    expect(halted.status).toBe("pending");
    expect(halted.pending).toMatchObject({
      kind: "input",
      prompt: "Confirm the transfer?",
      data: { mcpInput: { key: "confirm", task: { taskId: "t1" } } },
    });
    const saved = JSON.parse(JSON.stringify(halted));
    const done = await script([]).runWithAnswer({
      toolkit,
      history: saved.messages,
      pending: saved.pending,
      answer: answerOutput(saved.pending.id, { ok: true }),
    } as never);
    expect(done.status).toBe("done");
    expect(done.toolCalls[0]).toMatchObject({
      output: 'transfer accept {"ok":true}',
      isError: false,
    });
    const update = server.seen.find((m) => m.method === "tasks/update");
    expect(update.params).toMatchObject({
      taskId: "t1",
      inputResponses: { confirm: { action: "accept", content: { ok: true } } },
    });
    // The call was not sent again: the task carried on.
    expect(server.methods().filter((m) => m === "tools/call")).toHaveLength(1);
  });

  it("a declined task question is sent as decline with tasks/update", async () => {
    const { server, toolkit } = await setUp();
    const result = await script(["fx_transfer"], async (request) => answerDeclined(request.id)).run(
      "transfer",
      { toolkit } as never,
    );
    expect(result.status).toBe("done");
    const update = server.seen.find((m) => m.method === "tasks/update");
    expect(update.params.inputResponses).toEqual({ confirm: { action: "decline" } });
    expect(result.toolCalls[0]!.output).toBe(
      "declined/expired: Confirm the transfer?\ntransfer decline",
    );
  });

  it("aborting the call (the run cancelled) sends tasks/cancel", async () => {
    const { server, toolkit } = await setUp();
    const controller = new AbortController();
    const call = toolkit.execute("fx_forever", {}, { signal: controller.signal });
    while (!server.methods().includes("tasks/get")) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    controller.abort(new Error("run cancelled"));
    const result = await call;
    expect(result.isError).toBe(true);
    expect(result.output).toContain("aborted");
    const cancel = server.seen.find((m) => m.method === "tasks/cancel");
    expect(cancel?.params.taskId).toBe("t1");
    expect(server.tasks.get("t1")!.status).toBe("cancelled");
  });

  it("where the host waits durably the call suspends on a remote_task the host polls with the tool's poller", async () => {
    const { server, toolkit } = await setUp();
    const first = await toolkit.execute("fx_slow", {}, { suspendAfterMs: 0, callId: "d1" });
    expect(isPending(first)).toBe(true);
    const request = JSON.parse(JSON.stringify(pendingOf(first))) as AgentRequest;
    const data = remoteTaskData(request)!;
    expect(request.kind).toBe("remote_task");
    expect(data).toMatchObject({ tool: "fx_slow", taskId: "t1", state: "working" });
    expect(request.data!.mcpTask).toMatchObject({ server: "fx" });
    // The host (the thread object's alarm) polls until the task settles: no call is open meanwhile.
    const poll = remoteTaskPoller(toolkit.get("fx_slow"))!;
    let outcome: ReturnType<typeof remoteTaskAnswer>;
    do {
      outcome = remoteTaskAnswer(data, await poll(data.taskId), Date.now());
    } while (!outcome);
    const done = await toolkit.execute(
      "fx_slow",
      {},
      {
        callId: "d1",
        suspendAfterMs: 0,
        answer: answerOutput(request.id, JSON.parse(JSON.stringify(outcome))),
        answered: request,
      },
    );
    expect(done).toEqual({ output: "slow done", isError: false });
    expect(server.methods().filter((m) => m === "tools/call")).toHaveLength(1);
  });
});
