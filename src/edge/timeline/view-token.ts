/**
 * Signed view links for the run timeline (`POST /v1/runs/:runId/view-link` → `GET
 * /runs/view/:token`): `v.<base64url(json claims)>.<base64url(hmac)>` under the `run-view`
 * key (its own HKDF label, so no other token verifies as one), valid 24 hours. A view link
 * shows a run; it decides nothing.
 */
import { timingSafeEqual } from "../notify/webhooks";
import { fromBase64Url, isBase64Url, toBase64Url } from "../approvals/base64url";
import { derivedKeys } from "../approvals/keys";

export const RUN_VIEW_TTL_SECONDS = 24 * 3600;

export interface RunViewClaims {
  threadId: string;
  runId: string;
  /** Unix seconds. */
  exp: number;
}

export class RunViewLinkError extends Error {
  override readonly name = "RunViewLinkError";
  constructor(
    readonly code: "malformed" | "tampered" | "expired",
    message: string,
  ) {
    super(message);
  }
}

const PREFIX = "v.";
const MAX_TOKEN_LENGTH = 2048;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** A token for `runId` valid until `now + 24 h`; `expiresAt` is RFC 3339 for the response. */
export async function createRunViewToken(
  webhookSecrets: string[],
  run: { threadId: string; runId: string },
  now = Date.now(),
): Promise<{ token: string; expiresAt: string }> {
  const [key] = await derivedKeys(webhookSecrets.slice(0, 1), "run-view");
  if (!key) {
    throw new Error("no webhook secret configured");
  }
  const exp = Math.floor(now / 1000) + RUN_VIEW_TTL_SECONDS;
  const payload = toBase64Url(
    encoder.encode(JSON.stringify({ threadId: run.threadId, runId: run.runId, exp })),
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(payload)));
  return {
    token: `${PREFIX}${payload}.${toBase64Url(mac)}`,
    expiresAt: new Date(exp * 1000).toISOString(),
  };
}

/** Checks the MAC under every configured key before reading a claim, then the expiry. */
export async function verifyRunViewToken(
  webhookSecrets: string[],
  token: string,
  now = Date.now(),
): Promise<RunViewClaims> {
  if (!token.startsWith(PREFIX) || token.length > MAX_TOKEN_LENGTH) {
    throw new RunViewLinkError("malformed", "not a run view link");
  }
  const [payload, signature, ...rest] = token.slice(PREFIX.length).split(".");
  const given = signature ? fromBase64Url(signature) : null;
  if (rest.length || !payload || !isBase64Url(payload) || !given) {
    throw new RunViewLinkError("malformed", "run view link is not <payload>.<signature>");
  }
  let valid = false;
  for (const key of await derivedKeys(webhookSecrets, "run-view")) {
    const expected = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(payload)));
    valid = timingSafeEqual(expected, given) || valid;
  }
  if (!valid) {
    throw new RunViewLinkError("tampered", "run view link signature does not match");
  }
  const claims = parseClaims(payload);
  if (!claims) {
    throw new RunViewLinkError("malformed", "run view link claims are invalid");
  }
  if (Math.floor(now / 1000) >= claims.exp) {
    throw new RunViewLinkError("expired", "this run view link has expired");
  }
  return claims;
}

function parseClaims(payload: string): RunViewClaims | null {
  try {
    const bytes = fromBase64Url(payload);
    const value = bytes && (JSON.parse(decoder.decode(bytes)) as Record<string, unknown>);
    if (!value || typeof value !== "object") {
      return null;
    }
    const { threadId, runId, exp } = value;
    if (
      typeof threadId === "string" &&
      typeof runId === "string" &&
      typeof exp === "number" &&
      Number.isInteger(exp)
    ) {
      return { threadId, runId, exp };
    }
  } catch {
    // not JSON: malformed
  }
  return null;
}
