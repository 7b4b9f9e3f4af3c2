import { describe, expect, it } from "vitest";
import {
  type ApprovalPageView,
  renderApprovalPage,
  renderMessagePage,
} from "../../src/edge/approvals/page";
import { pageHeaders } from "../../src/edge/pages/layout";

const VIEW: ApprovalPageView = {
  prompt: "Send the email?",
  kind: "approval",
  args: { to: "a@example.com", subject: "Hi" },
  toolName: "send_email",
  runId: "run_1",
  requestId: "req_1",
  expiresAt: "2026-05-01T12:00:00Z",
  now: Date.parse("2026-05-01T11:46:00Z"),
  actionPath: "/approve/tok.en",
};

const XSS = `<script>alert("x")</script><img src=x onerror='alert(1)'>`;

/** The text between `<tag id="id" ...>` and `</tag>`. */
function element(html: string, tag: string, id: string): string {
  const match = new RegExp(`<${tag} id="${id}"[^>]*>([\\s\\S]*?)</${tag}>`).exec(html);
  expect(match, `<${tag} id="${id}">`).not.toBeNull();
  return match![1]!;
}

function countOf(html: string, text: string): number {
  return html.split(text).length - 1;
}

describe("renderApprovalPage", () => {
  it("shows prompt, tool, pretty-printed args and expiry", () => {
    const html = renderApprovalPage(VIEW);
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(element(html, "p", "prompt")).toBe("Send the email?");
    expect(element(html, "code", "tool")).toBe("send_email");
    expect(element(html, "pre", "args")).toBe(
      "{\n  &quot;to&quot;: &quot;a@example.com&quot;,\n  &quot;subject&quot;: &quot;Hi&quot;\n}",
    );
    // UTC plus how far it is, computed at render (no script on the page).
    expect(element(html, "time", "expires")).toBe("2026-05-01 12:00:00 UTC (in 14 minutes)");
    expect(html).toContain('datetime="2026-05-01T12:00:00Z"');
    expect(html).toContain("run_1");
    expect(html).toContain("req_1");
  });

  it("has exactly one POST form with approve/decline buttons and a reason", () => {
    const html = renderApprovalPage(VIEW);
    expect(countOf(html, "<form")).toBe(1);
    expect(html).toContain('<form method="POST" action="/approve/tok.en">');
    expect(html).toMatch(
      /<button type="submit"[^>]* name="decision" value="approve">Approve<\/button>/,
    );
    expect(html).toMatch(
      /<button type="submit"[^>]* name="decision" value="decline"[^>]*>Decline<\/button>/,
    );
    expect(html).toMatch(/<textarea [^>]*name="reason"/);
    expect(html).not.toMatch(/<script|<link|src=|https?:/i);
  });

  it("escapes script, quotes and attributes in every user-controlled field", () => {
    const html = renderApprovalPage({
      ...VIEW,
      prompt: XSS,
      toolName: XSS,
      args: { [XSS]: XSS },
      runId: XSS,
      requestId: XSS,
      expiresAt: `"><script>`,
      actionPath: `/approve/x" onmouseover="alert(1)`,
    });
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<img");
    // Event-handler text may appear, but only as inert escaped text, never as an attribute.
    expect(html).not.toMatch(/onerror='|" onmouseover=/);
    expect(element(html, "p", "prompt")).toBe(
      "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=&#39;alert(1)&#39;&gt;",
    );
    expect(html).toContain('action="/approve/x&quot; onmouseover=&quot;alert(1)"');
    expect(element(html, "pre", "args")).toContain("&lt;/script&gt;");
  });

  it("passes unicode through and escapes ampersands", () => {
    const html = renderApprovalPage({
      ...VIEW,
      prompt: "Payer 5 € à Zoë & 日本 🚀?",
      args: { note: "naïve – “quotes”" },
    });
    expect(element(html, "p", "prompt")).toBe("Payer 5 € à Zoë &amp; 日本 🚀?");
    expect(element(html, "pre", "args")).toContain("naïve – “quotes”");
    expect(html).toContain('<meta charset="utf-8">');
  });

  it("copes with missing, cyclic and non-JSON args", () => {
    expect(element(renderApprovalPage({ ...VIEW, args: undefined }), "pre", "args")).toBe(
      "(no arguments)",
    );
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => renderApprovalPage({ ...VIEW, args: cyclic })).not.toThrow();
    expect(element(renderApprovalPage({ ...VIEW, args: 10n }), "pre", "args")).toBe("10");
  });

  it("omits optional rows", () => {
    const { toolName: _t, expiresAt: _e, ...rest } = VIEW;
    const html = renderApprovalPage(rest);
    expect(html).not.toContain('id="tool"');
    expect(html).not.toContain('id="expires"');
    expect(html).not.toContain('name="field:');
  });

  it("renders one labelled text input per schema property for input requests", () => {
    const html = renderApprovalPage({
      ...VIEW,
      kind: "input",
      data: {
        schema: {
          type: "object",
          properties: {
            city: { type: "string", title: "City", description: "Where to ship" },
            'zip"<': { type: "string", default: "75001" },
          },
          required: ["city"],
        },
      },
    });
    expect(countOf(html, '<input type="text"')).toBe(2);
    expect(html).toContain('<label for="field-0">City *');
    expect(html).toContain("Where to ship");
    expect(html).toContain('<input type="text" id="field-0" name="field:city" required>');
    expect(html).toContain('<label for="field-1">zip&quot;&lt;</label>');
    expect(html).toContain('name="field:zip&quot;&lt;" value="75001">');
    // Declining must not be blocked by the browser's required-field check.
    expect(html).toMatch(/value="decline" formnovalidate/);
    expect(countOf(html, "<form")).toBe(1);
  });

  it("ignores schemas on non-input kinds and malformed schemas", () => {
    const schema = { properties: { city: { type: "string" } } };
    expect(renderApprovalPage({ ...VIEW, data: { schema } })).not.toContain("field:");
    for (const bad of [undefined, "x", { properties: [] }, { properties: null }]) {
      expect(renderApprovalPage({ ...VIEW, kind: "input", data: { schema: bad } })).not.toContain(
        "field:",
      );
    }
  });
});

describe("renderMessagePage", () => {
  it("renders an escaped message with a status class", () => {
    const html = renderMessagePage("Expired <b>", "This link has expired", "error");
    expect(element(html, "p", "message")).toBe("This link has expired");
    expect(html).toContain('class="error"');
    expect(html).toContain("<title>Expired &lt;b&gt;</title>");
    expect(renderMessagePage("Done", "Decision recorded: approved")).toContain('class="ok"');
    expect(element(renderMessagePage("x", XSS), "p", "message")).not.toContain("<");
  });
});

describe("pageHeaders", () => {
  it("locks the page down", () => {
    expect(pageHeaders()).toEqual({
      "content-type": "text/html; charset=utf-8",
      "Referrer-Policy": "no-referrer",
      "Content-Security-Policy":
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      "X-Frame-Options": "DENY",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    });
    const headers = new Response("", { headers: pageHeaders() }).headers;
    expect(headers.get("content-type")).toBe("text/html; charset=utf-8");
  });
});
