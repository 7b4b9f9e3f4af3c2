/**
 * The bare pipeline worker, shaped like the product's cycle with nothing else:
 *   POST /v1/runs        → DO write (running)  → queue → DO write (pending)
 *   POST /v1/decisions   → DO write (decided)  → queue → DO write (done)
 *   GET  /v1/runs/:id/events → Server-Sent Events (`pending`, `done`), like the product's.
 *   GET  /v1/runs/:id        → { runId, status, requestId }
 * One Durable Object per run; the run id names it.
 */
import { DurableObject } from "cloudflare:workers";

const json = (body, status = 200) => Response.json(body, { status });

export class BareRun extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(
      "CREATE TABLE IF NOT EXISTS run (id TEXT PRIMARY KEY, status TEXT NOT NULL, request_id TEXT)",
    );
    this.listeners = new Set();
  }

  status(id) {
    return this.sql.exec("SELECT status FROM run WHERE id = ?", id).toArray()[0]?.status;
  }

  view(id) {
    const row = this.sql.exec("SELECT status, request_id FROM run WHERE id = ?", id).toArray()[0];
    return row && { runId: id, status: row.status, requestId: row.request_id };
  }

  async start(id) {
    this.sql.exec("INSERT INTO run (id, status) VALUES (?, 'running')", id);
    await this.env.STEP_QUEUE.send({ id });
  }

  async decide(id, requestId) {
    const status = this.status(id);
    if (status !== "pending") {
      return status === undefined ? 404 : 409;
    }
    this.sql.exec(
      "UPDATE run SET status = 'decided' WHERE id = ? AND request_id = ?",
      id,
      requestId,
    );
    await this.env.STEP_QUEUE.send({ id });
    return 202;
  }

  /** The queue hop's write: running → pending (with a request id), decided → done. */
  advance(id) {
    const status = this.status(id);
    if (status === "running") {
      const requestId = `req_${crypto.randomUUID()}`;
      this.sql.exec(
        "UPDATE run SET status = 'pending', request_id = ? WHERE id = ?",
        requestId,
        id,
      );
      this.#emit("pending", { request: { id: requestId, kind: "approval", prompt: "Approve?" } });
    } else if (status === "decided") {
      this.sql.exec("UPDATE run SET status = 'done' WHERE id = ?", id);
      this.#emit("done", { status: "done" });
    }
  }

  #emit(type, data) {
    for (const write of this.listeners) {
      write(type, data);
    }
  }

  async fetch(request) {
    const id = new URL(request.url).searchParams.get("id");
    const { readable, writable } = new TransformStream();
    const writer = writable.getWriter();
    const encoder = new TextEncoder();
    let n = 0;
    const write = (type, data) => {
      writer
        .write(encoder.encode(`id: ${++n}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`))
        .catch(() => {});
      if (type === "done") {
        this.listeners.delete(write);
        writer.close().catch(() => {});
      }
    };
    writer.write(encoder.encode(": connected\n\n"));
    const row = this.sql.exec("SELECT status, request_id FROM run WHERE id = ?", id).toArray()[0];
    if (row?.status === "pending") {
      write("pending", { request: { id: row.request_id, kind: "approval", prompt: "Approve?" } });
    }
    if (row?.status === "done") {
      write("done", { status: "done" });
    } else {
      this.listeners.add(write);
    }
    return new Response(readable, { headers: { "content-type": "text/event-stream" } });
  }
}

const stub = (env, id) => env.RUNS.get(env.RUNS.idFromName(id));

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (request.method === "POST" && url.pathname === "/v1/runs") {
      const id = `run_${crypto.randomUUID().replace(/-/g, "")}`;
      await stub(env, id).start(id);
      return json({ runId: id, status: "running" }, 202);
    }
    if (request.method === "POST" && url.pathname === "/v1/decisions") {
      const body = await request.json();
      const status = await stub(env, body.runId).decide(body.runId, body.requestId);
      return json({ runId: body.runId, requestId: body.requestId }, status);
    }
    const events = /^\/v1\/runs\/([^/]+)\/events$/.exec(url.pathname);
    if (request.method === "GET" && events) {
      return stub(env, events[1]).fetch(`https://run/events?id=${encodeURIComponent(events[1])}`);
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
