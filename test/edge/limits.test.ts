/**
 * Request limits (issue: hardening): JSON depth and field sizes, bodies read only up to the
 * limit even when streamed without Content-Length, page forms, signature before decoding,
 * and Hono's own middleware failures keeping their status.
 */
import { describe, expect, it } from "vitest";
import { createExecutionContext, env, SELF } from "cloudflare:test";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { jsonDepth } from "../../src/edge/http/body";
import { MAX_DRAIN_BYTES } from "../../src/edge/http/body-drain";
import { errorHandler } from "../../src/edge/http/errors";
import { webhookHeaders } from "../../src/edge/notify/webhooks";
import {
  api,
  BASE,
  errorOf,
  getRun,
  pendingRun,
  rawDecision,
  signedDecision,
  uniqueThread,
  WEBHOOK_SECRET,
} from "../helpers/http";
import { API_TOKEN } from "../helpers/edge";
import worker from "../../src/worker";

const SLOW = 30_000;

/** `{"a":{"a":…1…}}` with `levels` objects. */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

/**
 * A body that never ends on its own (16 KiB per pull, up to `maxChunks`), with the number of
 * chunks the server pulled: reading to the end would pull them all.
 */
function endless(maxChunks = 4096) {
  const chunk = new TextEncoder().encode(`{"pad":"${"x".repeat(16 * 1024 - 10)}`);
  const counter = { pulled: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      counter.pulled++;
      if (counter.pulled > maxChunks) {
        controller.close();
      } else {
        controller.enqueue(chunk);
      }
    },
  });
  return { body, counter };
}

/**
 * The most chunks a refused endless body may be pulled: up to the limit, then its rest
 * drained (read and dropped, so the 413 gets through wrangler's dev proxy: body-drain.ts) up
 * to MAX_DRAIN_BYTES, plus the chunks that passed each bound and one pulled ahead: far
 * short of the whole 4096.
 */
function mostPulled(limit: number): number {
  return Math.ceil((limit + MAX_DRAIN_BYTES) / (16 * 1024)) + 3;
}

/**
 * POSTs an {@link endless} body straight to the worker's fetch handler, in this isolate. The
 * handler sees the same streamed request body as through `SELF`, but no upload pipe sits in
 * between: through `SELF`, the pipe the test abandons on purpose makes workerd log an abort
 * ("read end of pipe was aborted", "Network connection lost") after the test passes.
 */
async function postEndless(path: string, headers: Record<string, string>) {
  const { body, counter } = endless();
  const request = new Request(`${BASE}${path}`, {
    method: "POST",
    headers,
    body,
    duplex: "half",
  } as RequestInit);
  const response = await worker.fetch!(
    request as Parameters<NonNullable<typeof worker.fetch>>[0],
    env,
    createExecutionContext(),
  );
  return { response, counter };
}

describe("JSON depth and field sizes", () => {
  it("counts depth in one pass, ignoring brackets inside strings", () => {
    expect(jsonDepth("1")).toBe(0);
    expect(jsonDepth('{"a":[1,{"b":2}]}')).toBe(3);
    expect(jsonDepth('{"a":"[[[{{{\\"]]"}')).toBe(1);
    expect(jsonDepth(nested(100_000))).toBe(100_000); // no recursion: no stack overflow
  });

  it("POST /v1/runs: metadata nested 3,700 levels is 400 naming the depth, not 500", async () => {
    const body = `{"agent":"support","input":"hello","metadata":${nested(3700)}}`;
    const response = await api("/v1/runs", { method: "POST", body });
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe("invalid_body");
    expect(error.message).toMatch(/nested deeper than 64 levels/);
  });

  it("POST /v1/runs: depth 64 is accepted, 65 is not", async () => {
    // The body is level 1 and metadata level 2: 62 more objects inside reach 64.
    const at = (levels: number) =>
      `{"agent":"support","input":"hello","threadId":"${uniqueThread()}","metadata":{"a":${nested(levels)}}}`;
    expect((await api("/v1/runs", { method: "POST", body: at(62) })).status).toBe(202);
    expect((await api("/v1/runs", { method: "POST", body: at(63) })).status).toBe(400);
  });

  it("POST /v1/runs: metadata over 64 KiB is 400 naming metadata (the body limit is 256 KiB)", async () => {
    const body = JSON.stringify({
      agent: "support",
      input: "hello",
      metadata: { blob: "x".repeat(64 * 1024) },
    });
    const response = await api("/v1/runs", { method: "POST", body });
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe("invalid_body");
    expect(error.issues).toEqual([{ path: "metadata", message: "must be at most 64 KiB as JSON" }]);
    const fits = JSON.stringify({
      agent: "support",
      input: "hello",
      metadata: { blob: "x".repeat(60 * 1024) },
    });
    expect((await api("/v1/runs", { method: "POST", body: fits })).status).toBe(202);
  });

  it(
    "POST /v1/decisions: data nested 5,000 levels is 400 after the signature, nothing recorded",
    async () => {
      const { runId, request } = await pendingRun("Please delete my account");
      const raw = `{"runId":"${runId}","requestId":"${request.id}","decision":"approve","data":${nested(5000)}}`;
      const response = await signedDecision(undefined, { raw });
      expect(response.status).toBe(400);
      expect((await errorOf(response)).message).toMatch(/nested deeper than 64 levels/);
      expect((await getRun(runId)).decisions).toEqual([]);
    },
    SLOW,
  );

  it("415 for a body that is not declared JSON", async () => {
    const response = await api("/v1/runs", {
      method: "POST",
      body: JSON.stringify({ agent: "support", input: "hello" }),
      headers: { "content-type": "text/plain" },
    });
    expect(response.status).toBe(415);
    const error = await errorOf(response);
    expect(error.code).toBe("unsupported_media_type");
    expect(error.issues?.[0]?.path).toBe("content-type");
  });
});

describe("bodies are read only up to the limit, streamed or not", () => {
  it("POST /v1/runs: an endless chunked body gets 413 after about 256 KiB", async () => {
    const { response, counter } = await postEndless("/v1/runs", {
      authorization: `Bearer ${API_TOKEN}`,
      "content-type": "application/json",
    });
    expect(response.status).toBe(413);
    expect((await errorOf(response)).code).toBe("body_too_large");
    expect(counter.pulled).toBeLessThanOrEqual(mostPulled(256 * 1024)); // 4096 would be the whole
  });

  it("POST /v1/decisions: an endless chunked body gets 413 after about 64 KiB", async () => {
    const headers = await webhookHeaders(WEBHOOK_SECRET, "{}");
    const { response, counter } = await postEndless("/v1/decisions", headers);
    expect(response.status).toBe(413);
    expect((await errorOf(response)).code).toBe("body_too_large");
    expect(counter.pulled).toBeLessThanOrEqual(mostPulled(64 * 1024));
  });

  it(
    "the approval page's POST: over 16 KiB is 413, declared or streamed, and decides nothing",
    async () => {
      // No approver rules: the anonymous link may decide it.
      const { runId } = await pendingRun("Refund order 42 for $120");
      const { approvalUrl } = await getRun(runId);
      const fields = Array.from({ length: 2000 }, (_, i) => `f${i}=${"y".repeat(8)}`).join("&");
      const form = { "content-type": "application/x-www-form-urlencoded" };
      const declared = await SELF.fetch(approvalUrl!, {
        method: "POST",
        headers: form,
        body: `decision=approve&${fields}`,
      });
      expect(declared.status).toBe(413);
      expect(declared.headers.get("content-type")).toMatch(/text\/html/);
      expect(await declared.text()).toMatch(/Form too large/);

      const { response: streamed, counter } = await postEndless(
        new URL(approvalUrl!).pathname,
        form,
      );
      expect(streamed.status).toBe(413);
      expect(counter.pulled).toBeLessThanOrEqual(mostPulled(16 * 1024));

      expect((await getRun(runId)).status).toBe("pending");
      expect((await getRun(runId)).decisions).toEqual([]);
      // A normal form still decides.
      const ok = await SELF.fetch(approvalUrl!, {
        method: "POST",
        headers: form,
        body: "decision=decline&reason=no",
      });
      expect(ok.status).toBe(200);
    },
    SLOW,
  );
});

describe("signature before decoding", () => {
  it("an unsigned body with invalid UTF-8 is 401, a signed one 400", async () => {
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('{"runId":"x","requestId":"y","decision":"approve","reason":"'),
      0xff,
      0xfe,
      ...new TextEncoder().encode('"}'),
    ]);
    const unsigned = await rawDecision(bytes);
    expect(unsigned.status).toBe(401);
    const forged = await rawDecision(bytes, {
      "webhook-id": "msg_1",
      "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
      "webhook-signature": `v1,${btoa("x".repeat(32))}`,
    });
    expect(forged.status).toBe(401);
    expect((await errorOf(forged)).code).toBe("bad_signature");

    // Signed over those exact bytes: the signature holds, then decoding fails.
    const id = "msg_bytes";
    const timestamp = Math.floor(Date.now() / 1000);
    const key = await crypto.subtle.importKey(
      "raw",
      Uint8Array.from(atob(WEBHOOK_SECRET.slice(6)), (ch) => ch.charCodeAt(0)),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const signed = new Uint8Array([...new TextEncoder().encode(`${id}.${timestamp}.`), ...bytes]);
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, signed));
    const response = await rawDecision(bytes, {
      "webhook-id": id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": `v1,${btoa(String.fromCharCode(...mac))}`,
    });
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe("invalid_body");
    expect(error.message).toMatch(/UTF-8/);
  });
});

describe("onError and Hono's HTTPException", () => {
  const app = new Hono()
    .post("/limited", bodyLimit({ maxSize: 8 }), (c) => c.text("ok"))
    .get("/teapot", () => {
      throw new HTTPException(418, { message: "short and stout" });
    })
    .get("/custom", () => {
      throw new HTTPException(429, {
        res: new Response("slow down", { status: 429, headers: { "retry-after": "7" } }),
      });
    })
    .onError(errorHandler(() => {}));

  it("a built-in middleware's HTTPException keeps its status (not 500)", async () => {
    const response = await app.request("/limited", { method: "POST", body: "123456789" });
    expect(response.status).toBe(413);
  });

  it("keeps the exception's own response, or shapes a JSON error with its status", async () => {
    const custom = await app.request("/custom");
    expect(custom.status).toBe(429);
    expect(custom.headers.get("retry-after")).toBe("7");
    expect(await custom.text()).toBe("slow down");

    const teapot = await app.request("/teapot");
    expect(teapot.status).toBe(418);
    expect(await teapot.json()).toEqual({
      error: { code: "http_error", message: "short and stout" },
    });
  });
});
