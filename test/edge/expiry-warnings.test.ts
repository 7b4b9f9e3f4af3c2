/**
 * Issue 42 item 3: warnBefore. The demo's delete_account rule (support-leads, expires in 2 h,
 * warnBefore 10m) warns its groups once, at expiresAt - 10 min: the SSE event `expiring`, the
 * inbox item's `expiring` badge (which the Slack message follows) and the `request.expiring`
 * webhook through the notify queue — exactly once, across a restart and a second alarm.
 * Times are moved in storage, never waited for.
 */
import { describe, expect, it } from "vitest";
import { abortAllDurableObjects, env, runDurableObjectAlarm, SELF } from "cloudflare:test";
import { api, BASE, getRun, signedDecision, waitForStatus } from "../helpers/edge";
import { eventsOf, inThread, sqlIn, startPending, threadStub, until } from "../helpers/durable";
import { readConfig, type EdgeEnv } from "../../src/edge/settings";
import { buildNotification, notificationId } from "../../src/edge/notify/notification";
import { approvalMessage } from "../../src/edge/slack/blocks";
import { slackState } from "../../src/edge/slack/sync";
import type { InboxItem } from "../../src/edge/inbox/item";

const DELETE = "Please delete my account";

const warning = async (threadId: string, requestId: string) =>
  (
    await sqlIn(
      threadId,
      "SELECT warn_at, warned_at, send_due, sent FROM expiry_warnings WHERE request_id = ?",
      requestId,
    )
  )[0];

async function leadsItem(requestId: string, status = "open"): Promise<InboxItem | undefined> {
  const response = await api(`/v1/approvals?group=support-leads&status=${status}&limit=200`);
  const { items } = await response.json<{ items: InboxItem[] }>();
  return items.find((i) => i.requestId === requestId);
}

const expiringEvents = async (runId: string) =>
  (await eventsOf(runId)).filter((e) => e.type === "expiring");

describe("warnBefore", { timeout: 30_000 }, () => {
  it("arms at expiresAt - warnBefore and warns once: across a restart, and when the alarm runs twice", async () => {
    const { runId, threadId, request } = await startPending(DELETE, {
      callbackUrl: `http://127.0.0.1:9/hooks/${crypto.randomUUID()}`,
    });
    const run = await getRun(runId);
    const armed = await warning(threadId, request.id);
    expect(Number(armed?.warn_at)).toBe(Date.parse(run.expiresAt ?? "") - 10 * 60_000);
    expect(armed).toMatchObject({ warned_at: null, sent: 0 });
    expect(await expiringEvents(runId)).toEqual([]);

    // A restart between arming and firing: the object is built afresh from storage.
    await abortAllDurableObjects();
    await sqlIn(
      threadId,
      "UPDATE expiry_warnings SET warn_at = ? WHERE request_id = ?",
      Date.now() - 1,
      request.id,
    );
    // The object's own alarm (armed since the request surfaced), run now by a fresh object.
    expect(await runDurableObjectAlarm(threadStub(threadId))).toBe(true);

    const events = await expiringEvents(runId);
    expect(events.map((e) => e.data)).toEqual([
      { requestId: request.id, expiresAt: run.expiresAt },
    ]);
    expect(await warning(threadId, request.id)).toMatchObject({
      warned_at: expect.any(Number),
      send_due: null,
      sent: 1,
    });
    const item = await until(async () => {
      const found = await leadsItem(request.id);
      return found?.expiring && found;
    }, "the expiring badge on the inbox item");
    expect(item).toMatchObject({ event: "expiring", expiring: true, status: "open" });

    // The alarm again, and once more after another restart: nothing new is sent or recorded.
    await inThread(threadId, (instance) => instance.alarm());
    await abortAllDurableObjects();
    await inThread(threadId, (instance) => instance.alarm());
    expect(await expiringEvents(runId)).toHaveLength(1);
    expect(await warning(threadId, request.id)).toMatchObject({ sent: 1 });

    // Decided: the badge goes with the open state.
    const decided = await signedDecision({
      runId,
      requestId: request.id,
      decision: "approve",
      decidedBy: "lead@example.com",
    });
    expect(decided.status).toBe(202);
    await waitForStatus(runId, ["done"]);
    const closed = await until(async () => {
      const found = await leadsItem(request.id, "decided");
      return found?.status === "decided" && found;
    }, "the decided item");
    expect(closed.expiring).toBeUndefined();
  });

  it("a request decided before its warning is never warned", async () => {
    const { runId, threadId, request } = await startPending(DELETE, {
      callbackUrl: `http://127.0.0.1:9/hooks/${crypto.randomUUID()}`,
    });
    await signedDecision({
      runId,
      requestId: request.id,
      decision: "decline",
      decidedBy: "lead@example.com",
    });
    await waitForStatus(runId, ["done"]);
    await sqlIn(
      threadId,
      "UPDATE expiry_warnings SET warn_at = ? WHERE request_id = ?",
      Date.now() - 1,
      request.id,
    );
    await inThread(threadId, (instance) => instance.alarm());
    expect(await expiringEvents(runId)).toEqual([]);
    expect(await warning(threadId, request.id)).toMatchObject({
      warned_at: expect.any(Number),
      send_due: null,
      sent: 0,
    });
  });

  it("the webhook is request.expiring under msg_<run>_<req>_warn; Slack and the inbox page say it expires soon", async () => {
    const { runId, threadId, request } = await startPending(DELETE);
    const source = {
      run: {
        runId,
        threadId,
        agent: "support",
        callbackUrl: "https://hooks.example/x",
        publicUrl: "https://edge.test",
        metadata: null,
        requestedBy: null,
      },
      request,
      expiresAt: Date.now() + 60_000,
      votes: { votes: 0, needed: 1 },
    };
    const config = readConfig(env as unknown as EdgeEnv);
    const warned = await buildNotification(source, config, { expiring: true });
    expect(warned.type).toBe("request.expiring");
    expect(notificationId(warned)).toBe(
      `msg_${runId.slice(runId.indexOf(".") + 1)}_${request.id}_warn`,
    );

    // Without a callbackUrl nothing is queued, but the groups still see the badge.
    await sqlIn(
      threadId,
      "UPDATE expiry_warnings SET warn_at = ? WHERE request_id = ?",
      Date.now() - 1,
      request.id,
    );
    await inThread(threadId, (instance) => instance.alarm());
    expect(await warning(threadId, request.id)).toMatchObject({ send_due: null, sent: 0 });
    const item = await until(async () => {
      const found = await leadsItem(request.id);
      return found?.expiring && found;
    }, "the expiring item");
    const context = approvalMessage(
      { runId, requestId: request.id, agent: "support", prompt: item.prompt, args: {} },
      slackState(item),
    ).blocks.find((b) => b.type === "context");
    expect(JSON.stringify(context)).toContain("Expires soon");

    const link = await api("/v1/approvers/links", {
      method: "POST",
      body: JSON.stringify({ approver: "lead@example.com" }),
    });
    const { url } = await link.json<{ url: string }>();
    const signin = await SELF.fetch(`${BASE}${new URL(url).pathname}`, { redirect: "manual" });
    const cookie = (signin.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const html = await (await SELF.fetch(`${BASE}/inbox`, { headers: { cookie } })).text();
    const card = html.slice(html.indexOf(`data-request="${request.id}"`));
    expect(card.slice(0, card.indexOf("</section>"))).toContain(
      '<strong class="expiring">Expires soon</strong>',
    );
  });
});
