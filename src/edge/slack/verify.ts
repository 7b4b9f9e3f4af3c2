/**
 * Slack's v0 request signature ("Verifying requests from Slack"): HMAC-SHA256 with the
 * signing secret over `v0:<timestamp>:<raw body>`, hex in `x-slack-signature: v0=…`.
 *
 * The HMAC itself is slack-edge's `verifySlackRequest` (`crypto.subtle.verify`, so the
 * comparison is constant time). Around it we add what it leaves out: a strict header
 * format, the timestamp bound in both directions (it only rejects old ones), an
 * the same clock for both checks (the library reads `Date.now()`, so tests control time with
 * fake timers), and several secrets for rotation.
 */
import { verifySlackRequest } from "slack-edge";

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
  // parseInt (inside the library) would read "12abc" as 12: only plain digits are a timestamp.
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
  // The library strips any three characters and reads the rest as hex; insist on the real format.
  if (!/^v0=[0-9a-f]{64}$/.test(signature)) {
    throw new SlackVerificationError("bad_signature", "x-slack-signature is not v0=<hex sha256>");
  }
  let matched = false;
  for (const secret of secrets) {
    // Every secret is tried (no early exit), so timing does not reveal which one matched.
    matched = (await verifySlackRequest(secret, headers, rawBody)) || matched;
  }
  if (!matched) {
    throw new SlackVerificationError("bad_signature", "x-slack-signature does not match the body");
  }
  return Number(timestamp);
}
