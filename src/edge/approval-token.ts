/**
 * Signed, expiring approval-link tokens: `<base64url(json claims)>.<base64url(hmac)>`.
 *
 * The MAC key is derived (HKDF-SHA256) from the webhook secret's bytes with a label of
 * its own, so a token MAC can never double as a webhook signature or vice versa, and
 * one configured secret is enough. Web-standard APIs only.
 */
import { decodeBase64, encodeBase64, parseWebhookSecret, timingSafeEqual } from "./webhooks";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
const KEY_LABEL = "toolnexus-edge approval-token v1";
/** Far above any real token (a few hundred chars); bounds work done on hostile input. */
const MAX_TOKEN_LENGTH = 4096;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** What an approval link authorizes: one decision on one pending request, until `exp`. */
export interface ApprovalClaims {
  threadId: string;
  runId: string;
  requestId: string;
  /** {@link digestArgs} of the arguments shown to the approver, so they can't be swapped. */
  argsDigest: string;
  /** Unix seconds. */
  exp: number;
}

export type ApprovalTokenErrorCode = "malformed" | "tampered" | "expired";

/** Thrown by {@link verifyApprovalToken}. */
export class ApprovalTokenError extends Error {
  override readonly name = "ApprovalTokenError";
  constructor(
    readonly code: ApprovalTokenErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * SHA-256 (base64url) of canonical JSON: object keys sorted recursively, so equal
 * arguments give equal digests whatever their key order.
 *
 * @example await digestArgs({ b: 1, a: [2] }) === await digestArgs({ a: [2], b: 1 })
 */
export async function digestArgs(args: unknown): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(canonicalJson(args)));
  return toBase64Url(new Uint8Array(digest));
}

/**
 * Mints a token for an approval link.
 *
 * @example await createApprovalToken(env.WEBHOOK_SECRET, { threadId, runId, requestId, argsDigest, exp })
 */
export async function createApprovalToken(secret: string, claims: ApprovalClaims): Promise<string> {
  const { threadId, runId, requestId, argsDigest, exp } = claims;
  const payload = toBase64Url(
    encoder.encode(JSON.stringify({ threadId, runId, requestId, argsDigest, exp })),
  );
  const mac = await sign(secret, payload);
  return `${payload}.${toBase64Url(mac)}`;
}

/**
 * Checks the MAC (constant time) before reading any claim, then the expiry.
 * Throws {@link ApprovalTokenError}.
 *
 * @example const claims = await verifyApprovalToken(env.WEBHOOK_SECRET, c.req.param("token"))
 */
export async function verifyApprovalToken(
  secret: string,
  token: string,
  opts: { now?: number } = {},
): Promise<ApprovalClaims> {
  if (typeof token !== "string" || token.length === 0 || token.length > MAX_TOKEN_LENGTH) {
    throw new ApprovalTokenError("malformed", "approval token is empty or too long");
  }
  const parts = token.split(".");
  const [payload, signature] = parts;
  if (parts.length !== 2 || !payload || !signature) {
    throw new ApprovalTokenError("malformed", "approval token must be <payload>.<signature>");
  }
  const given = fromBase64Url(signature);
  // Only the canonical spelling is accepted, so one token has exactly one string form.
  if (!BASE64URL.test(payload) || !given || toBase64Url(given) !== signature) {
    throw new ApprovalTokenError("malformed", "approval token is not base64url");
  }

  const expected = await sign(secret, payload);
  if (!timingSafeEqual(expected, given)) {
    throw new ApprovalTokenError("tampered", "approval token signature does not match");
  }

  const claims = parseClaims(payload);
  if (!claims) {
    throw new ApprovalTokenError("malformed", "approval token claims are invalid");
  }
  const now = Math.floor((opts.now ?? Date.now()) / 1000);
  if (now >= claims.exp) {
    throw new ApprovalTokenError("expired", "this approval link has expired");
  }
  return claims;
}

function parseClaims(payload: string): ApprovalClaims | null {
  const bytes = fromBase64Url(payload);
  if (!bytes) {
    return null;
  }
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(bytes));
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) {
    return null;
  }
  const { threadId, runId, requestId, argsDigest, exp } = value as Record<string, unknown>;
  if (
    typeof threadId !== "string" ||
    typeof runId !== "string" ||
    typeof requestId !== "string" ||
    typeof argsDigest !== "string" ||
    typeof exp !== "number" ||
    !Number.isInteger(exp)
  ) {
    return null;
  }
  return { threadId, runId, requestId, argsDigest, exp };
}

/** Like JSON.stringify (toJSON honoured, undefined members dropped) but with sorted keys. */
export function canonicalJson(value: unknown): string {
  if (
    value !== null &&
    typeof value === "object" &&
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  ) {
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  if (Array.isArray(value)) {
    return `[${value.map((item) => canonicalJson(item)).join(",")}]`;
  }
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const members: string[] = [];
    for (const key of Object.keys(record).sort()) {
      const item = record[key];
      if (item === undefined || typeof item === "function" || typeof item === "symbol") {
        continue;
      }
      members.push(`${JSON.stringify(key)}:${canonicalJson(item)}`);
    }
    return `{${members.join(",")}}`;
  }
  // Primitives; undefined/functions at the top level digest as null rather than crashing.
  return JSON.stringify(value) ?? "null";
}

async function sign(secret: string, payload: string): Promise<Uint8Array> {
  const base = await crypto.subtle.importKey("raw", parseWebhookSecret(secret), "HKDF", false, [
    "deriveKey",
  ]);
  const key = await crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(KEY_LABEL) },
    base,
    { name: "HMAC", hash: "SHA-256", length: 256 },
    false,
    ["sign"],
  );
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(payload)));
}

// base64url without padding, over the same strict codec as webhook signatures.
function toBase64Url(bytes: Uint8Array): string {
  return encodeBase64(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array | null {
  return BASE64URL.test(text) ? decodeBase64(text.replaceAll("-", "+").replaceAll("_", "/")) : null;
}
