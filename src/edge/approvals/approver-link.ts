/**
 * Per-approver links (docs/architecture.md §6 "Identity"): `POST /v1/runs/:runId/links` mints one
 * for a member and a request; the approval page then knows who is deciding. A token is
 * `p.<base64url(json claims)>.<base64url(hmac)>` under the `approver-link` key; the `p.`
 * prefix tells it from an anonymous approval token.
 */
import { timingSafeEqual } from "../notify/webhooks";
import { fromBase64Url, isBase64Url, toBase64Url } from "./base64url";
import { derivedKeys } from "./keys";

export interface ApproverClaims {
  threadId: string;
  runId: string;
  requestId: string;
  /** The member id the link speaks for. */
  approver: string;
  /** Unix seconds. */
  exp: number;
}

export class ApproverLinkError extends Error {
  override readonly name = "ApproverLinkError";
  constructor(
    readonly code: "malformed" | "tampered" | "expired",
    message: string,
  ) {
    super(message);
  }
}

const PREFIX = "p.";
const MAX_TOKEN_LENGTH = 4096;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

export function isApproverToken(token: string): boolean {
  return token.startsWith(PREFIX);
}

export async function createApproverToken(
  webhookSecrets: string[],
  claims: ApproverClaims,
): Promise<string> {
  const [key] = await derivedKeys(webhookSecrets.slice(0, 1), "approver-link");
  if (!key) {
    throw new Error("no webhook secret configured");
  }
  const { threadId, runId, requestId, approver, exp } = claims;
  const payload = toBase64Url(
    encoder.encode(JSON.stringify({ threadId, runId, requestId, approver, exp })),
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(payload)));
  return `${PREFIX}${payload}.${toBase64Url(mac)}`;
}

/** Checks the MAC under every configured key before reading a claim, then the expiry. */
export async function verifyApproverToken(
  webhookSecrets: string[],
  token: string,
  now = Date.now(),
): Promise<ApproverClaims> {
  if (!isApproverToken(token) || token.length > MAX_TOKEN_LENGTH) {
    throw new ApproverLinkError("malformed", "not an approver link");
  }
  const [payload, signature, ...rest] = token.slice(PREFIX.length).split(".");
  const given = signature ? fromBase64Url(signature) : null;
  if (rest.length || !payload || !isBase64Url(payload) || !given) {
    throw new ApproverLinkError("malformed", "approver link is not <payload>.<signature>");
  }
  let valid = false;
  for (const key of await derivedKeys(webhookSecrets, "approver-link")) {
    const expected = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(payload)));
    valid = timingSafeEqual(expected, given) || valid;
  }
  if (!valid) {
    throw new ApproverLinkError("tampered", "approver link signature does not match");
  }
  const claims = parseClaims(payload);
  if (!claims) {
    throw new ApproverLinkError("malformed", "approver link claims are invalid");
  }
  if (Math.floor(now / 1000) >= claims.exp) {
    throw new ApproverLinkError("expired", "this approver link has expired");
  }
  return claims;
}

function parseClaims(payload: string): ApproverClaims | null {
  try {
    const bytes = fromBase64Url(payload);
    const value = bytes && (JSON.parse(decoder.decode(bytes)) as Record<string, unknown>);
    if (!value || typeof value !== "object") {
      return null;
    }
    const { threadId, runId, requestId, approver, exp } = value;
    if (
      typeof threadId === "string" &&
      typeof runId === "string" &&
      typeof requestId === "string" &&
      typeof approver === "string" &&
      typeof exp === "number" &&
      Number.isInteger(exp)
    ) {
      return { threadId, runId, requestId, approver, exp };
    }
  } catch {
    // not JSON: malformed
  }
  return null;
}
