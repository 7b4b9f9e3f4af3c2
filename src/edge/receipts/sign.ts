/**
 * Signing receipts as compact JWS (RFC 7515): header `{ alg: "EdDSA", kid }`, payload the
 * receipt's canonical JSON, Ed25519 by WebCrypto. Any JOSE library verifies them against the
 * JWKS (test/edge/receipts checks that `jose` agrees with ours).
 */
import { toBase64Url } from "../approvals/base64url";
import { chainHash, receiptPayload, type Receipt, type ReceiptDraft } from "./receipt";
import type { ReceiptKey } from "./receipt-keys";

const encoder = new TextEncoder();

export async function signReceipt(receipt: Receipt, key: ReceiptKey): Promise<string> {
  const header = toBase64Url(encoder.encode(JSON.stringify({ alg: "EdDSA", kid: key.kid })));
  const payload = toBase64Url(encoder.encode(receiptPayload(receipt)));
  const input = `${header}.${payload}`;
  const signature = await crypto.subtle.sign(
    { name: "Ed25519" },
    key.privateKey,
    encoder.encode(input),
  );
  return `${input}.${toBase64Url(new Uint8Array(signature))}`;
}

/** Where a thread's chain stands: its last receipt. */
export interface ChainHead {
  seq: number;
  jws: string;
}

/** The receipt after `head` (null: the thread's first): `seq` one more, `prev` the hash of its JWS. */
export function nextReceipt(head: ChainHead | null, draft: ReceiptDraft, at: string): Receipt {
  return {
    ...draft,
    v: 1,
    seq: head ? head.seq + 1 : 1,
    at,
    prev: head ? chainHash(head.jws) : null,
  };
}

/**
 * A receipt's time: the later of `now` and the previous receipt's, so within a thread `at`
 * never goes back and a `since` filter cuts each chain in one place.
 */
export function receiptTime(previousAt: string | null, now: Date): string {
  const at = now.toISOString();
  return previousAt !== null && previousAt > at ? previousAt : at;
}
