// A 2026-07-28 server that asks two things at once (test/fixtures/modern-mcp.ts,
// `update_contact`): each is a durable request of the run, all open at once and answered in any
// order; the thread object is evicted between answers; the call is sent again once, with both responses and the
// server's requestState byte for byte. A declined request is sent back as `decline`, and the
// question not asked yet as `cancel`.
import { describe, expect, it } from "vitest";
import { abortAllDurableObjects } from "cloudflare:test";
import { getRun, signedDecision, startRun, waitForStatus } from "../helpers/edge";
import { CONTACT_AGENT, CONTACT_STATE, modernCrmState } from "../fixtures/modern-mcp";
import { sqlIn, threadOfRun } from "../helpers/durable";

/** The run's inbox rows (request id → status), as the thread object's outbox wrote them. */
async function inboxRows(runId: string): Promise<Record<string, unknown>> {
  const rows = await sqlIn(
    threadOfRun(runId),
    "SELECT request_id, status FROM inbox_requests WHERE run_id = ?",
    runId,
  );
  return Object.fromEntries(rows.map((row) => [row.request_id, row.status]));
}

async function nextPending(runId: string, after: string) {
  for (let i = 0; i < 200; i++) {
    const run = await getRun(runId);
    if (run.status === "pending" && run.pending && run.pending.id !== after) {
      return run;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`run ${runId} did not ask again`);
}

describe("MCP client 2026-07-28 at the edge: several input requests at once", () => {
  it("each input is a request; both answered (object evicted in between), the call is sent once with both", async () => {
    const mark = modernCrmState.calls.length;
    const { runId } = await startRun({ agent: CONTACT_AGENT, input: "Update my contact" });
    const first = await waitForStatus(runId, ["pending"]);
    expect(first.pending).toMatchObject({
      kind: "input",
      prompt: "What is the new phone?",
      data: { mcpInput: { key: "phone", requestState: CONTACT_STATE } },
    });
    await abortAllDurableObjects();
    const phone = await signedDecision({
      runId,
      requestId: first.pending!.id,
      decision: "approve",
      data: { phone: "555-0100" },
      decidedBy: "ann@example.com",
    });
    expect(phone.status).toBe(202);
    const second = await nextPending(runId, first.pending!.id);
    expect(second.pending).toMatchObject({ kind: "input", prompt: "What is the new email?" });
    // Nothing was sent to the server for the first answer alone.
    expect(modernCrmState.calls.slice(mark)).toHaveLength(1);

    await abortAllDurableObjects();
    const email = await signedDecision({
      runId,
      requestId: second.pending!.id,
      decision: "approve",
      data: { email: "ann@example.com" },
      decidedBy: "ann@example.com",
    });
    expect(email.status).toBe(202);
    const done = await waitForStatus(runId, ["done", "failed", "incomplete"]);
    expect(done.status).toBe("done");
    expect(done.text).toBe(
      'Result: phone: {"phone":"555-0100"}; email: {"email":"ann@example.com"}',
    );
    const calls = modernCrmState.calls.slice(mark);
    expect(calls).toHaveLength(2);
    expect(calls[1]).toMatchObject({
      requestState: CONTACT_STATE,
      inputResponses: {
        phone: { action: "accept", content: { phone: "555-0100" } },
        email: { action: "accept", content: { email: "ann@example.com" } },
      },
    });
  });

  it("both inputs are pending at once and answered in reverse order (evicted in between): one retry with both", async () => {
    const mark = modernCrmState.calls.length;
    const { runId } = await startRun({ agent: CONTACT_AGENT, input: "Update my contact" });
    const halted = await waitForStatus(runId, ["pending"]);
    // Both requests are open together, each its own request of the run.
    const open = (halted as any).openRequests as Array<{ id: string; prompt: string }>;
    expect(open.map((r) => r.prompt)).toEqual(["What is the new phone?", "What is the new email?"]);
    expect(open[0]!.id).toBe(halted.pending!.id);
    const phone = open[0]!;
    const email = open[1]!;
    // Both surfaced at once: each is open in the inbox.
    expect(await inboxRows(runId)).toEqual({ [phone.id]: "open", [email.id]: "open" });

    await abortAllDurableObjects();
    const second = await signedDecision({
      runId,
      requestId: email.id,
      decision: "approve",
      data: { email: "ann@example.com" },
      decidedBy: "ann@example.com",
    });
    expect(second.status).toBe(202);
    // Applied at once: the call waits on the phone alone (same request), nothing was sent.
    for (let i = 0; i < 200; i++) {
      const run = await getRun(runId);
      if (run.status === "pending" && !(run as any).openRequests) {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const waiting = await getRun(runId);
    expect(waiting.status).toBe("pending");
    expect(waiting.pending!.id).toBe(phone.id);
    expect((waiting as any).openRequests).toBeUndefined();
    expect(modernCrmState.calls.slice(mark)).toHaveLength(1);

    await abortAllDurableObjects();
    const first = await signedDecision({
      runId,
      requestId: phone.id,
      decision: "approve",
      data: { phone: "555-0100" },
      decidedBy: "ann@example.com",
    });
    expect(first.status).toBe(202);
    const done = await waitForStatus(runId, ["done", "failed", "incomplete"]);
    expect(done.status).toBe("done");
    const calls = modernCrmState.calls.slice(mark);
    expect(calls).toHaveLength(2);
    expect(calls[1]).toMatchObject({
      requestState: CONTACT_STATE,
      inputResponses: {
        phone: { action: "accept", content: { phone: "555-0100" } },
        email: { action: "accept", content: { email: "ann@example.com" } },
      },
    });
  });

  it("declining the second input first sends decline for it and cancel for the first, at once", async () => {
    const mark = modernCrmState.calls.length;
    const { runId } = await startRun({ agent: CONTACT_AGENT, input: "Update my contact" });
    const halted = await waitForStatus(runId, ["pending"]);
    const email = ((halted as any).openRequests as Array<{ id: string }>)[1]!;
    const declined = await signedDecision({
      runId,
      requestId: email.id,
      decision: "decline",
      decidedBy: "ann@example.com",
    });
    expect(declined.status).toBe(202);
    const done = await waitForStatus(runId, ["done", "failed", "incomplete"]);
    expect(done.status).toBe("done");
    const calls = modernCrmState.calls.slice(mark);
    expect(calls).toHaveLength(2);
    expect(calls[1]).toEqual(
      expect.objectContaining({
        requestState: CONTACT_STATE,
        inputResponses: { phone: { action: "cancel" }, email: { action: "decline" } },
      }),
    );
    // The phone request closed with its call (before the run ended): nobody is left looking at it.
    const phone = ((halted as any).openRequests as Array<{ id: string }>)[0]!;
    const [row] = await sqlIn(
      threadOfRun(runId),
      "SELECT status, item FROM inbox_requests WHERE request_id = ?",
      phone.id,
    );
    expect(row?.status).toBe("decided");
    expect(JSON.parse(String(row?.item)).decision).toMatchObject({
      outcome: "cancelled",
      reason: "the call ended without it (another of its requests was refused)",
    });
  });

  it("a declined input is sent as decline, the rest as cancel, and the model hears it", async () => {
    const mark = modernCrmState.calls.length;
    const { runId } = await startRun({ agent: CONTACT_AGENT, input: "Update my contact" });
    const first = await waitForStatus(runId, ["pending"]);
    const declined = await signedDecision({
      runId,
      requestId: first.pending!.id,
      decision: "decline",
      decidedBy: "ann@example.com",
    });
    expect(declined.status).toBe(202);
    const done = await waitForStatus(runId, ["done", "failed", "incomplete"]);
    expect(done.status).toBe("done");
    const calls = modernCrmState.calls.slice(mark);
    expect(calls).toHaveLength(2);
    expect(calls[1]).toEqual(
      expect.objectContaining({
        requestState: CONTACT_STATE,
        inputResponses: { phone: { action: "decline" }, email: { action: "cancel" } },
      }),
    );
    expect(done.text).toContain("phone: decline; email: cancel");
  });
});
