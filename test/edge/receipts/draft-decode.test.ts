/**
 * A stored receipt draft is decoded in durable/storage/ like every other JSON column: the
 * shape the signer relies on is checked, and anything else is refused by name.
 */
import { describe, expect, it } from "vitest";
import { decodeReceiptDraft } from "../../../durable/storage/decode";

describe("decodeReceiptDraft", () => {
  it("gives back the draft the ledger stored", () => {
    const draft = { runId: "th_1.run_1", requestId: "req_1", decision: "approve" };
    expect(decodeReceiptDraft(JSON.stringify(draft))).toEqual(draft);
  });

  it("refuses a row that is not a draft", () => {
    expect(() => decodeReceiptDraft("[1]")).toThrow("stored receipt draft is not a JSON object");
    expect(() => decodeReceiptDraft(JSON.stringify({ requestId: "req_1" }))).toThrow(
      "stored receipt draft has no runId",
    );
    expect(() => decodeReceiptDraft(JSON.stringify({ runId: "th_1.run_1" }))).toThrow(
      "stored receipt draft has no requestId",
    );
  });
});
