// The run timeline (issue 29): the waterfall from a run's view and events, its escaping,
// its CSP, the signed 24 h view link, and the routes' sub-app with injected dependencies.
import { describe, expect, it } from "vitest";
import type { MiddlewareHandler } from "hono";
import { Hono } from "hono";
import type { RunView } from "../../src/edge/protocol";
import { buildTimeline, type TimelineInput } from "../../src/edge/timeline/model";
import { renderTimelinePage, timelineHeaders } from "../../src/edge/timeline/render";
import {
  createRunViewToken,
  RUN_VIEW_TTL_SECONDS,
  verifyRunViewToken,
} from "../../src/edge/timeline/view-token";
import { createApproverToken } from "../../src/edge/approvals/approver-link";
import { timelineRoutes } from "../../src/edge/timeline/routes";
import { errorHandler } from "../../src/edge/http/errors";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const OTHER = "whsec_bm90aWZ5LW9ubHkgdGVzdCBrZXksIG5vdCBmb3IgZGVjaXNpb25z";
const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const iso = (ms: number) => new Date(T0 + ms).toISOString();
const XSS = `<script>alert(1)</script>"><img src=x onerror=alert(2)>`;

function run(overrides: Partial<RunView> = {}): RunView {
  return {
    runId: "th_a.run_b",
    threadId: "th_a",
    agent: "support",
    status: "done",
    input: "Refund order 42",
    pending: null,
    expiresAt: null,
    text: "Refunded.",
    usage: { promptTokens: 30, completionTokens: 8, totalTokens: 38 },
    turns: 2,
    model: "m",
    toolCalls: [],
    toolCallCount: 1,
    decisions: [
      {
        requestId: "apr_c1",
        decision: "approve",
        answer: { id: "apr_c1", ok: true },
        channel: "inbox",
        decidedBy: "bob",
        webhookId: null,
        decidedAt: iso(3_600_000),
        appliedAt: iso(3_600_500),
      },
    ],
    requests: [
      {
        requestId: "apr_c1",
        rules: { group: "finance", quorum: 2 },
        approvals: 2,
        needed: 2,
        args: { orderId: "42", amount: 90 },
        argsHash: "h",
        votes: [
          { decidedBy: "ann", decision: "approve", channel: "page", at: iso(600_000), reset: true },
          {
            decidedBy: "carol",
            decision: "approve",
            channel: "slack",
            args: { amount: 90 },
            at: iso(1_200_000),
          },
          { decidedBy: "bob", decision: "approve", channel: "inbox", at: iso(3_600_000) },
        ],
        refused: [],
        reminders: 1,
        escalatedAt: iso(1_800_000),
      },
    ],
    requestedBy: null,
    agentVersion: null,
    receiptCount: 1,
    error: null,
    limit: null,
    metadata: null,
    createdAt: iso(0),
    updatedAt: iso(3_602_000),
    cancelledAt: null,
    ...overrides,
  };
}

function input(
  args: unknown = { orderId: "42", amount: 120 },
  output = "refunded 42",
): TimelineInput {
  const request = {
    id: "apr_c1",
    kind: "approval",
    prompt: "Refund $120 on order 42?",
    data: { tool: "refund", args, approvers: { group: "finance", quorum: 2 } },
  };
  let id = 0;
  const e = (type: string, at: number, data: unknown) => ({ id: ++id, type, data, at: T0 + at });
  return {
    run: run(),
    now: T0 + 3_602_000,
    events: [
      e("usage", 1_000, { usage: { totalTokens: 14 } }),
      e("tool_call", 1_010, { id: "c1", name: "refund", args }),
      e("pending", 1_020, { request }),
      e("reminded", 900_000, { requestId: "apr_c1", n: 1 }),
      e("escalated", 1_800_000, { requestId: "apr_c1", to: "managers" }),
      e("resumed", 3_600_500, { requestId: "apr_c1" }),
      e("tool_result", 3_600_600, { id: "c1", name: "refund", output, isError: false }),
      e("text", 3_601_000, { delta: "Refunded." }),
      e("usage", 3_601_500, { usage: { totalTokens: 24 } }),
      e("done", 3_602_000, { status: "done" }),
    ],
  };
}

describe("run timeline", () => {
  it("lays out model calls, the tool call and the request on one scale", () => {
    const timeline = buildTimeline(input());
    expect(timeline.rows.map((r) => r.kind)).toEqual(["model", "tool", "request", "model"]);
    const request = timeline.rows.find((r) => r.kind === "request");
    if (request?.kind !== "request") {
      throw new Error("no request row");
    }
    expect(request.asked).toEqual(["finance", "managers"]);
    expect(request.marks.map((m) => m.label)).toEqual(["reminder 1", "escalated to managers"]);
    expect(request.votes.map((v) => [v.by, v.reset])).toEqual([
      ["ann", true],
      ["carol", false],
      ["bob", false],
    ]);
    expect(request.decision).toMatchObject({ decision: "approve", by: "bob", channel: "inbox" });
    expect(request.end - request.start).toBe(3_600_000 - 1_020);
    const tool = timeline.rows.find((r) => r.kind === "tool");
    expect(tool).toMatchObject({ open: false, output: "refunded 42" });
  });

  it("marks each poll of a remote task (task_polled) on the waiting request's bar", () => {
    const base = input();
    let id = 100;
    const e = (type: string, at: number, data: unknown) => ({ id: ++id, type, data, at: T0 + at });
    const events = [
      ...base.events.slice(0, 3),
      e("task_polled", 5_000, { requestId: "apr_c1", taskId: "job-1", state: "working" }),
      e("task_polled", 9_000, { requestId: "apr_c1", taskId: "job-1", state: "completed" }),
      ...base.events.slice(3),
    ];
    const timeline = buildTimeline({ ...base, events });
    const request = timeline.rows.find((r) => r.kind === "request");
    if (request?.kind !== "request") {
      throw new Error("no request row");
    }
    expect(request.marks.map((m) => m.label)).toEqual([
      "task working",
      "task completed",
      "reminder 1",
      "escalated to managers",
    ]);
  });

  it("finds the model calls in the edge's log, which has no usage events", () => {
    const request = { id: "apr_c1", kind: "approval", prompt: "Refund?", data: {} };
    let id = 0;
    const e = (type: string, at: number, data: unknown) => ({ id: ++id, type, data, at: T0 + at });
    const halted = [
      e("tool_call", 1_000, { id: "c1", name: "lookup", args: {} }),
      e("tool_call", 1_000, { id: "c2", name: "refund", args: {} }),
      e("pending", 1_010, { request, id: "c2" }),
      e("tool_result", 1_020, { id: "c1", name: "lookup", output: "ok", isError: false }),
    ];
    const waiting = buildTimeline({
      run: run({ status: "pending", decisions: [] }),
      events: halted,
      now: T0 + 600_000,
    });
    // The first call ends at its tool calls; no model call runs while the request waits.
    expect(waiting.rows.map((r) => [r.kind, r.start - T0, r.end - T0])).toEqual([
      ["model", 0, 1_000],
      ["tool", 1_000, 1_020],
      ["tool", 1_000, 1_000],
      ["request", 1_010, 600_000],
    ]);
    expect(waiting.rows[2]).toMatchObject({ open: true, waiting: true });
    expect(renderTimelinePage({ run: run(), timeline: waiting, nonce: "n" })).toContain(
      "(not run: waits for a decision)",
    );

    const finished = buildTimeline({
      run: run(),
      events: [
        ...halted,
        e("resumed", 3_600_500, { requestId: "apr_c1", decision: "approve", channel: "inbox" }),
        e("tool_result", 3_600_600, { id: "c2", name: "refund", output: "done", isError: false }),
        e("text", 3_601_000, { delta: "Refunded." }),
        e("done", 3_602_000, { status: "done" }),
      ],
      now: T0 + 3_700_000,
    });
    // The suspended call ran after the decision; the answer is the second model call.
    expect(finished.rows.map((r) => [r.kind, r.start - T0, r.end - T0])).toEqual([
      ["model", 0, 1_000],
      ["tool", 1_000, 1_020],
      ["tool", 3_600_500, 3_600_600],
      ["request", 1_010, 3_600_000],
      ["model", 3_600_600, 3_602_000],
    ]);
    expect(finished.rows[4]).toMatchObject({ open: false, text: "Refunded." });
  });

  it("a finished run keeps its scale when the page is looked at a day later", () => {
    const later = buildTimeline({ ...input(), now: T0 + 3_602_000 + 86_400_000 });
    expect(later.end).toBe(T0 + 3_602_000);
    const waiting = buildTimeline({
      run: run({ status: "pending", decisions: [] }),
      events: input().events.slice(0, 3),
      now: T0 + 86_400_000,
    });
    expect(waiting.end).toBe(T0 + 86_400_000); // still waiting: up to now
  });

  it("marks an undo: who asked and why, each compensation, the run compensated (issue 44)", () => {
    const base = input();
    const at = (ms: number) => T0 + 3_602_000 + ms;
    const timeline = buildTimeline({
      ...base,
      run: run({ status: "compensated" }),
      events: [
        ...base.events,
        { id: 100, type: "undo", data: { reason: "wrong order", requestedBy: "ann" }, at: at(10) },
        { id: 101, type: "compensation", data: { tool: "refund", status: "ran" }, at: at(20) },
        { id: 102, type: "compensated", data: { reason: "wrong order" }, at: at(30) },
      ],
    });
    expect(timeline.marks.map((m) => m.label).slice(-4)).toEqual([
      "done",
      "undo asked by ann: wrong order",
      "compensation of refund: ran",
      "compensated",
    ]);
    expect(timeline.end).toBe(at(30));
  });

  it("a running run's model call is open to the render time", () => {
    const timeline = buildTimeline({
      run: run({ status: "running", decisions: [] }),
      events: [{ id: 1, type: "text", data: { delta: "Thin" }, at: T0 + 500 }],
      now: T0 + 2_000,
    });
    expect(timeline.rows).toEqual([
      { kind: "model", start: T0, end: T0 + 2_000, open: true, text: "Thin" },
    ]);
  });

  it("shows an edit's arguments on its vote", () => {
    const html = renderTimelinePage({ run: run(), timeline: buildTimeline(input()), nonce: "n" });
    expect(html).toContain(
      'carol: approve via slack at +20 min 0 s, edited the arguments to <code class="edit">{&quot;amount&quot;:90}</code>',
    );
  });
  it("renders the waterfall: bars to scale, details collapsed, votes and decision", () => {
    const nonce = "n0nce";
    const html = renderTimelinePage({
      run: run(),
      timeline: buildTimeline(input()),
      nonce,
      eventsPath: "/inbox/runs/th_a.run_b/events",
    });
    expect(html).toContain('data-events="/inbox/runs/th_a.run_b/events"');
    // The request bar starts near 0 % and spans almost the whole hour.
    expect(html).toMatch(/<li class="row request">[\s\S]*?style="left:0.03%;width:99\.9\d%"/);
    expect(html).toContain("Asked finance, managers");
    expect(html).toContain("ann: approve via page");
    expect(html).toContain("(reset by a later edit)");
    expect(html).toContain("Decided: <strong>approve</strong> by bob via inbox");
    expect(html).not.toContain("<details open");
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toContain(`<script nonce="${nonce}">`);
    expect(html).not.toMatch(/(src|href)=["']?https?:/); // nothing from a CDN
  });

  it("stored XSS through tool arguments and results shows as text", () => {
    const html = renderTimelinePage({
      run: run({ input: XSS, text: XSS }),
      timeline: buildTimeline(input({ note: XSS }, XSS)),
      nonce: "n",
    });
    expect(html).not.toContain("<img");
    expect(html.match(/<script/g)).toHaveLength(1); // only ours
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("&lt;img src=x onerror=alert(2)&gt;");
  });

  it("the CSP allows this page's nonce'd script and same-origin connections, nothing wider", () => {
    const csp = timelineHeaders("abc")["Content-Security-Policy"];
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'nonce-abc'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:|\*|unsafe-eval/);
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
  });
});

describe("run view links", () => {
  it("round-trips for 24 h, then expires", async () => {
    const now = T0;
    const { token, expiresAt } = await createRunViewToken(
      [SECRET],
      { threadId: "th_a", runId: "th_a.run_b" },
      now,
    );
    expect(expiresAt).toBe(new Date(now + RUN_VIEW_TTL_SECONDS * 1000).toISOString());
    await expect(verifyRunViewToken([SECRET], token, now + 23 * 3_600_000)).resolves.toMatchObject({
      runId: "th_a.run_b",
      threadId: "th_a",
    });
    await expect(verifyRunViewToken([SECRET], token, now + 24 * 3_600_000)).rejects.toMatchObject({
      code: "expired",
    });
  });

  it("refuses a tampered token, another purpose's token and an unknown key; accepts a rotated one", async () => {
    const { token } = await createRunViewToken(
      [SECRET],
      { threadId: "th_a", runId: "th_a.run_b" },
      T0,
    );
    const [payload, mac] = token.slice(2).split(".") as [string, string];
    const forged = btoa(JSON.stringify({ threadId: "th_a", runId: "th_a.run_OTHER", exp: 9e9 }))
      .replaceAll("=", "")
      .replaceAll("+", "-")
      .replaceAll("/", "_");
    await expect(verifyRunViewToken([SECRET], `v.${forged}.${mac}`, T0)).rejects.toMatchObject({
      code: "tampered",
    });
    await expect(verifyRunViewToken([SECRET], `v.${payload}`, T0)).rejects.toMatchObject({
      code: "malformed",
    });
    const approver = await createApproverToken([SECRET], {
      threadId: "th_a",
      runId: "th_a.run_b",
      requestId: "r",
      approver: "ann",
      exp: 9e9,
    });
    await expect(verifyRunViewToken([SECRET], `v.${approver.slice(2)}`, T0)).rejects.toMatchObject({
      code: "tampered",
    });
    await expect(verifyRunViewToken([OTHER], token, T0)).rejects.toMatchObject({
      code: "tampered",
    });
    await expect(verifyRunViewToken([OTHER, SECRET], token, T0)).resolves.toBeTruthy();
  });
});

describe("timeline routes (sub-app, injected dependencies)", () => {
  const apiAuth: MiddlewareHandler = async (c, next) => {
    if (c.req.header("authorization") !== "Bearer t") {
      return c.json(
        { error: { code: "unauthorized", message: "missing or invalid bearer token" } },
        401,
      );
    }
    await next();
  };
  const app = (member?: { member: string; groups: string[] }) =>
    new Hono()
      .route(
        "/",
        timelineRoutes({
          load: async (_c, runId) => (runId === "th_a.run_b" ? input() : undefined),
          signedIn: async () => member,
          signInPage: (c) => c.html("<p>sign in</p>", 401),
          apiAuth,
          webhookSecrets: () => [SECRET],
          publicBase: () => "https://edge.example",
          eventsPath: (_c, via) => ("runId" in via ? `/inbox/runs/${via.runId}/events` : undefined),
        }),
      )
      .onError(errorHandler(() => undefined));

  it("POST view-link needs the API token; mints a URL that renders; a tampered one is 410", async () => {
    expect((await app().request("/v1/runs/th_a.run_b/view-link", { method: "POST" })).status).toBe(
      401,
    );
    const unknown = await app().request("/v1/runs/th_a.run_x/view-link", {
      method: "POST",
      headers: { authorization: "Bearer t" },
    });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe(
      "run_not_found",
    );
    const created = await app().request("/v1/runs/th_a.run_b/view-link", {
      method: "POST",
      headers: { authorization: "Bearer t" },
    });
    expect(created.status).toBe(201);
    const { url, expiresAt } = (await created.json()) as { url: string; expiresAt: string };
    expect(url).toMatch(/^https:\/\/edge\.example\/runs\/view\/v\./);
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    const path = new URL(url).pathname;
    const page = await app().request(path);
    expect(page.status).toBe(200);
    const nonce = /script-src 'nonce-([^']+)'/.exec(
      page.headers.get("content-security-policy") ?? "",
    )?.[1];
    expect(nonce).toBeTruthy();
    expect(await page.text()).toContain(`<script nonce="${nonce}">`);
    expect((await app().request(`${path.slice(0, -3)}AAA`)).status).toBe(410);
  });

  it("/inbox/runs/:runId: sign-in without a session, 404 outside the run's groups, the page inside", async () => {
    expect(await (await app().request("/inbox/runs/th_a.run_b")).text()).toContain("sign in");
    expect(
      (await app({ member: "lead", groups: ["support-leads"] }).request("/inbox/runs/th_a.run_b"))
        .status,
    ).toBe(404);
    expect(
      (await app({ member: "ann", groups: ["finance"] }).request("/inbox/runs/th_a.run_x")).status,
    ).toBe(404);
    // The escalation's group may look too.
    expect(
      (await app({ member: "max", groups: ["managers"] }).request("/inbox/runs/th_a.run_b")).status,
    ).toBe(200);
    const ok = await app({ member: "ann", groups: ["finance"] }).request("/inbox/runs/th_a.run_b");
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('data-events="/inbox/runs/th_a.run_b/events"');
  });
});
