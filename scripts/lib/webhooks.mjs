/**
 * Standard Webhooks (https://www.standardwebhooks.com) with node:crypto, for the
 * scripts and tests that talk to the dev server from outside: sign what we send to
 * /v1/decisions, verify what the worker sends to a callbackUrl.
 */
import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";

function keyOf(secret) {
  return Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64");
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` */
export function sign(secret, id, timestamp, body) {
  return `v1,${createHmac("sha256", keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

/** Headers for a signed POST of `body` (already-serialized JSON). */
export function webhookHeaders(
  secret,
  body,
  { id = `msg_${randomUUID().replaceAll("-", "")}`, now = Date.now() } = {},
) {
  const timestamp = String(Math.floor(now / 1000));
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": timestamp,
    "webhook-signature": sign(secret, id, timestamp, body),
  };
}

/**
 * Checks a received webhook over its raw body against any of `secrets`.
 * Returns `{ ok: true, id }` or `{ ok: false, reason }`; never throws.
 */
export function verifyWebhook(
  secrets,
  headers,
  rawBody,
  { toleranceSeconds = 300, now = Date.now() } = {},
) {
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  const signatures = headers["webhook-signature"];
  if (!id || !timestamp || !signatures) {
    return { ok: false, reason: "missing webhook-id/-timestamp/-signature header" };
  }
  if (!/^\d{1,15}$/.test(timestamp)) {
    return { ok: false, reason: "webhook-timestamp is not integer seconds" };
  }
  if (Math.abs(Math.floor(now / 1000) - Number(timestamp)) > toleranceSeconds) {
    return { ok: false, reason: "stale webhook-timestamp" };
  }
  const given = signatures
    .split(" ")
    .filter((entry) => entry.startsWith("v1,"))
    .map((entry) => Buffer.from(entry.slice(3), "base64"));
  for (const secret of secrets) {
    const expected = Buffer.from(sign(secret, id, timestamp, rawBody).slice(3), "base64");
    if (
      given.some(
        (candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected),
      )
    ) {
      return { ok: true, id };
    }
  }
  return { ok: false, reason: "no signature matches" };
}
