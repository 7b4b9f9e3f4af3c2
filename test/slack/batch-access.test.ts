// Issue 42 item 1 behind Cloudflare Access (this project sets ACCESS_TEAM_DOMAIN): a browser's
// batch decides as its Access identity (channel inbox; its own x-toolnexus-user is ignored),
// and a write from another site's page is refused before anything is decided.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, getRun } from "../helpers/edge";
import { accessJwt } from "../helpers/access";
import { startPending } from "../helpers/durable";

const batch = (decisions: unknown[], headers: Record<string, string>) =>
  SELF.fetch(`${BASE}/v1/approvals/batch`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ decisions }),
  });

describe("POST /v1/approvals/batch with an Access identity", () => {
  it("decides as the Access user, and refuses another site's page", async () => {
    const { runId, request } = await startPending("Please delete my account"); // support-leads: ann, bob
    const item = { runId, requestId: request.id, decision: "approve", argsHash: request.argsHash };
    const jwt = { "cf-access-jwt-assertion": await accessJwt({ email: "Ann@Example.com" }) };

    const foreign = await batch([item], { ...jwt, origin: "https://evil.test" });
    expect(foreign.status).toBe(403);
    expect((await getRun(runId)).status).toBe("pending");

    const response = await batch([item], { ...jwt, "x-toolnexus-user": "mallory@example.com" });
    expect(response.status).toBe(200);
    const { results } = await response.json<{ results: Array<{ status: number }> }>();
    expect(results[0]?.status).toBe(202);
    const run = await getRun(runId);
    expect(run.decisions[0]).toMatchObject({ decidedBy: "ann", channel: "inbox" });
  });
});
