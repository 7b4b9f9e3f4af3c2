// The edge against a real wire: the thread object streams from an OpenAI-compatible
// endpoint, so text reaches the event log delta by delta, not only at turn ends.
import { describe, expect, it } from "vitest";
import { api, getRun, signedDecision, startRun, waitForStatus } from "../helpers/edge";

interface Frame {
  id: number;
  event: string;
  data: any;
}

async function readAll(response: Response): Promise<Frame[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((block) => block.includes("event:"))
    .map((block) => {
      const field = (name: string) =>
        block
          .split("\n")
          .find((l) => l.startsWith(`${name}: `))
          ?.slice(name.length + 2) ?? "";
      return { id: Number(field("id")), event: field("event"), data: JSON.parse(field("data")) };
    });
}

/** delete_account has approver rules: a member of support-leads decides. */
const LEAD = "lead@example.com";

describe("streaming at the edge", () => {
  it("appends text deltas as they arrive, suspends mid-conversation, and resumes by decision", async () => {
    const { runId } = await startRun({ agent: "support", input: "Please delete my account" });
    const pending = await waitForStatus(runId, ["pending"]);
    expect(pending.pending?.prompt).toMatch(/Delete this account/);

    expect(
      (
        await signedDecision({
          runId,
          requestId: pending.pending!.id,
          decision: "approve",
          decidedBy: LEAD,
        })
      ).status,
    ).toBe(202);
    const done = await waitForStatus(runId, ["done"]);
    expect(done.text).toBe("All done: Account deleted.");
    expect(done.model).toBe("fake-stream");

    const frames = await readAll(await api(`/v1/runs/${runId}/events`));
    const texts = frames.filter((f) => f.event === "text").map((f) => f.data.delta);
    // Seven deltas before the tool call, the final text in 6-character pieces after it.
    expect(texts.slice(0, 7).join("")).toBe("Let me take care of that.");
    expect(texts.length).toBeGreaterThan(8);
    expect(texts.slice(7).join("")).toBe("All done: Account deleted.");
    const order = frames.map((f) => f.event);
    expect(order.indexOf("tool_call")).toBeGreaterThan(order.indexOf("text"));
    expect(order.indexOf("pending")).toBeLessThan(order.indexOf("resumed"));
    expect(order.at(-1)).toBe("done");
    // Each event once, ids strictly increasing.
    const ids = frames.map((f) => f.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("replays from Last-Event-ID mid-stream without gaps or repeats", async () => {
    const { runId } = await startRun({ agent: "support", input: "delete my account please" });
    const pending = await waitForStatus(runId, ["pending"]);
    await signedDecision({
      runId,
      requestId: pending.pending!.id,
      decision: "decline",
      decidedBy: LEAD,
    });
    await waitForStatus(runId, ["done"]);
    const all = await readAll(await api(`/v1/runs/${runId}/events`));
    const cut = all[3]!.id;
    const rest = await readAll(
      await api(`/v1/runs/${runId}/events`, { headers: { "last-event-id": String(cut) } }),
    );
    expect(rest.map((f) => f.id)).toEqual(all.filter((f) => f.id > cut).map((f) => f.id));
    expect((await getRun(runId)).text).toBe("Understood, I did not delete the account.");
  });
});
