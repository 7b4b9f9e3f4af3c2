/**
 * `toolnexus-edge/client` against the real worker: SELF.fetch is its fetch. Start,
 * stream, decide (signed), resume, cancel, personal approval links, errors, and a stream
 * that drops and is reopened with Last-Event-ID.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ApiRequestError, createApiClient, type RunStreamEvent } from "../../src/api-client";
import { API_TOKEN, BASE, WEBHOOK_SECRET } from "../helpers/edge";

const selfFetch = (request: Request) => SELF.fetch(request);
const api = createApiClient({ baseUrl: BASE, token: API_TOKEN, fetch: selfFetch });

async function collect(events: AsyncIterable<RunStreamEvent>, until?: string) {
  const seen: RunStreamEvent[] = [];
  for await (const event of events) {
    seen.push(event);
    if (event.event === until) {
      break;
    }
  }
  return seen;
}

describe("createApiClient", () => {
  it("lists agents", async () => {
    const { agents } = await api.agents.list();
    expect(agents.map((a) => a.name)).toContain("support");
  });

  it("start → pending → signed approve (repeat is idempotent) → resumes to done", async () => {
    const started = await api.runs.start({ agent: "support", input: "Please delete my account" });
    expect(started.status).toBe("running");

    const upToPending = await collect(api.runs.events(started.runId), "pending");
    const pending = upToPending.at(-1)!;
    const request = (pending.data as { request: { id: string } }).request;

    // delete_account has approver rules: a support lead decides, and says so.
    const decision = {
      runId: started.runId,
      requestId: request.id,
      decision: "approve" as const,
      decidedBy: "lead@example.com",
    };
    const accepted = await api.decisions.send(WEBHOOK_SECRET, decision, { id: "msg_client_1" });
    expect(accepted.duplicate).toBe(false);
    const repeat = await api.decisions.send(WEBHOOK_SECRET, decision, { id: "msg_client_1" });
    expect(repeat.duplicate).toBe(true);

    // Carry on after the last event seen: nothing is repeated, the stream ends at done.
    const rest = await collect(api.runs.events(started.runId, { lastEventId: pending.id }));
    expect(rest.map((e) => e.event)).toContain("resumed");
    expect(rest.at(-1)!.event).toBe("done");
    expect(Number(rest[0]!.id)).toBeGreaterThan(Number(pending.id));

    const run = await api.runs.get(started.runId, { transcript: true });
    expect(run.status).toBe("done");
    expect(run.decisions[0]!.decision).toBe("approve");
    expect(run.transcript?.length).toBeGreaterThan(0);
  });

  it("reopens a dropped stream with Last-Event-ID and misses nothing", async () => {
    const opened: Array<string | null> = [];
    let dropped = false;
    // The first events response is cut after its first event, as a lost connection would.
    const flaky = async (request: Request) => {
      const response = await SELF.fetch(request);
      if (!request.url.endsWith("/events")) {
        return response;
      }
      opened.push(request.headers.get("last-event-id"));
      if (dropped) {
        return response;
      }
      dropped = true;
      // Read this response to its end (the run finishes by itself, so the server closes it) rather
      // than cancelling a live stream, which makes workerd log a PumpToReader stack dump; the
      // client still only sees the first event before the connection fails.
      const text = await response.text();
      const first = text.slice(0, text.indexOf("\n\n", text.indexOf("id: ")) + 2);
      // The first read gets the event; the next one fails (an error in start() would drop the queued chunk).
      let reads = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          reads += 1;
          if (reads === 1) {
            controller.enqueue(new TextEncoder().encode(first));
          } else {
            controller.error(new Error("Network connection lost."));
          }
        },
      });
      return new Response(body, { headers: response.headers });
    };
    const client = createApiClient({ baseUrl: BASE, token: API_TOKEN, fetch: flaky });
    const { runId } = await client.runs.start({
      agent: "support",
      input: "Please refund $20 on order 42",
    });

    const events = await collect(client.runs.events(runId, { reconnectDelayMs: 10 }));
    expect(opened).toHaveLength(2);
    expect(opened[0]).toBeNull();
    expect(opened[1]).toBe(events[0]!.id);
    expect(events.at(-1)!.event).toBe("done");

    // Exactly the stored log, in order, once each.
    const replay = await collect(api.runs.events(runId));
    expect(events.map((e) => e.id)).toEqual(replay.map((e) => e.id));
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  it("lists a group's approvals, page by page", async () => {
    const { runId } = await api.runs.start({ agent: "support", input: "Please delete my account" });
    await collect(api.runs.events(runId), "pending");
    // The inbox is fed from the thread after the change commits: wait until it shows.
    let found: Awaited<ReturnType<typeof api.approvals.list>>["items"][number] | undefined;
    for (let attempt = 0; attempt < 100 && !found; attempt += 1) {
      // delete_account's rules name support-leads: that group's inbox lists it.
      const page = await api.approvals.list({ group: "support-leads", limit: 200 });
      found = page.items.find((item) => item.runId === runId);
      if (!found) {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    expect(found).toMatchObject({ status: "open", agent: "support", tool: "delete_account" });
    const first = await api.approvals.list({ group: "support-leads", limit: 1 });
    expect(first.items).toHaveLength(1);
    await expect(api.approvals.list({ group: "nobody-here" })).rejects.toMatchObject({
      status: 404,
      code: "group_not_found",
    });
  });

  it("creates an approver's inbox sign-in link", async () => {
    const link = await api.links.inbox({ approver: "ann@example.com" });
    expect(new URL(link.url).origin).toBe(BASE);
    expect(Date.parse(link.expiresAt)).toBeGreaterThan(Date.now());
    const signIn = await SELF.fetch(link.url, { redirect: "manual" });
    expect(signIn.status).toBe(303);
    await expect(api.links.inbox({ approver: "" })).rejects.toMatchObject({ status: 400 });
  });

  it("creates a personal approval link for a member; an outsider gets a typed 403", async () => {
    const { runId } = await api.runs.start({ agent: "support", input: "Please delete my account" });
    const pending = (await collect(api.runs.events(runId), "pending")).at(-1)!;
    const request = (pending.data as { request: { id: string } }).request;
    const before = await api.runs.get(runId);
    // A request with approver rules: delete_account's, for support-leads.
    expect(before.requests.map((r) => r.requestId)).toEqual([request.id]);

    // delete_account's rules name support-leads, whose one member is lead@example.com.
    const link = await api.links.create(runId, {
      requestId: request.id,
      approver: "lead@example.com",
    });
    expect(link.url.startsWith(`${BASE}/approve/p.`)).toBe(true);
    expect(link.expiresAt).toBe(before.expiresAt);
    const page = await SELF.fetch(link.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Deciding as <strong>lead@example.com</strong>");

    const outsider = await api.links
      .create(runId, { requestId: request.id, approver: "eve@example.com" })
      .catch((e: unknown) => e);
    expect(outsider).toBeInstanceOf(ApiRequestError);
    expect(outsider).toMatchObject({ status: 403, code: "not_an_approver" });
    const empty = await api.links
      .create(runId, { requestId: request.id, approver: " " })
      .catch((e: unknown) => e);
    expect(empty).toMatchObject({ status: 400, code: "invalid_body" });
    expect((empty as ApiRequestError).issues?.[0]?.path).toBe("approver");

    // The link decides as the lead: the run resumes to done, and a settled request has no links.
    const decided = await SELF.fetch(link.url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ decision: "approve" }).toString(),
    });
    expect(decided.status).toBe(200);
    const rest = await collect(api.runs.events(runId, { lastEventId: pending.id }));
    expect(rest.at(-1)!.event).toBe("done");
    expect((await api.runs.get(runId)).decisions[0]).toMatchObject({
      decision: "approve",
      decidedBy: "lead@example.com",
    });
    await expect(
      api.links.create(runId, { requestId: request.id, approver: "lead@example.com" }),
    ).rejects.toMatchObject({ status: 409, code: "request_not_pending" });
  });

  it("cancels", async () => {
    const { runId } = await api.runs.start({ agent: "support", input: "Please delete my account" });
    await collect(api.runs.events(runId), "pending");
    const cancelled = await api.runs.cancel(runId);
    expect(cancelled.status).toBe("cancelled");
  });

  it("turns error bodies into ApiRequestError with code and issues", async () => {
    const missing = await api.runs.get("th_nope.run_00000000000000000000").catch((e) => e);
    expect(missing).toBeInstanceOf(ApiRequestError);
    expect(missing).toMatchObject({ status: 404, code: "run_not_found" });

    const invalid = await api.runs
      .start({ agent: "support", input: "" } as never)
      .catch((e: ApiRequestError) => e);
    expect(invalid).toMatchObject({ status: 400, code: "invalid_body" });
    expect((invalid as ApiRequestError).issues?.[0]?.path).toBe("input");

    const unsigned = createApiClient({ baseUrl: BASE, fetch: selfFetch });
    await expect(unsigned.agents.list()).rejects.toMatchObject({ status: 401 });
    const forged = await unsigned.decisions
      .send(`whsec_${btoa("not the secret at all!!!")}`, {
        runId: "th_x.run_00000000000000000000",
        requestId: "apr_1",
        decision: "approve",
      })
      .catch((e: ApiRequestError) => e);
    expect(forged).toMatchObject({ status: 401 });
  });

  it("an events stream of an unknown run is a 404, not retried", async () => {
    const calls: string[] = [];
    const counting = createApiClient({
      baseUrl: BASE,
      token: API_TOKEN,
      fetch: (request) => {
        calls.push(request.url);
        return SELF.fetch(request);
      },
    });
    await expect(
      collect(counting.runs.events("th_nope.run_00000000000000000000")),
    ).rejects.toMatchObject({ status: 404, code: "run_not_found" });
    expect(calls).toHaveLength(1);
  });
});
