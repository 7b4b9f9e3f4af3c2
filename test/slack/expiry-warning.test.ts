// Issue 42 item 3 in Slack: when a request's warnBefore passes (the demo's delete_account warns
// 10 minutes before its expiry), its group's message is updated to say it expires soon — once.
import { beforeEach, describe, expect, it } from "vitest";
import { inThread, sqlIn, startPending, until } from "../helpers/durable";
import { resetSlack, slackCalls } from "../helpers/slack";

describe("Slack and warnBefore", () => {
  beforeEach(resetSlack);

  it("the request's message is updated to say it expires soon", async () => {
    const { runId, threadId, request } = await startPending("Please delete my account");
    await until(async () => {
      const calls = await slackCalls("chat.postMessage");
      return calls.some((c) => !c.failed && JSON.stringify(c.params.blocks).includes(request.id));
    }, "the posted message");
    expect(JSON.stringify(await slackCalls("chat.update"))).not.toContain("Expires soon");

    await sqlIn(
      threadId,
      "UPDATE expiry_warnings SET warn_at = ? WHERE request_id = ?",
      Date.now() - 1,
      request.id,
    );
    await inThread(threadId, (instance) => instance.alarm());
    const updated = await until(async () => {
      const calls = await slackCalls("chat.update");
      return calls.find((c) => JSON.stringify(c.params.blocks).includes("Expires soon"));
    }, "the message updated with the warning");
    expect(JSON.stringify(updated.params.blocks)).toContain(runId);
    // The alarm again: the warning is not repeated (no second update with the warning as news).
    await inThread(threadId, (instance) => instance.alarm());
    const rows = await sqlIn(
      threadId,
      "SELECT warned_at, sent FROM expiry_warnings WHERE request_id = ?",
      request.id,
    );
    expect(rows).toEqual([{ warned_at: expect.any(Number), sent: 0 }]);
  });
});
