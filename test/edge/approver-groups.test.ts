// Approver groups (docs/architecture.md §6 "Groups"): parsing, identities, code over env, config errors.
import { describe, expect, it } from "vitest";
import { ConfigError, settings } from "../../src/edge/settings";
import { isConfusable, parseApproverGroups } from "../../src/edge/approvals/groups";

const FINANCE = {
  finance: {
    members: ["Ann@Example.com", { id: "bob", identities: ["bob@example.com", "slack:T1/U2"] }],
    slack: { channel: "C0123" },
  },
};

describe("approver groups", () => {
  it("parses members, identities and the slack channel; a bare array means members", () => {
    const groups = parseApproverGroups(
      { ...FINANCE, leads: ["carol@example.com"] },
      "APPROVER_GROUPS",
    );
    expect(groups.get("finance")).toEqual({
      name: "finance",
      members: [
        { id: "ann@example.com", identities: [] },
        { id: "bob", identities: ["bob@example.com", "slack:T1/U2"] },
      ],
      slack: { channel: "C0123" },
    });
    expect(groups.get("leads")?.members).toEqual([{ id: "carol@example.com", identities: [] }]);
  });

  it("resolves every identity of a member to one id; emails case-insensitively", () => {
    const dir = settings({ APPROVER_GROUPS: JSON.stringify(FINANCE) }).approvers();
    expect(dir.memberOf("BOB@example.COM")).toBe("bob");
    expect(dir.memberOf("slack:T1/U2")).toBe("bob");
    expect(dir.memberOf("slack:t1/u2")).toBeUndefined();
    expect(dir.memberOf("bob")).toBe("bob");
    expect(dir.memberOf("ann@example.com")).toBe("ann@example.com");
    expect(dir.memberOf("eve@example.com")).toBeUndefined();
    expect(dir.resolve("Eve@Example.com")).toBe("eve@example.com");
    expect(dir.membersOf("finance")).toEqual(["ann@example.com", "bob"]);
    expect(dir.membersOf("nope")).toBeUndefined();
    expect(dir.groupsOfMember("bob")).toEqual(["finance"]);
  });

  it("identities compare after NFKC; look-alikes of a member are nobody", () => {
    const dir = settings({ APPROVER_GROUPS: JSON.stringify(FINANCE) }).approvers();
    expect(dir.memberOf("\uff41\uff4e\uff4e@example.com")).toBe("ann@example.com"); // full-width
    for (const lookalike of [
      "ann@ex\u0430mple.com", // Cyrillic а
      "\u0430nn@example.com",
      "ann@examp\u04cfe.com", // Cyrillic palochka
      "ann@exam\u03c1le.com", // Greek rho
      "ann\u200b@example.com", // zero-width space
      "ann@example.com\u202e", // right-to-left override
    ]) {
      expect(isConfusable(lookalike), lookalike).toBe(true);
      expect(dir.memberOf(lookalike), lookalike).toBeUndefined();
    }
    // One script throughout is not a look-alike, whatever the script.
    expect(isConfusable("анна@пример.рф")).toBe(false);
    expect(isConfusable("slack:T1/U2")).toBe(false);
  });

  it("a group defining a look-alike identity is a config error", () => {
    expect(() =>
      parseApproverGroups({ finance: ["ann@ex\u0430mple.com"] }, "APPROVER_GROUPS"),
    ).toThrow(/APPROVER_GROUPS\.finance.*mixes scripts/);
  });

  it("code wins over env per group; other env groups stay", () => {
    const env = {
      APPROVER_GROUPS: JSON.stringify({ finance: ["env@example.com"], ops: ["op@example.com"] }),
    };
    const dir = settings(env).approvers({ finance: ["code@example.com"] });
    expect(dir.membersOf("finance")).toEqual(["code@example.com"]);
    expect(dir.membersOf("ops")).toEqual(["op@example.com"]);
  });

  it.each([
    ["not json", /APPROVER_GROUPS is not valid JSON/],
    ["[]", /APPROVER_GROUPS must be an object of groups/],
    ['{"finance": []}', /APPROVER_GROUPS\.finance\.members must be a non-empty list/],
    ['{"finance": [""]}', /APPROVER_GROUPS\.finance\.members\[0\] must be a non-empty string/],
    ['{"finance": [{"identities": ["a@b.c"]}]}', /finance\.members\[0\]\.id must be/],
    [
      '{"finance": [{"id": "a", "email": "a@b.c"}]}',
      /finance\.members\[0\]\.email is not a member setting/,
    ],
    ['{"finance": {"members": ["a"], "slack": {}}}', /finance\.slack must be/],
    ['{"finance": {"members": ["a"], "channel": "C1"}}', /finance\.channel is not a group setting/],
    ['{"bad name": ["a"]}', /group name "bad name"/],
    [
      '{"a": [{"id": "x", "identities": ["p@q.r"]}], "b": [{"id": "y", "identities": ["P@Q.R"]}]}',
      /identity "p@q.r" belongs to two members/,
    ],
  ])("malformed %s ⇒ ConfigError", (text, message) => {
    const env = { APPROVER_GROUPS: text };
    expect(() => settings(env).approvers()).toThrow(ConfigError);
    expect(() => settings(env).approvers()).toThrow(message);
  });

  it("a member listed in two groups is one person", () => {
    const dir = settings({}).approvers({
      a: ["x@y.z"],
      b: [{ id: "x@y.z", identities: ["slack:T/U"] }],
    });
    expect(dir.memberOf("slack:T/U")).toBe("x@y.z");
    expect(dir.groupsOfMember("x@y.z")).toEqual(["a", "b"]);
  });

  it("a rule naming an undefined group is a config error naming agent, tool and group", () => {
    const dir = settings({}).approvers(FINANCE);
    expect(() =>
      dir.checkRules(
        { group: "finance", escalate: { after: "30m", to: "managers" } },
        {
          agent: "support",
          tool: "delete_account",
        },
      ),
    ).toThrow(/agent "support", tool "delete_account": approver group "managers" is not defined/);
    expect(() => dir.checkRules({ group: "finance" }, { agent: "a", tool: "t" })).not.toThrow();
  });
});
