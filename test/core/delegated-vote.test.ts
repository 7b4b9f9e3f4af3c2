// Issue 42: a vote cast on behalf of someone (a delegation the host checked) takes their seat
// in the pure vote rule: eligibility and own request are checked for the person and the seat,
// and one person, like one seat, votes once — so a delegate and the member they stand for
// never make two of a quorum.
import { describe, expect, it } from "vitest";
import { decideVote, type Request, type Vote } from "../../src/core";

const request = (rules: Record<string, unknown>) =>
  ({
    id: "apr_1",
    kind: "approval",
    prompt: "Refund?",
    data: { tool: "refund", args: { amount: 5 }, approvers: rules },
  }) satisfies Request;

const vote = (decidedBy: string, extra: Partial<Vote> = {}): Vote => ({
  decidedBy,
  decision: "approve",
  channel: "webhook",
  at: "2026-01-01T00:00:00.000Z",
  ...extra,
});

const members = ["ann", "bob", "carol"];
const quorum2 = request({ group: "g", quorum: 2 });

describe("decideVote on behalf of a member", () => {
  it("a delegate outside the group votes in the member's seat", () => {
    const out = decideVote({
      request: quorum2,
      members,
      votes: [],
      vote: { decidedBy: "lead", onBehalfOf: "ann", decision: "approve" },
    });
    expect(out).toMatchObject({ outcome: "waiting", votes: 1, needed: 2 });
    // Standing in for someone who may not decide gives nothing.
    const outsider = decideVote({
      request: quorum2,
      members,
      votes: [],
      vote: { decidedBy: "lead", onBehalfOf: "zed", decision: "approve" },
    });
    expect(outsider).toMatchObject({ outcome: "refused", code: "not_an_approver" });
  });

  it("the member after their delegate, or the delegate after the member: the seat's repeat, not a second vote", () => {
    const afterDelegate = decideVote({
      request: quorum2,
      members,
      votes: [vote("lead", { onBehalfOf: "ann" })],
      vote: { decidedBy: "ann", decision: "approve" },
    });
    expect(afterDelegate).toMatchObject({ outcome: "refused", code: "duplicate", votes: 1 });
    const afterMember = decideVote({
      request: quorum2,
      members,
      votes: [vote("ann")],
      vote: { decidedBy: "lead", onBehalfOf: "ann", decision: "approve" },
    });
    expect(afterMember).toMatchObject({ outcome: "refused", code: "duplicate", votes: 1 });
    const changedMind = decideVote({
      request: quorum2,
      members,
      votes: [vote("lead", { onBehalfOf: "ann" })],
      vote: { decidedBy: "ann", decision: "decline" },
    });
    expect(changedMind).toMatchObject({ outcome: "refused", code: "conflicting_vote" });
  });

  it("one person counts once however many they stand in for", () => {
    const again = decideVote({
      request: quorum2,
      members,
      votes: [vote("lead", { onBehalfOf: "ann" })],
      vote: { decidedBy: "lead", onBehalfOf: "carol", decision: "approve" },
    });
    expect(again).toMatchObject({ outcome: "refused", code: "duplicate", votes: 1 });
  });

  it("own request: neither the delegate's nor the one of the member they stand for", () => {
    const asked = (requestedBy: string) =>
      decideVote({
        request: quorum2,
        members,
        requestedBy,
        votes: [],
        vote: { decidedBy: "lead", onBehalfOf: "ann", decision: "approve" },
      });
    expect(asked("ann")).toMatchObject({ outcome: "refused", code: "own_request" });
    expect(asked("lead")).toMatchObject({ outcome: "refused", code: "own_request" });
    expect(asked("bob")).toMatchObject({ outcome: "waiting" });
  });
});
