/**
 * Over-limit bodies under `wrangler dev` get our 413, streamed (chunked, no Content-Length)
 * or declared: the body-limited routes drain a refused body's rest (src/edge/http/body-drain.ts),
 * without which wrangler's dev proxy answered `503 Your worker restarted mid-request` or the
 * upload was reset. Bodies of 2 MB: far past every limit, and past what the sockets between
 * the hops buffer (bodies up to about 100 KB got through even before).
 */
import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, test } from "node:test";
import { createClient } from "../../scripts/lib/api.mjs";
import { startDevServer, TEST_VARS } from "../../scripts/lib/dev-server.mjs";

const HARD_LIMIT_MS = 170_000;
setTimeout(() => {
  console.error(`body-limits.test.mjs: still running after ${HARD_LIMIT_MS / 1000}s, giving up`);
  process.exit(1);
}, HARD_LIMIT_MS).unref();

const SIZE = 2_000_000;

let server;
let client;

before(
  async () => {
    // Slack switched on (its API is never called here) so its interactions route reads bodies.
    server = await startDevServer({
      timeoutMs: 60_000,
      vars: {
        ...TEST_VARS,
        SLACK_BOT_TOKEN: "xoxb-test",
        SLACK_SIGNING_SECRET: "test-signing-secret",
        SLACK_API_URL: "http://127.0.0.1:9/api/",
      },
    });
    client = createClient({
      baseUrl: server.url,
      apiToken: server.apiToken,
      webhookSecret: server.webhookSecrets[0],
    });
  },
  { timeout: 75_000 },
);

after(async () => {
  await server?.stop();
});

/**
 * POSTs `size` bytes to `path` on a fresh connection, chunked or with Content-Length;
 * resolves with the status, content type and body, or with the socket error.
 */
function post(path, { size = SIZE, chunked, headers = {} }) {
  return new Promise((resolve) => {
    const req = request(new URL(path, server.url), {
      agent: false,
      method: "POST",
      headers: {
        ...headers,
        ...(chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(size) }),
      },
    });
    req.on("response", (res) => {
      const chunks = [];
      res.on("data", (chunk) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode,
          type: res.headers["content-type"] ?? "",
          body: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
    req.on("error", (error) => resolve({ error: error.message }));
    const piece = Buffer.alloc(16 * 1024, "a");
    let sent = 0;
    const write = () => {
      while (sent < size) {
        const n = Math.min(piece.length, size - sent);
        sent += n;
        if (!req.write(piece.subarray(0, n))) {
          req.once("drain", write);
          return;
        }
      }
      req.end();
    };
    write();
  });
}

function assertJson413(answer, limit) {
  assert.equal(answer.error, undefined, `the upload failed: ${answer.error}`);
  assert.equal(answer.status, 413, answer.body);
  assert.deepEqual(JSON.parse(answer.body), {
    error: { code: "body_too_large", message: `body is larger than ${limit} bytes` },
  });
}

function assertPage413(answer) {
  assert.equal(answer.error, undefined, `the upload failed: ${answer.error}`);
  assert.equal(answer.status, 413, answer.body);
  assert.match(answer.type, /^text\/html/);
  assert.match(answer.body, /Form too large/);
}

const json = { "content-type": "application/json" };
const form = { "content-type": "application/x-www-form-urlencoded" };

for (const chunked of [true, false]) {
  const how = chunked ? "chunked" : "with Content-Length";

  test(`POST /v1/decisions, 2 MB ${how}: 413 body_too_large (64 KiB)`, async () => {
    assertJson413(await post("/v1/decisions", { chunked, headers: json }), 64 * 1024);
  });

  test(`POST /v1/runs, 2 MB ${how}: 413 body_too_large (256 KiB)`, async () => {
    const headers = { ...json, authorization: `Bearer ${server.apiToken}` };
    assertJson413(await post("/v1/runs", { chunked, headers }), 256 * 1024);
  });

  test(`POST /slack/interactions, 2 MB ${how}: 413 body_too_large (128 KiB)`, async () => {
    assertJson413(await post("/slack/interactions", { chunked, headers: form }), 128 * 1024);
  });

  test(`POST /approve/:token (the approval page's form), 2 MB ${how}: the 413 page`, async () => {
    assertPage413(await post("/approve/not-a-token", { chunked, headers: form }));
  });

  test(`POST /inbox/decide, 2 MB ${how}: the 413 page`, async () => {
    const { url } = await client.approverLink("ann@example.com");
    const signIn = await fetch(url, { redirect: "manual" });
    const cookie = signIn.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    assert.ok(cookie, `no session cookie from ${signIn.status}`);
    assertPage413(await post("/inbox/decide", { chunked, headers: { ...form, cookie } }));
  });
}

test("the server is still whole afterwards", async () => {
  assert.equal((await client.health()).status, 200);
});
