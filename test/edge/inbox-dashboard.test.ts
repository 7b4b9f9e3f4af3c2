// /inbox/dashboard (issue 42 §5): the picture of a member's groups drawn as inline SVG on
// the server, from the inbox projection alone; policy auto-decisions reach the projection.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import type { InboxRpc } from "../../src/edge/inbox/rpc";
import type { InboxDecision, InboxItem } from "../../src/edge/inbox/item";
import { percentile, windowStats, type DecidedRow } from "../../src/edge/inbox/dashboard/stats";
import { duration } from "../../src/edge/inbox/dashboard/page";
import { inboxCookie, inboxGet } from "../helpers/inbox-signin";
import { api } from "../helpers/edge";
import { finishedRun } from "../helpers/http";
import { until } from "../helpers/durable";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

const inbox = (group: string) =>
  env.INBOXES.get(env.INBOXES.idFromName(group)) as unknown as InboxRpc;

function item(
  id: string,
  surfacedAgo: number,
  decision?: Partial<InboxDecision> & { ago: number },
): InboxItem {
  const now = Date.now();
  const surfacedAt = new Date(now - surfacedAgo).toISOString();
  return {
    requestId: id,
    runId: `th_d.run_${id}`,
    threadId: "th_d",
    agent: "support",
    input: "in",
    requestedBy: null,
    tool: "refund",
    args: {},
    argsHash: "h",
    editedBy: null,
    metadata: null,
    prompt: `prompt ${id}`,
    kind: "approval",
    expiresAt: null,
    groups: ["managers"],
    status: decision ? "decided" : "open",
    event: decision ? "decided" : "surfaced",
    votes: [],
    needed: null,
    decision: decision
      ? {
          outcome: decision.outcome ?? "approved",
          decidedBy: decision.decidedBy === undefined ? "max" : decision.decidedBy,
          channel: decision.channel ?? "inbox",
          decidedAt: new Date(now - decision.ago).toISOString(),
          reason: null,
        }
      : null,
    surfacedAt,
    updatedAt: surfacedAt,
    version: 1,
  };
}

describe("GET /inbox/dashboard", () => {
  it("is for signed-in members only, and takes no parameters", async () => {
    const anonymous = await inboxGet("/inbox/dashboard", "");
    expect(anonymous.status).toBe(401);
    const cookie = await inboxCookie("max@example.com");
    expect((await inboxGet("/inbox/dashboard?days=9", cookie)).status).toBe(400);
  });

  it("draws pending per group and by age, time to decision, approvers, expiries and policy as inline SVG", async () => {
    await inbox("managers").apply([
      item("o1", 30 * MIN),
      item("o2", 2 * HOUR),
      item("o3", 3 * DAY),
      // Decided by people in the last 7 days after 10 and 30 minutes; 20 days ago after 5 h.
      item("d1", 1 * DAY + 10 * MIN, { ago: 1 * DAY, decidedBy: "max" }),
      item("d2", 2 * DAY + 30 * MIN, {
        ago: 2 * DAY,
        decidedBy: "max",
        outcome: "declined",
        channel: "slack",
      }),
      item("d3", 20 * DAY + 5 * HOUR, { ago: 20 * DAY, decidedBy: "ann" }),
      // Older than 30 days: in no window.
      item("d4", 40 * DAY, { ago: 39 * DAY, decidedBy: "old" }),
      // No person: an expiry and a policy decision; a cancelled run.
      item("x1", 3 * DAY, { ago: 2 * DAY, outcome: "expired", channel: "expiry", decidedBy: null }),
      item("p1", 1 * HOUR, {
        ago: 1 * HOUR,
        outcome: "declined",
        channel: "policy",
        decidedBy: "policy",
      }),
      item("c1", 1 * HOUR, {
        ago: 1 * HOUR,
        outcome: "cancelled",
        channel: "run",
        decidedBy: null,
      }),
    ]);
    const cookie = await inboxCookie("max@example.com");
    const response = await inboxGet("/inbox/dashboard", cookie);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
    const html = await response.text();
    expect(html).toContain("<svg");
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    for (const id of [
      "pending-groups",
      "pending-age",
      "decision-time-7d",
      "decision-time-30d",
      "approvers-30d",
      "expired-policy",
    ]) {
      expect(html, id).toContain(`<svg id="${id}"`);
    }
    const row = /<tr data-group="managers">(.*?)<\/tr>/.exec(html)?.[1] ?? "";
    const cells = [...row.matchAll(/<td class="n">([^<]*)<\/td>/g)].map((m) => m[1]);
    // Pending; then 7 days: decided, p50, p90, expired, policy; then 30 days.
    expect(cells).toEqual([
      "3",
      "2",
      "10 min",
      "30 min",
      "1",
      "1",
      "3",
      "30 min",
      "5.0 h",
      "1",
      "1",
    ]);
    // By age: under 1 h, 1–4 h, 4–24 h, 1–7 days, over 7 days.
    expect(html).toMatch(
      /<title>under 1 h: 1<\/title>[\s\S]*<title>1–4 h: 1<\/title>[\s\S]*<title>4–24 h: 0<\/title>[\s\S]*<title>1–7 days: 1<\/title>/,
    );
    expect(html).toContain("<title>max: 2</title>");
    expect(html).toContain("<title>ann: 1</title>");
    expect(html).not.toContain("<title>old:");
    expect(html).toContain("<title>managers policy: 1</title>");
  });

  it("a policy's automatic decision reaches the group's inbox as decided by policy", async () => {
    const { runId, run } = await finishedRun("Refund order 42 for $50000");
    expect(run.status).toBe("done");
    const decided = await until(async () => {
      const response = await api("/v1/approvals?group=finance&status=decided");
      const page = await response.json<{ items: InboxItem[] }>();
      return page.items.find((i) => i.runId === runId);
    }, "the policy decision in the finance inbox");
    expect(decided.decision).toMatchObject({
      outcome: "declined",
      channel: "policy",
      decidedBy: "policy",
    });
    const html = await (
      await inboxGet("/inbox/dashboard", await inboxCookie("ann@example.com"))
    ).text();
    expect(html).toContain("<title>finance policy: 1</title>");
  });
});

describe("dashboard numbers", () => {
  it("percentiles are nearest-rank; only people's approvals and declines count as decisions", () => {
    expect(percentile([], 0.5)).toBeNull();
    expect(percentile([1], 0.9)).toBe(1);
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9)).toBe(9);
    const now = 100 * DAY;
    const row = (extra: Partial<DecidedRow>): DecidedRow => ({
      outcome: "approved",
      channel: "inbox",
      decidedBy: "a",
      decidedAt: now - DAY,
      surfaced: now - DAY - MIN,
      ...extra,
    });
    const stats = windowStats(
      [
        row({}),
        row({ channel: "policy", decidedBy: "policy" }),
        row({ outcome: "expired", channel: "expiry", decidedBy: null }),
        row({ outcome: "cancelled", channel: "run", decidedBy: null }),
        row({ decidedAt: now - 8 * DAY }),
      ],
      7,
      now,
    );
    expect(stats).toEqual({
      days: 7,
      decided: 1,
      p50Ms: MIN,
      p90Ms: MIN,
      expired: 1,
      policy: 1,
      byApprover: [{ decidedBy: "a", n: 1 }],
    });
    expect([
      duration(45_000),
      duration(12 * MIN),
      duration(3.5 * HOUR),
      duration(2.1 * DAY),
    ]).toEqual(["45 s", "12 min", "3.5 h", "2.1 d"]);
  });
});
