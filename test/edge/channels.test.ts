/**
 * The decision channels are named once (src/edge/protocol.ts CHANNELS) and agree with the
 * kernel's VoteChannel and the API schema: every channel of DESIGN §7, and `version` (issue 30:
 * a newer deploy's version check closes a request it asks again of other approvers), and the
 * approvers' channels of DESIGN §8, `email` and `teams` (issue 45).
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { CHANNELS, type Channel } from "../../src/edge/protocol";
import type { VoteChannel } from "../../src/core/approvers/vote";
import { VoteSchema } from "../../src/edge/http/schemas";

describe("decision channels", () => {
  it("are every channel of DESIGN §7 and version, in the kernel's union and the API's enum alike", () => {
    expect([...CHANNELS].sort()).toEqual(
      [
        "webhook",
        "page",
        "inbox",
        "slack",
        "policy",
        "expiry",
        "oauth",
        "chat",
        "ag-ui",
        "a2a",
        "mcp",
        "version",
        "email",
        "teams",
      ].sort(),
    );
    expectTypeOf<Channel>().toEqualTypeOf<VoteChannel>();
    for (const channel of CHANNELS) {
      const vote = { decidedBy: "ann", decision: "approve", channel, at: "2026-01-01T00:00:00Z" };
      expect(VoteSchema.safeParse(vote).success, channel).toBe(true);
    }
  });
});
