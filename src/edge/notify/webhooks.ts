/**
 * Standard Webhooks (https://www.standardwebhooks.com) signing and verification.
 *
 * Signatures cover the RAW body text: callers must read `request.text()` before any JSON
 * parsing, because re-serialized JSON will not match what the sender signed.
 * Web-standard APIs only (crypto.subtle, TextEncoder, btoa/atob), so this runs anywhere.
 */

const encoder = new TextEncoder();
const SECRET_PREFIX = "whsec_";
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const SIGNATURE_BYTES = 32; // HMAC-SHA256
const REQUIRED_HEADERS = ["webhook-id", "webhook-timestamp", "webhook-signature"] as const;

/** Why a webhook was rejected. `missing_headers` also covers present-but-malformed headers. */
export type WebhookErrorCode = "missing_headers" | "stale_timestamp" | "bad_signature";

/** Thrown by {@link verifyWebhook}; map every code to HTTP 401. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  constructor(
    readonly code: WebhookErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Decodes a `whsec_<base64>` (or bare base64) secret into key bytes.
 * Throws a plain `Error` naming the problem: this is a configuration fault, not a bad request.
 *
 * @example parseWebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") // 24 bytes
 */
export function parseWebhookSecret(secret: string): Uint8Array {
  if (typeof secret !== "string" || secret.trim() === "") {
    throw new Error("webhook secret is empty");
  }
  const body = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const bytes = body === "" ? null : decodeBase64(body);
  if (!bytes || bytes.length === 0) {
    throw new Error("webhook secret is not valid base64 (expected whsec_<base64>)");
  }
  return bytes;
}

/**
 * Signs one message: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`.
 *
 * @example await signWebhook(secret, { id: "msg_1", timestamp: 1614265330, body: "{}" })
 */
export async function signWebhook(
  secret: string,
  msg: { id: string; timestamp: number; body: string },
): Promise<string> {
  const mac = await hmac(parseWebhookSecret(secret), `${msg.id}.${msg.timestamp}.${msg.body}`);
  return `v1,${encodeBase64(mac)}`;
}

/**
 * Headers for an outbound webhook carrying `body` (already-serialized JSON).
 *
 * @example fetch(url, { method: "POST", body, headers: await webhookHeaders(secret, body) })
 */
export async function webhookHeaders(
  secret: string,
  body: string,
  opts: { id?: string; now?: number } = {},
): Promise<Record<string, string>> {
  const id = opts.id ?? `msg_${randomId()}`;
  const timestamp = Math.floor((opts.now ?? Date.now()) / 1000);
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": await signWebhook(secret, { id, timestamp, body }),
    "content-type": "application/json",
  };
}

/**
 * Verifies an inbound webhook over its raw body (the bytes as received; text is encoded
 * as UTF-8). Accepts any `v1` entry of the space-separated signature header against any
 * of `secrets` (key rotation).
 * Returns the message id (use it for idempotency) and timestamp; throws
 * {@link WebhookVerificationError} otherwise.
 *
 * @example const { id } = await verifyWebhook(env.WEBHOOK_SECRET, req.headers, await req.text())
 */
// biome-ignore lint/complexity/useMaxParams: public API (exported from src/index.ts): receivers call `verifyWebhook(secret, headers, body)` like the Standard Webhooks libraries' `verify`; the fourth is already an options object.
export async function verifyWebhook(
  secrets: string | string[],
  headers: Headers,
  rawBody: string | Uint8Array,
  opts: { now?: number; toleranceSeconds?: number } = {},
): Promise<{ id: string; timestamp: number }> {
  const keys = (Array.isArray(secrets) ? secrets : [secrets]).map(parseWebhookSecret);
  if (keys.length === 0) {
    throw new Error("no webhook secret configured");
  }

  const missing = REQUIRED_HEADERS.filter((name) => !headers.get(name));
  const id = headers.get("webhook-id");
  const rawTimestamp = headers.get("webhook-timestamp");
  const signatureHeader = headers.get("webhook-signature");
  if (!id || !rawTimestamp || !signatureHeader) {
    throw new WebhookVerificationError(
      "missing_headers",
      `missing header(s): ${missing.join(", ")}`,
    );
  }

  // Digits only: Number() would also accept "1e9", "0x1f" or "12.5", which no sender means.
  if (!/^\d{1,15}$/.test(rawTimestamp)) {
    throw new WebhookVerificationError(
      "missing_headers",
      "webhook-timestamp must be integer unix seconds",
    );
  }
  const timestamp = Number(rawTimestamp);
  const tolerance = opts.toleranceSeconds ?? 300;
  const now = Math.floor((opts.now ?? Date.now()) / 1000);
  if (Math.abs(now - timestamp) > tolerance) {
    const which = timestamp < now ? "too old" : "too far in the future";
    throw new WebhookVerificationError(
      "stale_timestamp",
      `webhook-timestamp is ${which} (tolerance ${tolerance}s)`,
    );
  }

  const candidates = signatureHeader
    .split(" ")
    .filter((entry) => entry.startsWith("v1,"))
    .map((entry) => decodeBase64(entry.slice(3)))
    .filter((sig): sig is Uint8Array => sig !== null && sig.length === SIGNATURE_BYTES);

  // Signed content uses the header text verbatim, exactly as the sender formatted it, and
  // the body's bytes as they arrived: nothing is decoded before the signature holds.
  const body = typeof rawBody === "string" ? encoder.encode(rawBody) : rawBody;
  const prefix = encoder.encode(`${id}.${rawTimestamp}.`);
  const content = new Uint8Array(prefix.byteLength + body.byteLength);
  content.set(prefix);
  content.set(body, prefix.byteLength);
  let matched = false;
  for (const key of keys) {
    const expected = await hmac(key, content);
    for (const candidate of candidates) {
      // Non-short-circuit OR: every candidate is compared, whatever matched before.
      matched = timingSafeEqual(expected, candidate) || matched;
    }
  }
  if (!matched) {
    throw new WebhookVerificationError(
      "bad_signature",
      "no webhook-signature entry matches the body",
    );
  }
  return { id, timestamp };
}

/** Constant-time for equal lengths; lengths themselves are public (always 32 here). */
/** Byte equality whose time does not depend on where the inputs differ. */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) {
    return false;
  }
  let diff = 0;
  for (let i = 0; i < a.length; i++) {
    // Both indexes are in range (equal lengths); `?? 0` only satisfies the checker.
    diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  }
  return diff === 0;
}

async function hmac(key: Uint8Array, content: string | Uint8Array): Promise<Uint8Array> {
  const cryptoKey = await crypto.subtle.importKey(
    "raw",
    key,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const bytes = typeof content === "string" ? encoder.encode(content) : content;
  return new Uint8Array(await crypto.subtle.sign("HMAC", cryptoKey, bytes));
}

export function encodeBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) {
    binary += String.fromCharCode(byte);
  }
  return btoa(binary);
}

/** Strict decode: `null` instead of throwing, and no whitespace or stray characters. */
export function decodeBase64(text: string): Uint8Array | null {
  if (!BASE64.test(text)) {
    return null;
  }
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

function randomId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}
