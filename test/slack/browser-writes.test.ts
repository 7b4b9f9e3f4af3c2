// Issue 37 item 4 with the identity from Cloudflare Access (this project sets
// ACCESS_TEAM_DOMAIN): a page on another site makes the browser post with the Access
// session; a text/plain body is 415 and a hostile Origin 403, on chat and AG-UI, and no run
// starts in the victim's conversation.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { API_TOKEN, BASE } from "../helpers/edge";
import { accessJwt } from "../helpers/access";
import { runAgentInput, userMessage } from "../helpers/chat";

describe("cross-site writes with an Access session", () => {
  it("refuses text/plain (415) and a hostile Origin (403); nothing starts", async () => {
    const jwt = await accessJwt({ email: "carol@example.com" });
    const id = `xs-${crypto.randomUUID()}`;
    const chat = JSON.stringify({ id, messages: [userMessage("refund $20 on order 42")] });
    const agUi = JSON.stringify(
      runAgentInput(id, { messages: [{ id: "m", role: "user", content: "refund $20" }] }),
    );
    for (const [path, body] of [
      ["/v1/chat/support", chat],
      ["/v1/ag-ui/support", agUi],
    ] as const) {
      const plain = await SELF.fetch(`${BASE}${path}`, {
        method: "POST",
        headers: {
          "cf-access-jwt-assertion": jwt,
          origin: "https://evil.test",
          "content-type": "text/plain",
        },
        body,
      });
      expect(plain.status, path).toBe(403);
      const listedPlain = await SELF.fetch(`${BASE}${path}`, {
        method: "POST",
        headers: {
          "cf-access-jwt-assertion": jwt,
          origin: "https://app.test",
          "content-type": "text/plain",
        },
        body,
      });
      expect(listedPlain.status, path).toBe(415);
      const hostileJson = await SELF.fetch(`${BASE}${path}`, {
        method: "POST",
        headers: {
          "cf-access-jwt-assertion": jwt,
          origin: "https://evil.test",
          "content-type": "application/json",
        },
        body,
      });
      expect(hostileJson.status, path).toBe(403);
    }
    const messages = await SELF.fetch(`${BASE}/v1/chat/support/${id}/messages`, {
      headers: { authorization: `Bearer ${API_TOKEN}`, "x-toolnexus-user": "carol@example.com" },
    });
    expect(await messages.json()).toEqual({ messages: [] });
  });
});
