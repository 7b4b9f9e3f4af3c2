// Receipts signed and chained in a thread's storage (issue 30 item 3): every one verifies with
// jose against the JWKS as it does with ours, an edit, a drop or a move breaks the chain, and a
// rotation of RECEIPT_KEY leaves the older receipts verifiable.
import { compactVerify, createLocalJWKSet, decodeProtectedHeader } from "jose";
import { describe, expect, it } from "vitest";
import { argsHash } from "../../../src/core/approvers/args-hash";
import { toBase64Url, fromBase64Url } from "../../../src/edge/approvals/base64url";
import { chainHash, receiptRule, type Receipt } from "../../../src/edge/receipts/receipt";
import { receiptJwks, receiptKeys } from "../../../src/edge/receipts/receipt-keys";
import { ThreadReceipts } from "../../../durable/receipts/thread-receipts";
import { importJwks, verifyReceiptChain } from "../../../src/edge/receipts/verify";
import { draft, SEED_A, SEED_B, withScratchSql } from "./helpers";

const T0 = new Date("2026-07-01T10:00:00.000Z");
const later = (ms: number) => new Date(T0.getTime() + ms);

function payloadOf(jws: string): Receipt {
  const part = jws.split(".")[1] ?? "";
  return JSON.parse(new TextDecoder().decode(fromBase64Url(part) ?? new Uint8Array())) as Receipt;
}

/** A JWS with its payload swapped for `receipt` (signature kept: a forger without the key). */
function withPayload(jws: string, receipt: unknown): string {
  const [header, , signature] = jws.split(".");
  const payload = toBase64Url(new TextEncoder().encode(JSON.stringify(receipt)));
  return `${header}.${payload}.${signature}`;
}

async function threeReceipts(seed = SEED_A): Promise<string[]> {
  const [key] = await receiptKeys(seed);
  return withScratchSql(async (sql) => {
    const receipts = new ThreadReceipts(sql, "th_1");
    receipts.append(draft({ argsHash: argsHash({ orderId: "A1", amount: 1500 }) }), T0);
    receipts.append(
      draft({ requestId: "apr_call_2", decision: "declined", reason: "too much" }),
      later(1000),
    );
    receipts.append(
      draft({
        requestId: "apr_call_3",
        decision: "expired",
        channel: "expiry",
        votes: undefined,
        decidedBy: undefined,
      }),
      later(2000),
    );
    if (!key) {
      throw new Error("no key");
    }
    const signed = await receipts.signPending(key);
    expect(signed.map((s) => s.seq)).toEqual([1, 2, 3]);
    expect(await receipts.signPending(key)).toEqual([]); // nothing left to sign
    return receipts.forRun(draft().runId);
  });
}

describe("thread receipts", () => {
  it("are numbered and chained: seq 1, 2, 3, each prev the hash of the JWS before", async () => {
    const list = await threeReceipts();
    const receipts = list.map(payloadOf);
    expect(receipts.map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(receipts.map((r) => r.prev)).toEqual([
      null,
      chainHash(list[0] ?? ""),
      chainHash(list[1] ?? ""),
    ]);
    expect(receipts[0]).toEqual({
      v: 1,
      seq: 1,
      threadId: "th_1",
      runId: "th_1.run_00000000000000000001",
      requestId: "apr_call_1",
      tool: "refund",
      argsHash: argsHash({ amount: 1500, orderId: "A1" }),
      agentVersion: "v1",
      rule: { group: "finance", quorum: 2 },
      decision: "approved",
      decidedBy: "bob",
      votes: draft().votes,
      channel: "webhook",
      at: "2026-07-01T10:00:00.000Z",
      prev: null,
    });
    expect(receipts[2]).not.toHaveProperty("votes"); // undefined members are left out
  });

  it("verify with jose against the JWKS exactly as with our verifier", async () => {
    const list = await threeReceipts();
    const jwks = receiptJwks(await receiptKeys(SEED_A));
    const keySet = createLocalJWKSet(jwks);
    for (const jws of list) {
      const { payload, protectedHeader } = await compactVerify(jws, keySet, {
        algorithms: ["EdDSA"],
      });
      expect(protectedHeader).toEqual({ alg: "EdDSA", kid: jwks.keys[0]?.kid });
      expect(JSON.parse(new TextDecoder().decode(payload))).toEqual(payloadOf(jws));
    }
    expect(await verifyReceiptChain(list, await importJwks(jwks))).toEqual({
      ok: true,
      receipts: 3,
      threads: 1,
    });
    // Both refuse the same forgery.
    const forged = withPayload(list[1] ?? "", {
      ...payloadOf(list[1] ?? ""),
      decision: "approved",
    });
    await expect(compactVerify(forged, keySet)).rejects.toThrow();
    expect(await verifyReceiptChain([list[0] ?? "", forged], await importJwks(jwks))).toMatchObject(
      {
        ok: false,
        index: 1,
        problem: "the signature does not verify (the receipt was altered)",
      },
    );
  });

  it("are found out when a receipt is dropped, moved, repeated or the tail cut", async () => {
    const list = await threeReceipts();
    const keys = await importJwks(receiptJwks(await receiptKeys(SEED_A)));
    const [a = "", b = "", c = ""] = list;
    expect(await verifyReceiptChain([a, c], keys)).toEqual({
      ok: false,
      index: 1,
      problem: "thread th_1: seq 3 after seq 1 (1 missing, or out of order)",
    });
    expect(await verifyReceiptChain([a, c, b], keys)).toMatchObject({ ok: false, index: 1 });
    expect(await verifyReceiptChain([b, a, c], keys)).toEqual({
      ok: false,
      index: 1,
      problem: "thread th_1: seq 1 after seq 2 (reordered or repeated)",
    });
    expect(await verifyReceiptChain([a, b, b, c], keys)).toMatchObject({ ok: false, index: 2 });
    expect(await verifyReceiptChain([a, b], keys, { expectCount: 3 })).toEqual({
      ok: false,
      index: 2,
      problem: "truncated: 2 receipts, 3 expected (the tail is missing)",
    });
    // An export that starts inside a chain (a `since`, or a later run of the thread) anchors there.
    expect(await verifyReceiptChain([b, c], keys)).toMatchObject({ ok: true, receipts: 2 });
  });

  it("catch a receipt re-signed with the right key but out of its place in the chain", async () => {
    // The service's own key cannot rewrite history unseen either: a replaced receipt breaks prev.
    const [key] = await receiptKeys(SEED_A);
    const list = await threeReceipts();
    const other = await withScratchSql(async (sql) => {
      const receipts = new ThreadReceipts(sql, "th_1");
      // The same first receipt (signing is deterministic: the same JWS), another second one.
      receipts.append(draft({ argsHash: argsHash({ orderId: "A1", amount: 1500 }) }), T0);
      receipts.append(draft({ requestId: "apr_call_2", decision: "approved" }), later(1000));
      if (key) {
        await receipts.signPending(key);
      }
      return receipts.forRun(draft().runId);
    });
    expect(other[0]).toBe(list[0]);
    const keys = await importJwks(receiptJwks(await receiptKeys(SEED_A)));
    const spliced = [list[0] ?? "", other[1] ?? "", list[2] ?? ""];
    expect(await verifyReceiptChain(spliced, keys)).toEqual({
      ok: false,
      index: 2,
      problem: "thread th_1: prev of seq 3 is not the hash of seq 2 (a receipt was replaced)",
    });
  });

  it("keep `at` from going back within a thread, and signing is the same twice", async () => {
    const [key] = await receiptKeys(SEED_A);
    await withScratchSql(async (sql) => {
      const receipts = new ThreadReceipts(sql, "th_1");
      receipts.append(draft(), later(5000));
      expect(receipts.append(draft({ requestId: "apr_call_2" }), T0).at).toBe(
        later(5000).toISOString(),
      );
      if (!key) {
        throw new Error("no key");
      }
      // Two signers at once (a delivery and a read): one chain, each receipt written once.
      const [first, second] = await Promise.all([
        receipts.signPending(key),
        receipts.signPending(key),
      ]);
      expect([...(first ?? []), ...(second ?? [])].map((s) => s.seq).sort()).toEqual([1, 2]);
      const list = receipts.forRun(draft().runId);
      expect(await verifyReceiptChain(list, await importJwks(receiptJwks([key])))).toMatchObject({
        ok: true,
      });
      expect(receipts.count(draft().runId)).toBe(2);
      expect(receipts.count("th_1.run_other")).toBe(0);
    });
  });

  it("stay verifiable after RECEIPT_KEY is rotated (new key first, old one kept)", async () => {
    const [oldKey] = await receiptKeys(SEED_A);
    const rotated = await receiptKeys(`${SEED_B} ${SEED_A}`);
    const list = await withScratchSql(async (sql) => {
      const receipts = new ThreadReceipts(sql, "th_1");
      receipts.append(draft(), T0);
      if (oldKey) {
        await receipts.signPending(oldKey);
      }
      receipts.append(draft({ requestId: "apr_call_2" }), later(1000));
      if (rotated[0]) {
        await receipts.signPending(rotated[0]);
      }
      return receipts.forRun(draft().runId);
    });
    expect(list.map((jws) => decodeProtectedHeader(jws).kid)).toEqual([
      oldKey?.kid,
      rotated[0]?.kid,
    ]);
    const jwks = receiptJwks(rotated);
    expect(await verifyReceiptChain(list, await importJwks(jwks))).toMatchObject({
      ok: true,
      receipts: 2,
    });
    const keySet = createLocalJWKSet(jwks);
    for (const jws of list) {
      await expect(compactVerify(jws, keySet)).resolves.toBeDefined();
    }
    // Dropping the old key from the set is what strands old receipts: said, not silently passed.
    const newOnly = await importJwks(receiptJwks(await receiptKeys(SEED_B)));
    expect(await verifyReceiptChain(list, newOnly)).toMatchObject({
      ok: false,
      index: 0,
      problem: `signed by key ${oldKey?.kid}, which is not in the key set`,
    });
  });

  it("record the request's rule without reminder timing, or null", () => {
    expect(receiptRule(undefined)).toBeNull();
    expect(
      receiptRule({
        group: "finance",
        quorum: 2,
        editable: ["amount"],
        remindEvery: "1h",
        escalate: { after: "2h", to: "cfo" },
      }),
    ).toEqual({ group: "finance", quorum: 2, editable: ["amount"] });
  });
});

describe("undo's receipts (issue 44)", () => {
  it("revoked and compensated receipts chain and verify like the rest; a compensated one without its compensation does not", async () => {
    const [key] = await receiptKeys(SEED_A);
    if (!key) {
      throw new Error("no key");
    }
    const list = await withScratchSql(async (sql) => {
      const receipts = new ThreadReceipts(sql, "th_1");
      receipts.append(draft(), T0);
      receipts.append(
        draft({
          decision: "revoked",
          decidedBy: "carol",
          reason: "revoked by carol",
          votes: undefined,
        }),
        later(1000),
      );
      receipts.append(
        draft({
          requestId: "apr_call_2",
          decision: "compensated",
          decidedBy: "ann",
          reason: "wrong order",
          channel: "undo",
          rule: null,
          votes: undefined,
          compensation: { callId: "call_2", status: "ran" },
        }),
        later(2000),
      );
      await receipts.signPending(key);
      return receipts.forRun(draft().runId);
    });
    expect(list.map((jws) => payloadOf(jws).decision)).toEqual([
      "approved",
      "revoked",
      "compensated",
    ]);
    const keys = await importJwks(receiptJwks(await receiptKeys(SEED_A)));
    expect(await verifyReceiptChain(list, keys)).toEqual({ ok: true, receipts: 3, threads: 1 });

    const bad = await withScratchSql(async (sql) => {
      const receipts = new ThreadReceipts(sql, "th_1");
      receipts.append(draft({ decision: "compensated", channel: "undo" }), T0);
      await receipts.signPending(key);
      return receipts.forRun(draft().runId);
    });
    expect(await verifyReceiptChain(bad, keys)).toMatchObject({
      ok: false,
      index: 0,
      problem: expect.stringMatching(/compensation/),
    });
  });
});
