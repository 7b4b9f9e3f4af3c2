/**
 * Keys derived from `WEBHOOK_SECRET`: one HMAC-SHA256 key per purpose, by HKDF-SHA256 with a
 * label of its own, so a MAC minted for one purpose (an approval link, say) never verifies
 * as another (a session, a CSRF token, or a webhook signature, which uses the secret's raw
 * bytes). `NOTIFY_SECRET` is never an input here: holding the notification key must give
 * no power over links, sessions or decisions. Web-standard APIs only (crypto.subtle).
 */
import { parseWebhookSecret } from "../notify/webhooks";

export type KeyPurpose =
  | "approval-link"
  | "approver-link"
  | "inbox-session"
  | "csrf"
  | "conversation"
  | "run-view"
  | "trace-decider"
  | "mcp-request-state";

const encoder = new TextEncoder();

/**
 * HKDF `info` per purpose. The approval-link label predates this module and is kept as it
 * was, so links handed out before the upgrade keep working until they expire.
 */
const LABELS: Record<KeyPurpose, string> = {
  "approval-link": "toolnexus-edge approval-token v1",
  "approver-link": "toolnexus-edge approver-link v1",
  "inbox-session": "toolnexus-edge inbox-session v1",
  csrf: "toolnexus-edge csrf v1",
  conversation: "toolnexus-edge conversation v1",
  "run-view": "toolnexus-edge run-view v1",
  "trace-decider": "toolnexus-edge trace-decider v1",
  "mcp-request-state": "toolnexus-edge mcp-request-state v1",
};

// Keyed by purpose and secret; holds the promise so concurrent first uses derive once.
const cache = new Map<string, Promise<CryptoKey>>();

/**
 * The HMAC-SHA256 keys for `purpose`, one per secret in the order given: index 0 signs,
 * every key verifies (rotation: put the new secret first, drop the old one once nothing it
 * signed is still valid). Throws a plain `Error` when there is no secret or one is malformed.
 *
 * @example
 * const [signer, ...older] = await derivedKeys(config.webhookSecrets, "approval-link");
 * const mac = await crypto.subtle.sign("HMAC", signer, bytes);
 */
export async function derivedKeys(
  webhookSecrets: string[],
  purpose: KeyPurpose,
): Promise<CryptoKey[]> {
  if (webhookSecrets.length === 0) {
    throw new Error("no webhook secret configured");
  }
  const label = LABELS[purpose];
  if (label === undefined) {
    throw new TypeError(`unknown key purpose ${JSON.stringify(purpose)}`);
  }
  return Promise.all(webhookSecrets.map((secret) => derived(secret, purpose, label)));
}

function derived(secret: string, purpose: KeyPurpose, label: string): Promise<CryptoKey> {
  const id = `${purpose}\u0000${secret}`;
  let key = cache.get(id);
  if (!key) {
    key = derive(parseWebhookSecret(secret), label);
    cache.set(id, key);
    key.catch(() => cache.delete(id)); // never cache a failure
  }
  return key;
}

async function derive(secret: Uint8Array, label: string): Promise<CryptoKey> {
  const base = await crypto.subtle.importKey("raw", secret, "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(label) },
    base,
    { name: "HMAC", hash: "SHA-256", length: 256 },
    false,
    ["sign", "verify"],
  );
}
