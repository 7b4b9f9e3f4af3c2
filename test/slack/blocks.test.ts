import { describe, expect, it } from "vitest";
import {
  approvalMessage,
  declineModal,
  APPROVE_ACTION,
  DECLINE_ACTION,
  UNDO_ACTION,
} from "../../src/edge/slack/blocks";
import { slackState } from "../../src/edge/slack/sync";
import type { InboxItem } from "../../src/edge/inbox/item";

const view = {
  runId: "th_1.run_1",
  requestId: "apr_1",
  agent: "support",
  prompt: "Refund <!channel> & <@U1> $120?",
  tool: "refund_order",
  args: { note: "<b>`x`</b>", amount: 120 },
  requestedBy: "carol@example.com",
  expiresAt: Date.UTC(2026, 10, 30, 20, 0, 0),
};

describe("Block Kit approval message", () => {
  it("shows prompt, tool, args, who asked and expiry, with Approve and Decline while open", () => {
    const message = approvalMessage(view, { status: "open" });
    const json = JSON.stringify(message.blocks);
    expect(message.blocks[1]).toEqual({
      type: "section",
      text: { type: "plain_text", text: view.prompt },
    });
    expect(json).toContain("refund_order");
    expect(json).toContain("carol@example.com");
    expect(json).toContain("<!date^1796068800^{date_short_pretty} {time}|2026-11-30T20:00:00Z>");
    const actions = message.blocks.find((b) => b.type === "actions") as any;
    expect(actions.elements.map((e: any) => e.action_id)).toEqual([APPROVE_ACTION, DECLINE_ACTION]);
    expect(JSON.parse(actions.elements[0].value)).toEqual({
      runId: "th_1.run_1",
      requestId: "apr_1",
    });
  });

  it("escapes Slack's control characters wherever mrkdwn is used, so nothing pings or links", () => {
    const json = JSON.stringify(approvalMessage(view, { status: "open" }).blocks);
    expect(json).toContain("&lt;b&gt;`x`&lt;/b&gt;");
    expect(json).not.toContain("<b>");
    const declined = approvalMessage(view, {
      status: "declined",
      by: "<!here>",
      via: "slack",
      reason: "a < b",
    });
    const context = JSON.stringify(declined.blocks.find((b) => b.type === "context"));
    expect(context).toContain("&lt;!here&gt;");
    expect(context).toContain("a &lt; b");
  });

  it("escapes the top-level text too: a model's prompt pings nobody and links nowhere in notifications", () => {
    const injected = {
      ...view,
      prompt: "<!channel> <https://evil.example|Approve here> & <@U1>",
    };
    for (const state of [{ status: "open" } as const, { status: "approved", by: "ann" } as const]) {
      const { text } = approvalMessage(injected, state);
      expect(text).not.toMatch(/<!channel>|<https:|<@U1>/);
      expect(text).toContain("&lt;!channel&gt; &lt;https://evil.example|Approve here&gt; &amp;");
    }
  });

  it("the Approve button carries the arguments' version; Decline needs none", () => {
    const message = approvalMessage({ ...view, argsHash: "v".repeat(43) }, { status: "open" });
    const actions = message.blocks.find((b) => b.type === "actions") as any;
    expect(JSON.parse(actions.elements[0].value)).toEqual({
      runId: "th_1.run_1",
      requestId: "apr_1",
      argsHash: "v".repeat(43),
    });
    expect(JSON.parse(actions.elements[1].value)).toEqual({
      runId: "th_1.run_1",
      requestId: "apr_1",
    });
  });

  it("drops the buttons once settled and says what happened; shows votes so far while open", () => {
    const approved = approvalMessage(view, { status: "approved", by: "ann", via: "inbox" });
    expect(approved.blocks.some((b) => b.type === "actions")).toBe(false);
    expect(approved.text).toMatch(/^Approved:/);
    expect(JSON.stringify(approved.blocks)).toContain("*Approved* by ann via inbox");
    const voting = approvalMessage(view, { status: "open", votes: 1, needed: 2, voters: ["ann"] });
    expect(JSON.stringify(voting.blocks)).toContain("1 of 2 approvals so far (ann).");
    expect(voting.blocks.some((b) => b.type === "actions")).toBe(true);
  });

  it("an approval held in its undo window (rule delay) offers Undo, which revokes it (issue 44)", () => {
    const heldUntil = Date.UTC(2026, 10, 30, 20, 2, 0);
    const decided = {
      status: "decided",
      decision: {
        outcome: "approved",
        decidedBy: "ann",
        channel: "slack",
        decidedAt: "",
        reason: null,
      },
      heldUntil: new Date(heldUntil).toISOString(),
      votes: [],
      needed: 1,
    } as unknown as InboxItem;
    const state = slackState(decided);
    expect(state).toMatchObject({ status: "approved", heldUntil });
    const message = approvalMessage(view, state);
    const undo = message.blocks.find((b) => b.type === "actions") as any;
    expect(undo.elements.map((e: any) => [e.action_id, e.text.text])).toEqual([
      [UNDO_ACTION, "Undo"],
    ]);
    expect(JSON.parse(undo.elements[0].value)).toEqual({ runId: "th_1.run_1", requestId: "apr_1" });
    // Without a window (or once declined) no button.
    const plain = approvalMessage(view, slackState({ ...decided, heldUntil: undefined }));
    expect(plain.blocks.some((b) => b.type === "actions")).toBe(false);
  });

  it("keeps within Slack's text limits for huge arguments, without cutting an entity in half", () => {
    const huge = approvalMessage(
      { ...view, prompt: "p".repeat(5000), args: { s: "<".repeat(5000) } },
      { status: "open" },
    );
    for (const block of huge.blocks as any[]) {
      if (block.text) {
        expect(block.text.text.length).toBeLessThanOrEqual(3000);
      }
    }
    expect(JSON.stringify(huge.blocks)).not.toMatch(/&l?t?…/);
  });

  it("decline modal carries the target and the message in private_metadata", () => {
    const modal = declineModal({ runId: "r", requestId: "q" }, { channel: "C1", ts: "1.2" });
    expect(JSON.parse(modal.private_metadata!)).toEqual({
      runId: "r",
      requestId: "q",
      channel: "C1",
      ts: "1.2",
    });
  });
});
