// The pieces of an approval email (issue 45): the MIME writer (RFC 2047 subjects, no header
// injection, base64 parts), the content (everything a model wrote is escaped in the HTML),
// and email's settings (both or neither; half a configuration names the missing piece).
import { describe, expect, it } from "vitest";
import { createExecutionContext, env } from "cloudflare:test";
import { buildMime, encodeSubject } from "../../src/edge/email/mime";
import { approvalEmail } from "../../src/edge/email/message";
import { emailOf } from "../../src/edge/email/sync";
import type { InboxItem } from "../../src/edge/inbox/item";
import { settings } from "../../src/edge/settings";
import { createWorker } from "../../src/edge/create-worker";
import { supportAgent } from "../../src/edge/demo/agent";
import { parseMail } from "../helpers/email";

const links = {
  approve: "https://edge.test/email/p.a.b?decision=approve",
  decline: "https://edge.test/email/p.a.b?decision=decline",
};

function item(overrides: Partial<InboxItem> = {}): InboxItem {
  return {
    requestId: "apr_1",
    runId: "th_1.run_1",
    threadId: "th_1",
    agent: "support",
    input: "refund please",
    requestedBy: null,
    tool: "refund_order",
    args: { orderId: "7", amount: 80 },
    argsHash: "h",
    editedBy: null,
    metadata: null,
    prompt: "Refund $80 on order 7?",
    kind: "approval",
    expiresAt: "2026-12-05T10:00:00.000Z",
    groups: ["default"],
    status: "open",
    event: "surfaced",
    votes: [],
    needed: null,
    decision: null,
    surfacedAt: "2026-12-04T10:00:00.000Z",
    updatedAt: "2026-12-04T10:00:00.000Z",
    version: 1,
    ...overrides,
  };
}

describe("the MIME writer", () => {
  it("writes a multipart/alternative message a reader parses back, subject and all", () => {
    const raw = buildMime({
      from: "approvals@toolnexus.test",
      to: "ann@example.com",
      subject: "Approval needed: Rückerstattung über 80 € für Bestellung 7 — bitte prüfen 🙏",
      text: "Grüße\nline two",
      html: "<p>Grüße</p>",
      messageId: "approval.abc@toolnexus.test",
      date: new Date("2026-12-04T15:13:48Z"),
    });
    expect(raw).toContain("\r\nDate: Fri, 04 Dec 2026 15:13:48 +0000\r\n");
    const mail = parseMail(raw);
    expect(mail.subject).toBe(
      "Approval needed: Rückerstattung über 80 € für Bestellung 7 — bitte prüfen 🙏",
    );
    expect(mail.text).toBe("Grüße\nline two");
    expect(mail.html).toBe("<p>Grüße</p>");
    expect(mail.headers.get("message-id")).toBe("<approval.abc@toolnexus.test>");
    // Every line of the message fits RFC 5322's 78 characters (encoded words, base64 lines).
    for (const line of raw.split("\r\n")) {
      expect(line.length).toBeLessThanOrEqual(78);
    }
  });

  it("keeps ASCII subjects as they are and splits others into words of at most 75 characters", () => {
    expect(encodeSubject("Refund $80?")).toBe("Refund $80?");
    const words = encodeSubject("é".repeat(100)).split("\r\n ");
    expect(words.length).toBeGreaterThan(1);
    for (const word of words) {
      expect(word).toMatch(/^=\?UTF-8\?B\?[A-Za-z0-9+/=]+\?=$/);
      expect(word.length).toBeLessThanOrEqual(75);
    }
  });

  it("never lets a value start a header of its own", () => {
    const raw = buildMime({
      from: "approvals@toolnexus.test",
      to: "ann@example.com",
      subject: "Refund?\r\nBcc: everyone@example.com",
      text: "t",
      html: "h",
      messageId: "x@toolnexus.test",
      date: new Date(),
    });
    expect(raw).not.toMatch(/^Bcc:/m);
    expect(parseMail(raw).subject).toBe("Refund? Bcc: everyone@example.com");
  });
});

describe("the approval email's content", () => {
  it("escapes the prompt and arguments in the HTML part and shows votes and expiry", () => {
    const email = approvalEmail(
      item({
        prompt: 'Refund <script>alert("x")</script>?',
        args: { note: "<img src=x onerror=alert(1)>" },
        needed: 2,
        votes: [
          { decidedBy: "ann", decision: "approve", channel: "slack", at: "2026-12-04T10:01:00Z" },
          {
            decidedBy: "old",
            decision: "approve",
            channel: "page",
            at: "2026-12-04T10:00:30Z",
            reset: true,
          },
        ],
      }),
      { links, now: Date.parse("2026-12-04T10:05:00Z") },
    );
    expect(email.html).not.toContain("<script>");
    expect(email.html).not.toContain("<img");
    expect(email.html).toContain("Refund &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;?");
    expect(email.html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(email.text).toContain("Votes: 1 of 2 approvals");
    expect(email.text).toContain("  ann: approve (slack)");
    expect(email.text).not.toContain("old:");
    expect(email.text).toContain("Expires: 2026-12-05 10:00:00 UTC (in 24 hours)");
    expect(email.text).toContain(`Approve: ${links.approve}`);
    expect(email.subject).toBe('Approval needed: Refund <script>alert("x")</script>?');
  });

  it("a member's address is their first email identity, else their id when it is one", () => {
    expect(emailOf({ id: "bob", identities: ["slack:T1/U2", "bob@example.com"] })).toBe(
      "bob@example.com",
    );
    expect(emailOf({ id: "ann@example.com", identities: [] })).toBe("ann@example.com");
    expect(emailOf({ id: "nomail", identities: ["slack:T1/U9"] })).toBeUndefined();
  });
});

describe("email settings", () => {
  const binding = { send: async () => ({}) };

  it("are off with neither, and half a configuration names the missing piece", () => {
    expect(settings({}).email).toBeUndefined();
    expect(() => settings({ EMAIL: binding }).email).toThrow(/EMAIL_FROM is not set/);
    expect(() => settings({ EMAIL_FROM: "approvals@example.com" }).email).toThrow(
      /EMAIL is not bound/,
    );
    expect(() => settings({ EMAIL: "nope", EMAIL_FROM: "approvals@example.com" }).email).toThrow(
      /EMAIL is not a send_email binding/,
    );
    expect(
      () => settings({ EMAIL: binding, EMAIL_FROM: "Approvals <a@example.com>" }).email,
    ).toThrow(/EMAIL_FROM must be a bare address/);
    expect(settings({ EMAIL: binding, EMAIL_FROM: " approvals@example.com " }).email).toEqual({
      binding,
      from: "approvals@example.com",
    });
  });

  it.each([
    ["EMAIL_FROM", { EMAIL_FROM: undefined }],
    ["EMAIL", { EMAIL: undefined }],
  ])(
    "without %s, the worker answers its first request with 500 config_error naming it",
    async (missing, change) => {
      const worker = createWorker({ agents: [supportAgent] });
      const response = await worker.fetch!(
        new Request("https://edge.test/healthz") as never,
        { ...env, ...change } as never,
        createExecutionContext(),
      );
      expect(response.status).toBe(500);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("config_error");
      expect(body.error.message).toMatch(new RegExp(`^${missing} is not`));
    },
  );
});
