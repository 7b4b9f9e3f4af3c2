/**
 * The chat and AG-UI routes behind Cloudflare Access (this project sets ACCESS_TEAM_DOMAIN):
 * an Access identity is the caller (requestedBy, decidedBy, whose conversation it is), a
 * browser's own x-toolnexus-user is ignored, and a listed origin's CORS answer allows
 * credentials (the Access session) — exact headers; other origins get none.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { API_TOKEN, BASE, getRun } from "../helpers/edge";
import { accessJwt } from "../helpers/access";
import { answeredAssistant, readFrames, userMessage } from "../helpers/chat";

const post = (path: string, body: unknown, headers: Record<string, string>) =>
  SELF.fetch(`${BASE}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("Access identity on /v1/chat and /v1/ag-ui", () => {
  it("asks and decides as the Access user; the conversation is theirs", async () => {
    const jwt = { "cf-access-jwt-assertion": await accessJwt({ email: "Carol@Example.com" }) };
    // A browser cannot speak for someone else: its x-toolnexus-user is ignored.
    const headers = { ...jwt, "x-toolnexus-user": "mallory@example.com" };
    const id = `chat-${crypto.randomUUID()}`;
    const user = userMessage("refund $120 on order 42");
    const frames = await readFrames(
      await post("/v1/chat/support", { id, messages: [user] }, headers),
    );
    expect(frames.some((f) => f.type === "tool-approval-request")).toBe(true);
    const done = await readFrames(
      await post(
        "/v1/chat/support",
        { id, messages: [user, answeredAssistant(frames, { approved: true })] },
        headers,
      ),
    );
    expect(done.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
    const run = await getRun(String(frames[0]?.messageId).slice(2));
    expect(run.requestedBy).toBe("carol@example.com");
    expect(run.decisions[0]).toMatchObject({ decidedBy: "carol@example.com", channel: "chat" });

    // The backend with the token speaking for carol reaches the same conversation; anonymous does not.
    const asCarol = await SELF.fetch(`${BASE}/v1/chat/support/${id}/messages`, {
      headers: { authorization: `Bearer ${API_TOKEN}`, "x-toolnexus-user": "carol@example.com" },
    });
    expect((await asCarol.json<{ messages: unknown[] }>()).messages).toHaveLength(2);
    const anonymous = await SELF.fetch(`${BASE}/v1/chat/support/${id}/messages`, {
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    expect(await anonymous.json()).toEqual({ messages: [] });
  });

  it("refuses an Access token that does not verify (401), on AG-UI too", async () => {
    const bad = await accessJwt({ email: "carol@example.com" }, { audience: "aud-nope" });
    const response = await post(
      "/v1/ag-ui/support",
      { threadId: "t", runId: "r", messages: [] },
      { "cf-access-jwt-assertion": bad },
    );
    expect(response.status).toBe(401);
  });

  it("allows credentials for a listed origin (Access is set), with the exact preflight headers", async () => {
    const preflight = await SELF.fetch(`${BASE}/v1/ag-ui/support`, {
      method: "OPTIONS",
      headers: { origin: "https://app.test", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(Object.fromEntries(preflight.headers)).toMatchObject({
      "access-control-allow-origin": "https://app.test",
      "access-control-allow-credentials": "true",
      "access-control-allow-methods": "GET, POST, OPTIONS",
      "access-control-allow-headers": "authorization, content-type, x-toolnexus-user",
      "access-control-max-age": "600",
      vary: "origin",
    });
    const jwt = await accessJwt({ email: "carol@example.com" });
    const stream = await SELF.fetch(`${BASE}/v1/chat/support/nothing-here/stream`, {
      headers: { origin: "https://app.test", "cf-access-jwt-assertion": jwt },
    });
    expect(stream.status).toBe(204);
    expect(stream.headers.get("access-control-allow-origin")).toBe("https://app.test");
    expect(stream.headers.get("access-control-allow-credentials")).toBe("true");
    expect(stream.headers.get("access-control-expose-headers")).toBe(
      "x-vercel-ai-ui-message-stream",
    );

    const other = await SELF.fetch(`${BASE}/v1/chat/support/nothing-here/stream`, {
      headers: { origin: "https://evil.test", "cf-access-jwt-assertion": jwt },
    });
    expect(other.status).toBe(204);
    for (const name of [
      "access-control-allow-origin",
      "access-control-allow-credentials",
      "access-control-expose-headers",
    ]) {
      expect(other.headers.get(name)).toBeNull();
    }
    const otherPreflight = await SELF.fetch(`${BASE}/v1/chat/support`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.test", "access-control-request-method": "POST" },
    });
    expect(otherPreflight.headers.get("access-control-allow-origin")).toBeNull();
    expect(otherPreflight.headers.get("access-control-allow-methods")).toBeNull();
  });
});
