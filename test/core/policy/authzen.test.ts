// The AuthZEN 1.0 client (issue 43): the request it POSTs and how it reads the PDP's answer;
// anything but a well-formed answer is PolicyUnavailable (the caller falls back).
import { describe, expect, it } from "vitest";
import {
  authzenPolicy,
  parseAuthzenAnswer,
  PolicyUnavailable,
} from "../../../src/core/policy/authzen";
import { accessEvaluation } from "../../../src/core/policy/evaluation";

const evaluation = accessEvaluation({
  agent: "support",
  tool: "refund_order",
  args: { orderId: "1", amount: 6000 },
  context: { runId: "run_1", threadId: "th_1", agentVersion: "v1" },
});

describe("authzenPolicy", () => {
  it("POSTs the evaluation to <url>/access/v1/evaluation with the bearer token", async () => {
    const seen: Array<{ url: string; init: RequestInit }> = [];
    const policy = authzenPolicy({
      url: "https://pdp.test/base/",
      token: "s3cret",
      fetch: async (url, init) => {
        seen.push({ url: String(url), init: init ?? {} });
        return Response.json({ decision: false, context: { reason: "over limit" } });
      },
    });
    expect(await policy.evaluate(evaluation)).toEqual({ decision: "deny", reason: "over limit" });
    expect(seen[0]?.url).toBe("https://pdp.test/base/access/v1/evaluation");
    expect(seen[0]?.init.method).toBe("POST");
    expect((seen[0]?.init.headers as Record<string, string> | undefined)?.authorization).toBe(
      "Bearer s3cret",
    );
    expect(JSON.parse(String(seen[0]?.init.body))).toEqual(evaluation);
    expect(policy.id).toBe("authzen");
    expect(policy.version).toMatch(/^[0-9a-f]{8}$/);
  });

  it("is unavailable on a non-2xx, a body that is not JSON, or no answer in time", async () => {
    const answering = (response: () => Response | Promise<Response>) =>
      authzenPolicy({ url: "https://pdp.test", timeoutMs: 30, fetch: async () => response() });
    await expect(
      answering(() => new Response("no", { status: 500 })).evaluate(evaluation),
    ).rejects.toThrow(new PolicyUnavailable("the PDP answered HTTP 500"));
    await expect(answering(() => new Response("<html>")).evaluate(evaluation)).rejects.toThrow(
      /not JSON/,
    );
    const slow = authzenPolicy({
      url: "https://pdp.test",
      timeoutMs: 20,
      fetch: (_url, init) =>
        new Promise((_resolve, reject) =>
          init?.signal?.addEventListener("abort", () => reject(new Error("aborted"))),
        ),
    });
    await expect(slow.evaluate(evaluation)).rejects.toThrow(/did not answer within 20 ms/);
  });
});

describe("parseAuthzenAnswer", () => {
  it("reads allow, deny with a reason, and ask", () => {
    expect(parseAuthzenAnswer({ decision: true })).toEqual({ decision: "allow" });
    expect(parseAuthzenAnswer({ decision: false })).toEqual({ decision: "deny", reason: "denied" });
    expect(
      parseAuthzenAnswer({ decision: false, context: { reason_user: { "en-US": "too much" } } }),
    ).toEqual({ decision: "deny", reason: "too much" });
    expect(
      parseAuthzenAnswer({ decision: true, context: { ask: { groups: ["finance"], quorum: 2 } } }),
    ).toEqual({ decision: "ask", ask: { groups: ["finance"], quorum: 2 } });
  });

  it("refuses any other shape", () => {
    for (const body of [
      null,
      {},
      { decision: "yes" },
      { decision: true, context: "x" },
      { decision: true, context: { ask: { groups: ["a", "b"] } } },
      { decision: true, context: { ask: { quorum: 2 } } },
      { decision: true, context: { ask: { groups: ["finance"], quorum: 0 } } },
      { decision: true, context: { ask: { group: "finance" } } },
    ]) {
      expect(() => parseAuthzenAnswer(body), JSON.stringify(body)).toThrow(PolicyUnavailable);
    }
  });
});
