/**
 * Checking receipts without trusting the service (docs/receipts.md): each JWS against the
 * published keys, and each thread's chain — `seq` counts up by one and `prev` is the hash of
 * the receipt before — so a receipt edited, dropped inside a chain or moved is found, and a
 * truncated tail is found against the count the service reports. Web-standard APIs only: the
 * worker and the `toolnexus-edge verify-receipts` CLI share it.
 */
import { sha256 } from "../../core/schema/sha256";
import { fromBase64Url, toBase64Url } from "../approvals/base64url";
import { receiptPolicyProblem } from "../policy/receipt-policy";
import { chainHash, type Receipt } from "./receipt";

export interface ReceiptJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  kid: string;
  alg?: "EdDSA";
  use?: "sig";
}

export interface ReceiptJwks {
  keys: ReceiptJwk[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** RFC 7638 thumbprint of an Ed25519 public key: SHA-256 of `{"crv","kty","x"}` in that order. */
export function jwkThumbprint(x: string): string {
  return toBase64Url(sha256(encoder.encode(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`)));
}

/** Public keys by `kid`, ready to verify; keys that are not Ed25519 signing keys are skipped. */
export async function importJwks(jwks: unknown): Promise<Map<string, CryptoKey>> {
  const list = (jwks as { keys?: unknown })?.keys;
  if (!Array.isArray(list)) {
    throw new TypeError("the keys are not a JWKS: expected { keys: [...] }");
  }
  const keys = new Map<string, CryptoKey>();
  for (const jwk of list as Array<Partial<ReceiptJwk>>) {
    if (jwk?.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.x !== "string") {
      continue;
    }
    // The kid is recomputed: a JWKS cannot name a key by another key's thumbprint.
    const kid = jwkThumbprint(jwk.x);
    if (jwk.kid !== undefined && jwk.kid !== kid) {
      throw new TypeError(`the JWKS names key ${jwk.kid} by a kid that is not its thumbprint`);
    }
    keys.set(
      kid,
      await crypto.subtle.importKey(
        "jwk",
        { kty: "OKP", crv: "Ed25519", x: jwk.x },
        { name: "Ed25519" },
        false,
        ["verify"],
      ),
    );
  }
  return keys;
}

export type ReceiptCheck =
  | { ok: true; receipt: Receipt; kid: string }
  | { ok: false; problem: string };

/** One JWS: its form, its header, its signature under a known key, and the receipt's shape. */
export async function verifyReceiptJws(
  jws: string,
  keys: ReadonlyMap<string, CryptoKey>,
): Promise<ReceiptCheck> {
  const parts = typeof jws === "string" ? jws.split(".") : [];
  const [header64, payload64, signature64] = parts;
  if (parts.length !== 3 || !header64 || !payload64 || !signature64) {
    return { ok: false, problem: "not a compact JWS (three base64url parts)" };
  }
  const header = jsonOf(header64);
  if (!isRecord(header) || header.alg !== "EdDSA" || typeof header.kid !== "string") {
    return { ok: false, problem: 'the JWS header is not { alg: "EdDSA", kid }' };
  }
  const key = keys.get(header.kid);
  if (!key) {
    return { ok: false, problem: `signed by key ${header.kid}, which is not in the key set` };
  }
  const signature = fromBase64Url(signature64);
  const valid =
    signature !== null &&
    (await crypto.subtle.verify(
      { name: "Ed25519" },
      key,
      signature,
      encoder.encode(`${header64}.${payload64}`),
    ));
  if (!valid) {
    return { ok: false, problem: "the signature does not verify (the receipt was altered)" };
  }
  const receipt = jsonOf(payload64);
  const shape = shapeProblem(receipt);
  if (shape) {
    return { ok: false, problem: `the receipt is malformed: ${shape}` };
  }
  return { ok: true, receipt: receipt as Receipt, kid: header.kid };
}

export type ChainVerdict =
  | { ok: true; receipts: number; threads: number }
  | { ok: false /** 0-based position of the first bad receipt */; index: number; problem: string };

/**
 * Verifies receipts in export order (several threads may interleave; each thread's receipts
 * must come in chain order). A thread's first receipt in the list anchors its chain: with
 * `seq` 1 its `prev` must be null; a later one (an export `since` a time, or one run of a
 * thread with several) is taken as the start. `expectCount`, when given, is how many receipts
 * the list must hold (a run's `receiptCount`): fewer is a truncated tail.
 */
export async function verifyReceiptChain(
  list: readonly string[],
  keys: ReadonlyMap<string, CryptoKey>,
  options: { expectCount?: number } = {},
): Promise<ChainVerdict> {
  const heads = new Map<string, { seq: number; hash: string }>();
  for (const [index, jws] of list.entries()) {
    const checked = await verifyReceiptJws(jws, keys);
    if (!checked.ok) {
      return { ok: false, index, problem: checked.problem };
    }
    const { receipt } = checked;
    const head = heads.get(receipt.threadId);
    const problem = head ? linkProblem(head, receipt) : anchorProblem(receipt);
    if (problem) {
      return { ok: false, index, problem: `thread ${receipt.threadId}: ${problem}` };
    }
    heads.set(receipt.threadId, { seq: receipt.seq, hash: chainHash(jws) });
  }
  const expected = options.expectCount;
  if (expected !== undefined && list.length !== expected) {
    return list.length < expected
      ? {
          ok: false,
          index: list.length,
          problem: `truncated: ${list.length} receipts, ${expected} expected (the tail is missing)`,
        }
      : {
          ok: false,
          index: expected,
          problem: `${list.length} receipts, only ${expected} expected`,
        };
  }
  return { ok: true, receipts: list.length, threads: heads.size };
}

function linkProblem(head: { seq: number; hash: string }, receipt: Receipt): string | undefined {
  if (receipt.seq <= head.seq) {
    return `seq ${receipt.seq} after seq ${head.seq} (reordered or repeated)`;
  }
  if (receipt.seq > head.seq + 1) {
    return `seq ${receipt.seq} after seq ${head.seq} (${receipt.seq - head.seq - 1} missing, or out of order)`;
  }
  if (receipt.prev !== head.hash) {
    return `prev of seq ${receipt.seq} is not the hash of seq ${head.seq} (a receipt was replaced)`;
  }
  return undefined;
}

function anchorProblem(receipt: Receipt): string | undefined {
  if (receipt.seq === 1 && receipt.prev !== null) {
    return "seq 1 has a prev";
  }
  if (receipt.seq > 1 && receipt.prev === null) {
    return `seq ${receipt.seq} has no prev`;
  }
  return undefined;
}

const DECISIONS = new Set([
  "approved",
  "declined",
  "expired",
  "cancelled",
  "revoked",
  "compensated",
]);
const COMPENSATION_STATUSES = new Set(["ran", "failed", "not_compensable"]);
const STRINGS = [
  "threadId",
  "runId",
  "requestId",
  "tool",
  "argsHash",
  "agentVersion",
  "channel",
  "at",
];

function shapeProblem(value: unknown): string | undefined {
  if (!isRecord(value)) {
    return "not a JSON object";
  }
  if (value.v !== 1) {
    return `v is ${JSON.stringify(value.v)}, this verifier reads v 1`;
  }
  if (!Number.isSafeInteger(value.seq) || (value.seq as number) < 1) {
    return "seq is not a whole number from 1";
  }
  for (const key of STRINGS) {
    if (typeof value[key] !== "string") {
      return `${key} is not a string`;
    }
  }
  if (!DECISIONS.has(value.decision as string)) {
    return `decision ${JSON.stringify(value.decision)} is not approved, declined, expired, cancelled, revoked or compensated`;
  }
  if (value.decision === "compensated" || value.compensation !== undefined) {
    const problem = compensationProblem(value.compensation);
    if (problem) {
      return problem;
    }
  }
  if (value.prev !== null && typeof value.prev !== "string") {
    return "prev is neither null nor a string";
  }
  if (value.rule !== null && !isRecord(value.rule)) {
    return "rule is neither null nor an object";
  }
  if (value.onBehalfOf !== undefined && typeof value.onBehalfOf !== "string") {
    return "onBehalfOf is not a string"; // issue 42: optional, a delegate's stand-in
  }
  return receiptPolicyProblem(value);
}

/** A `compensated` receipt names the call it took back and how that went (issue 44). */
function compensationProblem(value: unknown): string | undefined {
  if (!isRecord(value) || typeof value.callId !== "string") {
    return "compensation is not an object with a callId";
  }
  if (!COMPENSATION_STATUSES.has(value.status as string)) {
    return `compensation status ${JSON.stringify(value.status)} is not ran, failed or not_compensable`;
  }
  if (value.error !== undefined && typeof value.error !== "string") {
    return "compensation error is not a string";
  }
  return undefined;
}

function jsonOf(part: string): unknown {
  const bytes = fromBase64Url(part);
  if (!bytes) {
    return undefined;
  }
  try {
    return JSON.parse(decoder.decode(bytes));
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
