/**
 * Issue 22 in the kernel: a vote is bound to the version of the arguments it was cast on
 * (`argsHash`), an edit's added keys count whatever their value, and a closed request
 * refuses everyone before asking who they are.
 */
import { describe, expect, it } from "vitest";
import { argsHash, changedKeys, decideVote, type Request, type Vote } from "../../src/core/index";
import { sha256 } from "../../src/core/sha256";
import { canonicalJson } from "../../src/core/canonical-json";

const rules = { group: "finance", quorum: 2, editable: ["amount"] };
const request: Request = {
  id: "apr_1",
  kind: "approval",
  prompt: "Refund $1500 on order 9001?",
  data: { tool: "refund", args: { orderId: "9001", amount: 1500 }, approvers: rules },
};
const base = { request, members: ["ann", "bob", "cy"] };
const at = "2026-01-01T00:00:00.000Z";
const v1 = argsHash({ orderId: "9001", amount: 1500 });
const v2 = argsHash({ orderId: "9001", amount: 9000 });
// bob edited the amount to 9000: his vote is the first (and only live) one for the new version.
const afterEdit: Vote[] = [
  { decidedBy: "ann", decision: "approve", channel: "inbox", argsHash: v1, at, reset: true },
  {
    decidedBy: "bob",
    decision: "approve",
    channel: "inbox",
    args: { orderId: "9001", amount: 9000 },
    argsHash: v2,
    at,
  },
];

describe("argsHash", () => {
  it("is base64url SHA-256 of the canonical JSON, equal to WebCrypto's digest", async () => {
    const samples: unknown[] = [
      {},
      { b: 1, a: [2, { z: null, y: "é" }] },
      { text: "x".repeat(1000), emoji: "🧾", nested: { deep: [[[]]] } },
      "",
      "a".repeat(55),
      "a".repeat(56),
      "a".repeat(64),
    ];
    for (const value of samples) {
      const bytes = new TextEncoder().encode(canonicalJson(value));
      const expected = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
      expect(sha256(bytes)).toEqual(expected);
      const b64 = btoa(String.fromCharCode(...expected))
        .replaceAll("+", "-")
        .replaceAll("/", "_")
        .replace(/=+$/, "");
      expect(argsHash(value)).toBe(b64);
    }
    expect(argsHash({ b: 1, a: 2 })).toBe(argsHash({ a: 2, b: 1 }));
    expect(argsHash({ a: 1 })).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe("votes bound to the arguments' version", () => {
  it("an approval of the version before an edit is args_changed with the current arguments", () => {
    const out = decideVote({
      ...base,
      votes: afterEdit,
      vote: { decidedBy: "ann", decision: "approve", argsHash: v1 },
    });
    expect(out).toEqual({
      outcome: "refused",
      code: "args_changed",
      message: expect.stringContaining("apr_1"),
      votes: 1,
      needed: 2,
      current: { args: { orderId: "9001", amount: 9000 }, argsHash: v2 },
    });
  });

  it("an approval without a version once the arguments were edited is args_changed", () => {
    const out = decideVote({
      ...base,
      votes: afterEdit,
      vote: { decidedBy: "cy", decision: "approve" },
    });
    expect(out).toMatchObject({ outcome: "refused", code: "args_changed" });
  });

  it("the current version counts; an unedited request needs no version", () => {
    expect(
      decideVote({
        ...base,
        votes: afterEdit,
        vote: { decidedBy: "ann", decision: "approve", argsHash: v2 },
      }),
    ).toMatchObject({ outcome: "applied", votes: 2, argsHash: v2 });
    expect(
      decideVote({ ...base, votes: [], vote: { decidedBy: "ann", decision: "approve" } }),
    ).toMatchObject({ outcome: "waiting", votes: 1, argsHash: v1 });
    expect(
      decideVote({
        ...base,
        votes: [],
        vote: { decidedBy: "ann", decision: "approve", argsHash: v2 },
      }),
    ).toMatchObject({ code: "args_changed" });
  });

  it("declines and cancels need no version", () => {
    expect(
      decideVote({ ...base, votes: afterEdit, vote: { decidedBy: "cy", decision: "decline" } }),
    ).toMatchObject({ outcome: "applied", answer: { ok: false, reason: "declined" } });
  });

  it("an edit of an edited request must name the version it edits", () => {
    const edit = { orderId: "9001", amount: 100 };
    expect(
      decideVote({
        ...base,
        votes: afterEdit,
        vote: { decidedBy: "ann", decision: "approve", args: edit, argsHash: v1 },
      }),
    ).toMatchObject({ code: "args_changed" });
    expect(
      decideVote({
        ...base,
        votes: afterEdit,
        vote: { decidedBy: "ann", decision: "approve", args: edit, argsHash: v2 },
      }),
    ).toMatchObject({
      outcome: "waiting",
      votes: 1,
      argsHash: argsHash(edit),
      edit: { args: edit },
    });
  });

  it("the order of checks: 403 before args_changed, args_changed before a bad edit", () => {
    expect(
      decideVote({
        ...base,
        votes: afterEdit,
        vote: { decidedBy: "eve", decision: "approve", argsHash: v1 },
      }),
    ).toMatchObject({ code: "not_an_approver" });
    expect(
      decideVote({
        ...base,
        votes: afterEdit,
        vote: {
          decidedBy: "cy",
          decision: "approve",
          argsHash: v1,
          args: { orderId: "1", amount: 9000 },
        },
      }),
    ).toMatchObject({ code: "args_changed" });
  });
});

describe("edits: added keys count whatever their value", () => {
  it.each([
    ["null", { extra: null }],
    ["constructor", { constructor: 1 }],
    ["toString", { toString: "x" }],
    ["valueOf", { valueOf: null }],
    ["approvers", { approvers: null }],
  ])("an added %s key is not editable", (_name, added) => {
    const out = decideVote({
      ...base,
      votes: [],
      vote: {
        decidedBy: "ann",
        decision: "approve",
        args: { orderId: "9001", amount: 5000, ...added },
      },
    });
    expect(out).toMatchObject({ outcome: "refused", code: "not_editable" });
  });

  it("changedKeys reads own keys only", () => {
    expect(changedKeys({}, { extra: null })).toEqual(["extra"]);
    expect(changedKeys({ a: null }, {})).toEqual(["a"]);
    expect(changedKeys({}, JSON.parse('{"constructor":{}}'))).toEqual(["constructor"]);
    expect(changedKeys({ a: 1 }, { a: 1 })).toEqual([]);
  });
});

describe("a closed request refuses everyone first", () => {
  const closed = { code: "request_expired" as const, message: "request apr_1 expired" };

  it("an outsider and the requester get request_expired, not 403", () => {
    for (const who of ["eve", "cy"]) {
      expect(
        decideVote({
          ...base,
          requestedBy: "cy",
          votes: [],
          vote: { decidedBy: who, decision: "approve" },
          closed,
        }),
      ).toMatchObject({ outcome: "refused", code: "request_expired" });
    }
  });

  it("a member's identical repeat of a vote cast before is still a duplicate", () => {
    const votes: Vote[] = [
      { decidedBy: "ann", decision: "approve", channel: "inbox", argsHash: v1, at },
    ];
    expect(
      decideVote({ ...base, votes, vote: { decidedBy: "ann", decision: "approve" }, closed }),
    ).toMatchObject({ code: "duplicate" });
    expect(
      decideVote({ ...base, votes, vote: { decidedBy: "ann", decision: "decline" }, closed }),
    ).toMatchObject({ code: "request_expired" });
  });
});
