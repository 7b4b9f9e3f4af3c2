/**
 * The contract's floor: the least a worker does per cycle when it keeps the promises the
 * product's contract makes, written by hand with nothing else (no framework, no kernel, no
 * schema beyond four tables). The pipeline benchmark runs it beside the bare worker (which
 * keeps none of them) and the product, so the product's CPU per cycle reads against both:
 * what the contract itself costs, and what our code costs on top of it.
 *
 * Per cycle, beyond the bare worker's writes and queue hops:
 * - the run API checks its bearer token (SHA-256 of both sides, compared), the decision its
 *   Standard Webhooks signature (HMAC-SHA256 with the ±5 min window);
 * - the transcript is stored one row per message (user, assistant tool call, tool result,
 *   final assistant), the decision in a ledger keyed by request id (a repeat is a 200), the
 *   events in a log for SSE replay (the six the contract names for this cycle: `tool_call`,
 *   `pending`, `resumed`, `tool_result`, `text`, `done`);
 * - each decision signs a receipt (Ed25519);
 * - the group's inbox object is told of the open request and of its decision, and the
 *   receipts object gets the run's pending version and then the receipt: the product's four
 *   calls between objects, each one upsert in a transaction.
 * The model is the product's demo model's work at its least: one tool call, then a text.
 */
import { DurableObject } from "cloudflare:workers";

const json = (body, status = 200) => Response.json(body, { status });
const encoder = new TextEncoder();

export class FloorRun extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS runs (id TEXT PRIMARY KEY, status TEXT NOT NULL, request_id TEXT, input TEXT);
      CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, body TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS decisions (request_id TEXT PRIMARY KEY, run_id TEXT NOT NULL, decision TEXT NOT NULL, at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL);`);
    this.listeners = new Set();
  }

  run(id) {
    return this.sql.exec("SELECT status, request_id FROM runs WHERE id = ?", id).toArray()[0];
  }

  view(id) {
    const row = this.run(id);
    return row && { runId: id, status: row.status, requestId: row.request_id };
  }

  #event(id, type, data) {
    const text = JSON.stringify(data);
    const { seq } = this.sql
      .exec(
        "INSERT INTO events (run_id, type, data) VALUES (?, ?, ?) RETURNING id AS seq",
        id,
        type,
        text,
      )
      .one();
    return () => this.#emit(seq, type, text);
  }

  #message(id, body) {
    this.sql.exec("INSERT INTO messages (run_id, body) VALUES (?, ?)", id, JSON.stringify(body));
  }

  async start(id, input) {
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("INSERT INTO runs (id, status, input) VALUES (?, 'running', ?)", id, input);
      this.#message(id, { role: "user", content: input });
    });
    await this.env.STEP_QUEUE.send({ id });
  }

  async decide(id, requestId, decision) {
    const row = this.run(id);
    if (!row) {
      return 404;
    }
    const known = this.sql
      .exec("SELECT decision FROM decisions WHERE request_id = ?", requestId)
      .toArray()[0];
    if (known) {
      return known.decision === decision ? 200 : 409;
    }
    if (row.status !== "pending" || row.request_id !== requestId) {
      return row.request_id === requestId ? 409 : 404;
    }
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        "INSERT INTO decisions (request_id, run_id, decision, at) VALUES (?, ?, ?, ?)",
        requestId,
        id,
        decision,
        Date.now(),
      );
      this.sql.exec("UPDATE runs SET status = 'decided' WHERE id = ?", id);
    });
    await this.env.STEP_QUEUE.send({ id });
    return 202;
  }

  /** The queue hop: a model turn to the tool call that waits, or the approved call and the last turn. */
  async advance(id) {
    const row = this.run(id);
    if (row?.status === "running") {
      const requestId = `req_${crypto.randomUUID()}`;
      const call = {
        id: `call_${requestId}`,
        name: "refund_order",
        arguments: '{"orderId":"42","amountUsd":120}',
      };
      const request = { id: requestId, kind: "approval", prompt: "Approve refund_order?", call };
      const emits = this.ctx.storage.transactionSync(() => {
        this.#message(id, { role: "assistant", content: null, tool_calls: [call] });
        this.sql.exec(
          "UPDATE runs SET status = 'pending', request_id = ? WHERE id = ?",
          requestId,
          id,
        );
        return [this.#event(id, "tool_call", call), this.#event(id, "pending", { request })];
      });
      for (const emit of emits) {
        emit();
      }
      await hops(this.env, { runId: id, requestId, status: "open", request });
    } else if (row?.status === "decided") {
      const decision = this.sql
        .exec("SELECT decision, at FROM decisions WHERE request_id = ?", row.request_id)
        .one();
      const emits = this.ctx.storage.transactionSync(() => {
        const resumed = this.#event(id, "resumed", { requestId: row.request_id });
        this.#message(id, {
          role: "tool",
          tool_call_id: `call_${row.request_id}`,
          content: '{"refunded":true}',
        });
        const result = this.#event(id, "tool_result", {
          requestId: row.request_id,
          result: { refunded: true },
        });
        const text = "Refunded $120 on order 42.";
        this.#message(id, { role: "assistant", content: text });
        this.sql.exec("UPDATE runs SET status = 'done' WHERE id = ?", id);
        return [
          resumed,
          result,
          this.#event(id, "text", { delta: text }),
          this.#event(id, "done", { status: "done", text }),
        ];
      });
      for (const emit of emits) {
        emit();
      }
      const receipt = await signReceipt(this.env, {
        runId: id,
        requestId: row.request_id,
        decision: decision.decision,
        at: decision.at,
      });
      await hops(this.env, { runId: id, requestId: row.request_id, status: "decided", receipt });
    }
  }

  #emit(seq, type, text) {
    for (const write of this.listeners) {
      write(seq, type, text);
    }
  }

  /** Server-Sent Events: the log after `Last-Event-ID`, then live until `done`. */
  async fetch(request) {
    const id = new URL(request.url).searchParams.get("id");
    const after = Number(request.headers.get("last-event-id") ?? 0);
    let controller;
    const readable = new ReadableStream({ start: (c) => (controller = c) });
    const write = (seq, type, text) => {
      controller.enqueue(encoder.encode(`id: ${seq}\nevent: ${type}\ndata: ${text}\n\n`));
      if (type === "done") {
        this.listeners.delete(write);
        controller.close();
      }
    };
    controller.enqueue(encoder.encode(": connected\n\n"));
    const backlog = this.sql
      .exec("SELECT id, type, data FROM events WHERE run_id = ? AND id > ? ORDER BY id", id, after)
      .toArray();
    this.listeners.add(write);
    for (const e of backlog) {
      write(e.id, e.type, e.data);
    }
    return new Response(readable, { headers: { "content-type": "text/event-stream" } });
  }
}

/** The approver group's inbox: one row per request, upserted as it opens and is decided. */
export class FloorInbox extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS items (key TEXT PRIMARY KEY, status TEXT NOT NULL, body TEXT NOT NULL)",
    );
  }

  apply(item) {
    this.ctx.storage.transactionSync(() =>
      this.ctx.storage.sql.exec(
        "INSERT INTO items (key, status, body) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET status = excluded.status, body = excluded.body",
        `${item.runId}/${item.requestId}`,
        item.status,
        JSON.stringify(item),
      ),
    );
  }
}

/** Every receipt, and which runs wait (the product's receipts object holds both). */
export class FloorReceipts extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec(`
      CREATE TABLE IF NOT EXISTS receipts (pos INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, jws TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS pending (run_id TEXT PRIMARY KEY, version TEXT NOT NULL);`);
  }

  pending(runId, version) {
    this.ctx.storage.transactionSync(() =>
      this.ctx.storage.sql.exec(
        "INSERT OR REPLACE INTO pending (run_id, version) VALUES (?, ?)",
        runId,
        version,
      ),
    );
  }

  accept(runId, jws) {
    this.ctx.storage.transactionSync(() => {
      this.ctx.storage.sql.exec("DELETE FROM pending WHERE run_id = ?", runId);
      this.ctx.storage.sql.exec("INSERT INTO receipts (run_id, jws) VALUES (?, ?)", runId, jws);
    });
  }
}

async function hops(env, item) {
  await env.INBOX.get(env.INBOX.idFromName("support")).apply(item);
  const receipts = env.RECEIPTS.get(env.RECEIPTS.idFromName("receipts"));
  if (item.status === "open") {
    await receipts.pending(item.runId, "v1");
  } else {
    await receipts.accept(item.runId, item.receipt);
  }
}

const base64url = (bytes) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

let signingKey;
/** A compact JWS (EdDSA) of the decision; the key is imported once per isolate. */
async function signReceipt(env, claims) {
  signingKey ??= (() => {
    const seed = Uint8Array.from(atob(env.RECEIPT_KEY), (c) => c.charCodeAt(0));
    // PKCS#8 of an Ed25519 private key: this fixed 16-byte header, then the 32-byte seed.
    const header = "302e020100300506032b657004220420"
      .match(/../g)
      .map((h) => Number.parseInt(h, 16));
    const pkcs8 = new Uint8Array([...header, ...seed]);
    return crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, false, ["sign"]);
  })();
  const input = `${base64url(encoder.encode('{"alg":"EdDSA"}'))}.${base64url(encoder.encode(JSON.stringify(claims)))}`;
  const signature = await crypto.subtle.sign("Ed25519", await signingKey, encoder.encode(input));
  return `${input}.${base64url(signature)}`;
}

async function sameSecret(given, expected) {
  const [a, b] = await Promise.all([
    crypto.subtle.digest("SHA-256", encoder.encode(given)),
    crypto.subtle.digest("SHA-256", encoder.encode(expected)),
  ]);
  return crypto.subtle.timingSafeEqual(a, b);
}

async function authorized(request, env) {
  const header = request.headers.get("authorization") ?? "";
  return header.startsWith("Bearer ") && (await sameSecret(header.slice(7), env.API_TOKEN));
}

/** Standard Webhooks: v1,base64(HMAC-SHA256(secret, "id.timestamp.body")), ±5 minutes. */
async function verifiedBody(request, env) {
  const id = request.headers.get("webhook-id");
  const timestamp = Number(request.headers.get("webhook-timestamp"));
  const signatures = (request.headers.get("webhook-signature") ?? "").split(" ");
  const body = await request.text();
  if (!id || !Number.isFinite(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > 300) {
    return undefined;
  }
  const secret = Uint8Array.from(atob(env.WEBHOOK_SECRET.replace(/^whsec_/, "")), (c) =>
    c.charCodeAt(0),
  );
  const key = await crypto.subtle.importKey(
    "raw",
    secret,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(`${id}.${timestamp}.${body}`));
  const expected = encoder.encode(`v1,${btoa(String.fromCharCode(...new Uint8Array(mac)))}`);
  for (const signature of signatures) {
    const given = encoder.encode(signature);
    if (given.length === expected.length && crypto.subtle.timingSafeEqual(given, expected)) {
      return body;
    }
  }
  return undefined;
}

const stub = (env, id) => env.RUNS.get(env.RUNS.idFromName(id));

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (request.method === "POST" && url.pathname === "/v1/decisions") {
      const body = await verifiedBody(request, env);
      if (body === undefined) {
        return json({ error: { code: "bad_signature" } }, 401);
      }
      const { runId, requestId, decision } = JSON.parse(body);
      if (
        typeof runId !== "string" ||
        typeof requestId !== "string" ||
        !["approve", "decline"].includes(decision)
      ) {
        return json({ error: { code: "invalid_request" } }, 400);
      }
      const status = await stub(env, runId).decide(runId, requestId, decision);
      return json({ runId, requestId }, status);
    }
    if (url.pathname === "/v1/runs/none") {
      return json({ error: { code: "run_not_found" } }, 404); // the benchmark's readiness probe
    }
    if (!(await authorized(request, env))) {
      return json({ error: { code: "unauthorized" } }, 401);
    }
    if (request.method === "POST" && url.pathname === "/v1/runs") {
      const { agent, input } = await request.json();
      if (agent !== "support" || typeof input !== "string" || input.length === 0) {
        return json({ error: { code: "invalid_request" } }, 400);
      }
      const id = `run_${crypto.randomUUID().replace(/-/g, "")}`;
      await stub(env, id).start(id, input);
      return json({ runId: id, status: "running" }, 202);
    }
    const events = /^\/v1\/runs\/([^/]+)\/events$/.exec(url.pathname);
    if (request.method === "GET" && events) {
      return stub(env, events[1]).fetch(`https://run/events?id=${encodeURIComponent(events[1])}`, {
        headers: { "last-event-id": request.headers.get("last-event-id") ?? "0" },
      });
    }
    const run = /^\/v1\/runs\/([^/]+)$/.exec(url.pathname);
    if (request.method === "GET" && run) {
      const view = await stub(env, run[1]).view(run[1]);
      return view ? json(view) : json({ error: { code: "run_not_found" } }, 404);
    }
    return json({ error: { code: "not_found" } }, 404);
  },

  async queue(batch, env) {
    for (const message of batch.messages) {
      await stub(env, message.body.id).advance(message.body.id);
      message.ack();
    }
  },
};
