/**
 * The fault schedule (issue 38 item 6): runs of every wave-3 shape against one `wrangler dev`
 * that is killed (SIGKILL to wrangler and workerd: no shutdown) and started again on the same
 * state, while the runs are in flight. Shared by bench/fault-schedule.mjs (1,000 runs, a kill
 * every ~30 s) and its seed in the test suite (test/dev/fault-schedule.test.mjs: a dozen runs,
 * one kill).
 *
 * The shapes, in turn (run i is SHAPES[i % SHAPES.length]):
 * - approval: POST /v1/runs (support, a $120 refund) → pending → signed webhook approval → done;
 * - subagent: the coordinator's child `refunds` asks (a $1,200 refund) → two finance votes → done;
 * - quorum-edit: a $2,000 refund (two of finance): ann approves, bob edits the amount to $1,500
 *   (ann's vote is reset), ann approves the edit → the refund runs once, for $1,500;
 * - chat: POST /v1/chat/support → the approval request → the follow-up that approves → finish;
 * - ag-ui: POST /v1/ag-ui/support → RUN_FINISHED with an interrupt → `resume` → RUN_FINISHED;
 * - a2a: message/send (an $80 refund) → input-required → the caller's answer → completed;
 * - oauth: `docs` needs an MCP sign-in: pending `authorization` → the sign-in link → the
 *   authorization server's consent → /oauth/callback → the tool runs on the MCP server.
 *
 * A client that meets a kill (a connection cut mid-request or mid-stream) waits for the
 * server and repeats its step the way a real client can: every step is safe to repeat (a
 * start on the same thread is `409 thread_busy` naming the run it started; a vote repeated
 * is a duplicate; a chat or AG-UI request repeated replays its run; an A2A answer repeated is
 * refused as already given, and the run's state says it was recorded).
 *
 * Each run is then judged on the service's own record: its status (`GET /v1/runs/:id`, or the
 * protocol's replay for AG-UI) and how often each tool ran (the `tool_result` events of its
 * whole tree; for `docs`, also the calls the MCP server itself saw):
 * - lost: acknowledged, every decision acknowledged, and yet not `done`, or a tool short;
 * - doubled: a tool ran more often than once per call the run made;
 * - stuck: not finished within `settleMs` of its last step;
 * - 5xx: every response of our worker with a 5xx status, whatever the step. wrangler dev's
 *   own proxy answering 503 "Your worker restarted mid-request" for a request in flight
 *   during a kill is not our worker's answer: it is counted apart (`proxyRestarts`) and the
 *   client repeats the step, as for a connection the kill cut.
 *
 * The sign-in's code is redeemed by /oauth/callback before the answer is recorded: a kill in
 * that window cuts the callback, and the browser opens the sign-in link again (a new code),
 * as a person would; a callback that says the sign-in did not complete is done again the same
 * way (`signInsRedone`). The MCP server dedupes `tools/call` on the idempotency key each call
 * carries (as a real server can): `mcpWhoami` says how often the tool ran, how many sign-in
 * runs finished, and how many sends were answered from the server's memory of a key.
 */
import { createHmac, randomBytes } from "node:crypto";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const TERMINAL = new Set(["done", "incomplete", "failed", "cancelled"]);

export const SHAPES = ["approval", "subagent", "quorum-edit", "chat", "ag-ui", "a2a", "oauth"];

/** A request the kill cut (no response, or a response cut before its end). */
class Cut extends Error {}

/** What wrangler dev's proxy answers a request its worker restarted under (a POST is not retried for us). */
const RESTARTED = /Your worker restarted mid-request/;

/**
 * @param {{
 *   runs: number,
 *   concurrency: number,
 *   server: { url: string, crash: () => Promise<void> },
 *   restart: () => Promise<{ url: string, crash: () => Promise<void> }>,
 *   vars: Record<string, string>,
 *   oauth: { toolCalls: string[] } & Record<string, unknown>,
 *   consent: (url: string) => Promise<string>,
 *   killWhen: (progress: { started: number, suspended: number, finished: number, elapsedMs: number, kills: number }) => boolean,
 *   settleMs?: number,
 *   log?: (line: string) => void,
 * }} options
 */
export async function runFaultSchedule(options) {
  const { runs, concurrency, vars, oauth, consent, killWhen, log = () => {} } = options;
  const settleMs = options.settleMs ?? 180_000;
  const ctx = {
    url: options.server.url,
    server: options.server,
    down: null, // a promise while the server is restarting
    tag: randomBytes(3).toString("hex"),
    vars,
    consent,
    settleMs,
    fiveXX: [],
    proxyRestarts: [],
    signInsRedone: 0,
    cuts: 0,
    progress: { started: 0, suspended: 0, finished: 0, elapsedMs: 0, kills: 0 },
    restarts: [],
  };
  const began = Date.now();
  const results = [];
  let next = 0;
  let done = false;

  // The killer: checks the schedule twice a second; one kill at a time.
  const killer = (async () => {
    while (!done) {
      await sleep(500);
      ctx.progress.elapsedMs = Date.now() - began;
      if (!done && killWhen(ctx.progress)) {
        const killedAt = Date.now();
        let up;
        ctx.down = new Promise((resolve) => {
          up = resolve;
        });
        await ctx.server.crash();
        ctx.server = await options.restart();
        ctx.url = ctx.server.url;
        ctx.progress.kills += 1;
        ctx.restarts.push(Date.now() - killedAt);
        log(
          `  kill ${ctx.progress.kills} at ${((killedAt - began) / 1000).toFixed(0)} s: ${ctx.progress.started} started, ${ctx.progress.finished} finished; back after ${Date.now() - killedAt} ms`,
        );
        ctx.down = null;
        up();
      }
    }
  })();

  const worker = async () => {
    for (let i = next++; i < runs; i = next++) {
      const shape = SHAPES[i % SHAPES.length];
      const t0 = Date.now();
      let result;
      try {
        result = await FLOWS[shape](ctx, i);
      } catch (error) {
        result = { runId: undefined, outcome: "error", problem: String(error?.stack ?? error) };
      }
      ctx.progress.finished += 1;
      results.push({ i, shape, ms: Date.now() - t0, ...result });
      if (result.outcome !== "done") {
        log(
          `  run ${i} (${shape}) ${result.runId ?? ""} ${result.outcome}: ${result.problem ?? ""}`,
        );
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    done = true;
    await killer;
  }
  const whoami = oauth.toolCalls.filter((name) => name === "whoami").length;
  const oauthDone = results.filter((r) => r.shape === "oauth" && r.outcome === "done").length;
  const keys = oauth.idempotencyKeys ?? [];
  return {
    results,
    fiveXX: ctx.fiveXX,
    proxyRestarts: ctx.proxyRestarts,
    signInsRedone: ctx.signInsRedone,
    cuts: ctx.cuts,
    kills: ctx.progress.kills,
    restarts: ctx.restarts,
    elapsedMs: Date.now() - began,
    // The MCP server's own count: one `whoami` per finished sign-in run, never more; and the
    // sends it answered from its memory of their idempotency key (a call repeated after a kill).
    mcpWhoami: { calls: whoami, runsDone: oauthDone, deduped: keys.length - new Set(keys).size },
    server: ctx.server,
  };
}

/** Per shape and in total: done, lost, doubled, stuck, other. */
export function tally(outcome) {
  const rows = new Map();
  const add = (key, r) => {
    const row = rows.get(key) ?? { runs: 0, done: 0, lost: 0, doubled: 0, stuck: 0, error: 0 };
    row.runs += 1;
    row[r.outcome] = (row[r.outcome] ?? 0) + 1;
    rows.set(key, row);
  };
  for (const r of outcome.results) {
    add(r.shape, r);
    add("all", r);
  }
  return rows;
}

// ---------------------------------------------------------------- HTTP, kill-aware

async function ready(ctx) {
  while (ctx.down) {
    await ctx.down;
  }
}

/**
 * One request; a 5xx of our worker is recorded; a cut connection (or body), and wrangler dev's
 * proxy saying the worker restarted under the request, are a {@link Cut} (the step is repeated).
 */
async function http(ctx, method, path, { body, headers = {}, timeoutMs = 60_000, base } = {}) {
  await ready(ctx);
  const url = `${base ?? ctx.url}${path}`;
  try {
    const response = await fetch(url, {
      method,
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    if (response.status >= 500 && RESTARTED.test(text)) {
      // wrangler dev's proxy, not our worker: the worker under it was killed mid-request.
      ctx.proxyRestarts.push(`${method} ${path} → ${response.status}: ${text.slice(0, 120)}`);
      throw new Cut(`${method} ${path}: ${text.slice(0, 120)}`);
    }
    if (response.status >= 500) {
      ctx.fiveXX.push(`${method} ${path} → ${response.status}: ${text.slice(0, 300)}`);
    }
    let json;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: response.status, text, json, headers: response.headers };
  } catch (error) {
    ctx.cuts += 1;
    throw new Cut(`${method} ${path}: ${error?.cause?.code ?? error?.name ?? error}`);
  }
}

/** Repeats `step` while a kill cuts it (waiting for the server in between). */
async function repeat(ctx, step) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await step(attempt);
    } catch (error) {
      if (!(error instanceof Cut) || attempt > 20) {
        throw error;
      }
      await sleep(200);
      await ready(ctx);
    }
  }
}

const api = (ctx) => ({ authorization: `Bearer ${ctx.vars.API_TOKEN}` });
const jsonHeaders = (ctx, extra = {}) => ({
  ...api(ctx),
  "content-type": "application/json",
  ...extra,
});

/** Standard Webhooks headers under the first WEBHOOK_SECRET. */
function signed(ctx, body) {
  const secret = ctx.vars.WEBHOOK_SECRET.split(/\s+/)[0];
  const id = `msg_${randomBytes(12).toString("hex")}`;
  const timestamp = String(Math.floor(Date.now() / 1000));
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const signature = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": timestamp,
    "webhook-signature": `v1,${signature}`,
  };
}

async function getRun(ctx, runId) {
  return repeat(ctx, async () => {
    const r = await http(ctx, "GET", `/v1/runs/${encodeURIComponent(runId)}`, {
      headers: api(ctx),
    });
    if (r.status !== 200) {
      throw new Error(`GET run ${runId}: ${r.status} ${r.text.slice(0, 200)}`);
    }
    return r.json;
  });
}

/** Polls the run until `until(view)`; `{ stuck: true, view }` when `settleMs` passes first. */
async function waitRun(ctx, runId, until) {
  const deadline = Date.now() + ctx.settleMs;
  for (;;) {
    const view = await getRun(ctx, runId);
    if (until(view)) {
      return { view };
    }
    if (TERMINAL.has(view.status) || Date.now() > deadline) {
      return { view, stuck: !TERMINAL.has(view.status) };
    }
    await sleep(400);
  }
}

const isPending = (v) => v.status === "pending" && v.pending !== null;
const isFinished = (v) => TERMINAL.has(v.status);

/** POST /v1/runs on a thread of our own: a repeat after a cut finds the run it started. */
async function startRun(ctx, body) {
  const runId = await repeat(ctx, async () => {
    const r = await http(ctx, "POST", "/v1/runs", {
      headers: jsonHeaders(ctx),
      body: JSON.stringify(body),
    });
    if (r.status === 202) {
      return r.json.runId;
    }
    const busy = r.status === 409 && /active run (\S+) /.exec(r.json?.error?.message ?? "");
    if (busy) {
      return busy[1]; // our first attempt started it before the kill cut its answer
    }
    throw new Error(`start: ${r.status} ${r.text.slice(0, 300)}`);
  });
  ctx.progress.started += 1;
  return runId;
}

/** A signed webhook vote; a repeat is a duplicate, a settled request says it was recorded. */
async function vote(ctx, decision) {
  const body = JSON.stringify(decision);
  return repeat(ctx, async (attempt) => {
    const r = await http(ctx, "POST", "/v1/decisions", { headers: signed(ctx, body), body });
    if (r.status === 200 || r.status === 202) {
      return r.json;
    }
    // After a cut, our earlier attempt may have been the one recorded (or applied).
    const settled = ["request_not_pending", "already_decided", "args_changed"];
    if (attempt > 0 && r.status === 409 && settled.includes(r.json?.error?.code)) {
      return { recordedBefore: r.json.error.code };
    }
    throw new Error(`vote ${body}: ${r.status} ${r.text.slice(0, 300)}`);
  });
}

/** How often each tool ran in the run's tree: its `tool_result` events, by name. */
async function toolRuns(ctx, runId) {
  const text = await repeat(ctx, async () => {
    const r = await http(ctx, "GET", `/v1/runs/${encodeURIComponent(runId)}/events`, {
      headers: api(ctx),
    });
    if (r.status !== 200) {
      throw new Error(`events of ${runId}: ${r.status}`);
    }
    return r.text;
  });
  const counts = {};
  for (const block of text.split("\n\n")) {
    if (!block.includes("event: tool_result")) {
      continue;
    }
    const data = block
      .split("\n")
      .find((line) => line.startsWith("data: "))
      ?.slice(6);
    const name = data ? JSON.parse(data).name : "?";
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

/** The verdict on a run whose every step was acknowledged: done with each tool run as often as expected. */
async function judge(ctx, runId, expected, check = () => undefined) {
  const { view, stuck } = await waitRun(ctx, runId, isFinished);
  if (stuck) {
    return { runId, outcome: "stuck", problem: `still ${view.status} after ${ctx.settleMs} ms` };
  }
  const counts = await toolRuns(ctx, runId);
  const over = Object.entries(expected).filter(([name, n]) => (counts[name] ?? 0) > n);
  if (over.length > 0) {
    return { runId, outcome: "doubled", problem: `tool runs ${JSON.stringify(counts)}` };
  }
  const short = Object.entries(expected).filter(([name, n]) => (counts[name] ?? 0) < n);
  const wrong = view.status === "done" ? check(view) : undefined;
  if (view.status !== "done" || short.length > 0 || wrong) {
    return {
      runId,
      outcome: "lost",
      problem: `${view.status}${view.error ? ` (${view.error.code}: ${view.error.message})` : ""}; tool runs ${JSON.stringify(counts)}${wrong ? `; ${wrong}` : ""}`,
    };
  }
  return { runId, outcome: "done" };
}

async function pendingOf(ctx, runId) {
  const { view, stuck } = await waitRun(ctx, runId, (v) => isPending(v) || isFinished(v));
  if (stuck || !isPending(view)) {
    return {
      fail: { runId, outcome: stuck ? "stuck" : "lost", problem: `not pending: ${view.status}` },
    };
  }
  ctx.progress.suspended += 1;
  return { view };
}

// ---------------------------------------------------------------- the shapes

const FLOWS = {
  async approval(ctx, i) {
    const runId = await startRun(ctx, {
      agent: "support",
      input: "Please refund $120 on order 42",
      threadId: `fs${ctx.tag}-${i}`,
    });
    const { view, fail } = await pendingOf(ctx, runId);
    if (fail) {
      return fail;
    }
    await vote(ctx, {
      runId,
      requestId: view.pending.id,
      decision: "approve",
      argsHash: view.pending.argsHash,
    });
    return judge(ctx, runId, { refund_order: 1 });
  },

  async subagent(ctx, i) {
    const runId = await startRun(ctx, {
      agent: "coordinator",
      input: "Refund $1200 on order 42",
      threadId: `fs${ctx.tag}-${i}`,
    });
    const { view, fail } = await pendingOf(ctx, runId);
    if (fail) {
      return fail;
    }
    const request = view.pending;
    for (const decidedBy of ["ann@example.com", "bob@example.com"]) {
      await vote(ctx, {
        runId,
        requestId: request.id,
        decision: "approve",
        decidedBy,
        argsHash: request.argsHash,
      });
    }
    return judge(ctx, runId, { lookup_order: 1, refund_order: 1 });
  },

  async "quorum-edit"(ctx, i) {
    const runId = await startRun(ctx, {
      agent: "support",
      input: "Refund order 42 for $2000",
      threadId: `fs${ctx.tag}-${i}`,
    });
    const { view, fail } = await pendingOf(ctx, runId);
    if (fail) {
      return fail;
    }
    const requestId = view.pending.id;
    const first = view.pending.argsHash;
    const base = { runId, requestId, decision: "approve" };
    await vote(ctx, { ...base, decidedBy: "ann@example.com", argsHash: first });
    await vote(ctx, {
      ...base,
      decidedBy: "bob@example.com",
      args: { orderId: "42", amount: 1500 },
      argsHash: first,
    });
    const asked = (await getRun(ctx, runId)).requests.find((r) => r.requestId === requestId);
    if (asked?.args?.amount !== 1500) {
      return {
        runId,
        outcome: "lost",
        problem: `bob's edit is not up for approval: ${JSON.stringify(asked?.args)}`,
      };
    }
    await vote(ctx, { ...base, decidedBy: "ann@example.com", argsHash: asked.argsHash });
    return judge(ctx, runId, { refund_order: 1 }, (done) => {
      const refund = done.toolCalls.find((c) => c.name === "refund_order");
      return refund?.args?.amount === 1500 ? undefined : `refunded ${JSON.stringify(refund?.args)}`;
    });
  },

  async chat(ctx, i) {
    const id = `fs${ctx.tag}-${i}`;
    const user = {
      id: `u_${id}`,
      role: "user",
      parts: [{ type: "text", text: "refund $120 on order 42" }],
    };
    const post = (messages) =>
      http(ctx, "POST", "/v1/chat/support", {
        headers: jsonHeaders(ctx),
        body: JSON.stringify({ id, messages }),
      });
    // The first leg: the stream to its halt; after a cut, the resumable stream of the run.
    const first = await repeat(ctx, async (attempt) => {
      let r = await (attempt === 0
        ? post([user])
        : http(ctx, "GET", `/v1/chat/support/${id}/stream`, { headers: api(ctx) }));
      if (attempt > 0 && r.status === 204) {
        r = await post([user]); // nothing runs: the first POST never reached the thread
      }
      const frames = chunks(r.text);
      const request = frames.find((f) => f.type === "tool-approval-request");
      if (r.status !== 200 || !request) {
        throw new Cut(`chat first leg: ${r.status} ${r.text.slice(0, 200)}`);
      }
      return { frames, request };
    });
    const start = first.frames.find((f) => f.type === "start");
    const input = first.frames.find(
      (f) => f.type === "tool-input-available" && f.toolCallId === first.request.toolCallId,
    );
    const runId = start.messageId.replace(/^a-/, "");
    ctx.progress.started += 1;
    ctx.progress.suspended += 1;
    const assistant = {
      id: start.messageId,
      role: "assistant",
      parts: [
        {
          type: `tool-${input.toolName}`,
          toolCallId: input.toolCallId,
          state: "approval-responded",
          input: input.input,
          approval: {
            id: first.request.approvalId,
            descriptor: first.request.approvalDescriptor,
            approved: true,
          },
        },
      ],
    };
    await repeat(ctx, async (attempt) => {
      if (attempt > 0 && (await getRun(ctx, runId)).decisions.length > 0) {
        return; // the cut answer was recorded
      }
      const r = await post([user, assistant]);
      if (r.status !== 200) {
        throw new Error(`chat answer: ${r.status} ${r.text.slice(0, 200)}`);
      }
    });
    return judge(ctx, runId, { refund_order: 1 });
  },

  async "ag-ui"(ctx, i) {
    const threadId = `fs${ctx.tag}-${i}`;
    const messages = [{ id: `u_${threadId}`, role: "user", content: "refund $120 on order 42" }];
    const post = (extra) =>
      http(ctx, "POST", "/v1/ag-ui/support", {
        headers: jsonHeaders(ctx),
        body: JSON.stringify({ threadId, runId: `r_${threadId}`, messages, ...extra }),
      });
    // The same input again replays its run: safe to repeat after a cut.
    const interrupt = await repeat(ctx, async () => {
      const end = chunks((await post({})).text).at(-1);
      const found = end?.type === "RUN_FINISHED" && end.outcome?.interrupts?.[0];
      if (!found) {
        throw new Cut(`ag-ui first leg ended with ${JSON.stringify(end)?.slice(0, 200)}`);
      }
      return found;
    });
    ctx.progress.started += 1;
    ctx.progress.suspended += 1;
    // An answer already recorded is a no-op: safe to repeat too.
    const resume = {
      resume: [
        {
          interruptId: interrupt.id,
          status: "resolved",
          payload: { approved: true, argsHash: interrupt.metadata.argsHash },
        },
      ],
    };
    await repeat(ctx, async () => {
      const r = await post(resume);
      if (r.status !== 200 && r.status !== 409) {
        throw new Error(`ag-ui resume: ${r.status} ${r.text.slice(0, 200)}`);
      }
    });
    // The run's own record: the same input replays the finished run in one piece.
    const deadline = Date.now() + ctx.settleMs;
    for (;;) {
      const frames = await repeat(ctx, async () => chunks((await post({})).text));
      const end = frames.at(-1);
      if (end?.type === "RUN_FINISHED" && !end.outcome?.interrupts) {
        const refunds = new Set(
          frames
            .filter((f) => f.toolCallName === "refund_order" && f.toolCallId)
            .map((f) => f.toolCallId),
        );
        const results = frames.filter(
          (f) => f.type === "TOOL_CALL_RESULT" && refunds.has(f.toolCallId),
        ).length;
        if (results > 1) {
          return { outcome: "doubled", problem: `${results} tool results` };
        }
        return end.outcome && end.outcome.type !== "success"
          ? { outcome: "lost", problem: `finished ${JSON.stringify(end.outcome)}` }
          : results === 1
            ? { outcome: "done" }
            : { outcome: "lost", problem: "the refund never ran" };
      }
      if (end?.type === "RUN_ERROR") {
        return { outcome: "lost", problem: `RUN_ERROR ${JSON.stringify(end)}` };
      }
      if (Date.now() > deadline) {
        return { outcome: "stuck", problem: `last frame ${JSON.stringify(end)?.slice(0, 200)}` };
      }
      await sleep(500);
    }
  },

  async a2a(ctx, i) {
    const caller = { "x-toolnexus-user": `fs-${i}@example.com` };
    const rpc = async (method, params) => {
      const r = await http(ctx, "POST", "/a2a", {
        headers: jsonHeaders(ctx, caller),
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      });
      if (r.status !== 200) {
        throw new Error(`a2a ${method}: ${r.status} ${r.text.slice(0, 200)}`);
      }
      return r.json;
    };
    const message = (parts, extra = {}) => ({
      message: {
        kind: "message",
        role: "user",
        messageId: randomBytes(8).toString("hex"),
        parts,
        ...extra,
      },
      configuration: { blocking: false },
    });
    // A send cut before its answer leaves a task the client never heard of; it sends again
    // (a new task): the one it knows is the one judged.
    const task = await repeat(ctx, async () => {
      const sent = await rpc(
        "message/send",
        message([{ kind: "text", text: "refund $80 on order 42" }], {
          metadata: { skill: "support" },
        }),
      );
      if (!sent.result?.id) {
        throw new Error(`a2a send: ${JSON.stringify(sent).slice(0, 300)}`);
      }
      return sent.result;
    });
    const runId = task.id;
    ctx.progress.started += 1;
    const { view, fail } = await pendingOf(ctx, runId);
    if (fail) {
      return fail;
    }
    await repeat(ctx, async (attempt) => {
      if (attempt > 0 && (await getRun(ctx, runId)).decisions.length > 0) {
        return;
      }
      const answered = await rpc(
        "message/send",
        message([{ kind: "data", data: { requestId: view.pending.id, decision: "approve" } }], {
          taskId: runId,
        }),
      );
      if (answered.error) {
        throw new Error(`a2a answer: ${JSON.stringify(answered.error)}`);
      }
    });
    return judge(ctx, runId, { refund_order: 1 });
  },

  async oauth(ctx, i) {
    const subject = `fs${ctx.tag}-${i}@example.com`; // a new person: a real sign-in every time
    const runId = await startRun(ctx, {
      agent: "docs",
      input: "who am I to the docs server?",
      requestedBy: subject,
      threadId: `fs${ctx.tag}-${i}`,
    });
    const { view, fail } = await pendingOf(ctx, runId);
    if (fail) {
      return fail;
    }
    if (view.pending.kind !== "authorization") {
      return { runId, outcome: "lost", problem: `pending ${view.pending.kind}, not a sign-in` };
    }
    await ready(ctx);
    // The browser: the sign-in link (binds it), the authorization server's consent, the
    // callback, which redeems the code. Cut by a kill (mid-exchange too: the code may be used
    // up), or told the sign-in did not complete, the browser opens the link again: a new code.
    await repeat(ctx, async (attempt) => {
      if (attempt > 0 && !isPending(await getRun(ctx, runId))) {
        return; // the cut callback was taken
      }
      const link = new URL(view.pending.url);
      const start = await http(ctx, "GET", `${link.pathname}${link.search}`);
      const cookie = (start.headers.get("set-cookie") ?? "").split(";")[0];
      const location = start.headers.get("location");
      if (start.status !== 302 || !location) {
        throw new Error(`sign-in link: ${start.status} ${start.text.slice(0, 200)}`);
      }
      const landing = new URL(await ctx.consent(location));
      const page = await http(ctx, "GET", `${landing.pathname}${landing.search}`, {
        headers: { cookie },
      });
      if (page.status === 400 && /open the sign-in link again/.test(page.text)) {
        ctx.signInsRedone += 1;
        throw new Cut(`callback: ${page.status} sign-in not redeemed`);
      }
      if (page.status !== 200 && page.status !== 409) {
        throw new Error(`callback: ${page.status} ${page.text.slice(0, 200)}`);
      }
    });
    return judge(ctx, runId, { docs_whoami: 1 });
  },
};

/** The JSON of every `data:` line of an SSE body (chat chunks, AG-UI events). */
function chunks(text) {
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => line.slice(6))
    .filter((data) => data && data !== "[DONE]")
    .flatMap((data) => {
      try {
        return [JSON.parse(data)];
      } catch {
        return [];
      }
    });
}
