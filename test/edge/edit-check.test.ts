// Edited arguments are checked against the tool as the agent defines it (issue 22 item 4):
// a key outside the tool's input schema is 400, even where the schema leaves extra keys open.
import { describe, expect, it } from "vitest";
import { checkEdit } from "../../durable/ledger/edit-check";
import { defineAgent } from "../../src/edge/agent";
import { defineTool } from "../../src/core/tools/define";
import { requireApproval } from "../../src/core/tools/approval";
import type { Request } from "../../src/core/types";

// A JSON-Schema tool that, like many hand-written ones, does not close its object.
const transfer = requireApproval(
  defineTool({
    name: "transfer",
    description: "Move money",
    inputSchema: {
      type: "object",
      properties: { to: { type: "string" }, amount: { type: "number" } },
      required: ["to", "amount"],
    },
    run: () => "moved",
  }),
  { approvers: { group: "finance", editable: true } },
);
const agent = defineAgent({
  name: "bank",
  description: "Moves money",
  systemPrompt: "You move money.",
  tools: [transfer],
});
const request: Request = {
  id: "apr_1",
  kind: "approval",
  prompt: "Transfer?",
  data: {
    tool: "transfer",
    args: { to: "ann", amount: 10 },
    approvers: { group: "finance", editable: true },
  },
};

describe("checkEdit", () => {
  it("refuses keys the input schema does not have, whatever their value", async () => {
    for (const extra of [{ approvers: null }, { constructor: 1 }, { note: "x" }]) {
      const refused = await checkEdit({
        agent,
        env: {},
        request,
        args: { to: "ann", amount: 20, ...extra },
      });
      expect(refused, JSON.stringify(extra)).toMatchObject({
        ok: false,
        code: "invalid_args",
      });
    }
  });

  it("accepts an edit of keys the schema has", async () => {
    expect(
      await checkEdit({ agent, env: {}, request, args: { to: "bob", amount: 20 } }),
    ).toBeUndefined();
  });
});
