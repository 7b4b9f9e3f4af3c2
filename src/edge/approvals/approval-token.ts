/**
 * Signed, expiring approval-link tokens: `<base64url(json claims)>.<base64url(hmac)>`.
 *
 * The MAC key is `derivedKeys(WEBHOOK_SECRET, "approval-link")` (keys.ts): derived with a
 * label of its own, so a token MAC can never double as a webhook signature, a session or
 * another link, and one configured secret is enough. Web-standard APIs only.
 */
import { derivedKeys } from "./keys";
import { fromBase64Url, isBase64Url, toBase64Url } from "./base64url";
import { canonicalJson } from "../../core/schema/canonical-json";

export { canonicalJson };

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
/** Far above any real token (a few hundred chars); bounds work done on hostile input. */
const MAX_TOKEN_LENGTH = 4096;

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
 * Mints a token for an approval link, signed with the first secret's derived key.
 *
 * @example await createApprovalToken(config.webhookSecrets, { threadId, runId, requestId, argsDigest, exp })
 */
export async function createApprovalToken(
  secrets: string | string[],
  claims: ApprovalClaims,
): Promise<string> {
  const { threadId, runId, requestId, argsDigest, exp } = claims;
  const payload = toBase64Url(
    encoder.encode(JSON.stringify({ threadId, runId, requestId, argsDigest, exp })),
  );
  const [signer] = await derivedKeys(toList(secrets), "approval-link");
  if (!signer) {
    throw new Error("no webhook secret configured"); // derivedKeys already refuses none
  }
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", signer, encoder.encode(payload)));
  return `${payload}.${toBase64Url(mac)}`;
}

/**
 * Checks the MAC against every secret's derived key (constant time, WebCrypto's verify)
 * before reading any claim, then the expiry. Throws {@link ApprovalTokenError}.
 *
 * @example const claims = await verifyApprovalToken(config.webhookSecrets, c.req.param("token"))
 */
export async function verifyApprovalToken(
  secrets: string | string[],
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
  // Only the canonical spelling is accepted (fromBase64Url), so one token has one string form.
  if (!isBase64Url(payload) || !given) {
    throw new ApprovalTokenError("malformed", "approval token is not base64url");
  }

  let matched = false;
  for (const key of await derivedKeys(toList(secrets), "approval-link")) {
    matched = (await crypto.subtle.verify("HMAC", key, given, encoder.encode(payload))) || matched;
  }
  if (!matched) {
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

function toList(secrets: string | string[]): string[] {
  return typeof secrets === "string" ? [secrets] : secrets;
}
