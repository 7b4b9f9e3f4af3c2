/**
 * Slack's v0 request signature ("Verifying requests from Slack"): HMAC-SHA256 with the
 * signing secret over `v0:<timestamp>:<raw body>`, hex in `x-slack-signature: v0=…`.
 *
 * The check is WebCrypto's `crypto.subtle.verify` (constant-time comparison), with a strict
 * header format, the timestamp bound in both directions, and several secrets for rotation.
 * (slack-edge's `verifySlackRequest` does the same HMAC, but importing it bundled the whole
 * slack-edge framework, ≈ 53 KiB minified, into every worker: see bench/README.md §5.)
 */

export const SLACK_TOLERANCE_SECONDS = 300;

export type SlackVerificationCode = "missing_headers" | "stale_timestamp" | "bad_signature";

/** Thrown by {@link verifySlackSignature}; every code maps to HTTP 401. */
export class SlackVerificationError extends Error {
  override readonly name = "SlackVerificationError";
  constructor(
    readonly code: SlackVerificationCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Checks a Slack request over its raw body, before anything parses it. Throws
 * {@link SlackVerificationError}; returns the timestamp (unix seconds) otherwise.
 *
 * @example await verifySlackSignature(config.slack.signingSecrets, c.req.raw.headers, raw)
 * @see https://api.slack.com/authentication/verifying-requests-from-slack
 */
export async function verifySlackSignature(
  secrets: readonly string[],
  headers: Headers,
  rawBody: string,
): Promise<number> {
  const timestamp = headers.get("x-slack-request-timestamp");
  const signature = headers.get("x-slack-signature");
  if (!timestamp || !signature) {
    throw new SlackVerificationError(
      "missing_headers",
      "x-slack-request-timestamp and x-slack-signature are required",
    );
  }
  // Only plain digits are a timestamp (parseInt would read "12abc" as 12).
  if (!/^\d{1,15}$/.test(timestamp)) {
    throw new SlackVerificationError(
      "missing_headers",
      "x-slack-request-timestamp must be unix seconds",
    );
  }
  const now = Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > SLACK_TOLERANCE_SECONDS) {
    throw new SlackVerificationError(
      "stale_timestamp",
      `x-slack-request-timestamp is outside ±${SLACK_TOLERANCE_SECONDS}s`,
    );
  }
  if (!/^v0=[0-9a-f]{64}$/.test(signature)) {
    throw new SlackVerificationError("bad_signature", "x-slack-signature is not v0=<hex sha256>");
  }
  const expected = hexBytes(signature.slice(3));
  const signed = encoder.encode(`v0:${timestamp}:${rawBody}`);
  let matched = false;
  for (const secret of secrets) {
    // Every secret is tried (no early exit), so timing does not reveal which one matched.
    const key = await crypto.subtle.importKey(
      "raw",
      encoder.encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["verify"],
    );
    matched = (await crypto.subtle.verify("HMAC", key, expected, signed)) || matched;
  }
  if (!matched) {
    throw new SlackVerificationError("bad_signature", "x-slack-signature does not match the body");
  }
  return Number(timestamp);
}

const encoder = new TextEncoder();

/** Lower-case hex (already checked) to bytes. */
function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) {
    bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  }
  return bytes;
}
