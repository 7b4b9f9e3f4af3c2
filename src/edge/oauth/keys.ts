/**
 * The two keys derived from `MCP_TOKEN_KEY`, each by HKDF-SHA256 with a label of its own:
 * an AES-GCM key that encrypts the stored OAuth records (durable/tokens/), and an
 * HMAC-SHA256 key that signs the sign-in `state` (state-token.ts). One secret is enough,
 * and neither key can stand in for the other or for any `WEBHOOK_SECRET` key.
 * Web-standard APIs only (crypto.subtle).
 */
import { ConfigError } from "../config-error";
import { checkKeySecret } from "../secret-key";

const encoder = new TextEncoder();
const LABELS = {
  cipher: "toolnexus-edge mcp-tokens aes-gcm v1",
  state: "toolnexus-edge oauth-state v1",
} as const;

export interface TokenKeys {
  cipher: CryptoKey;
  state: CryptoKey;
}

// Keyed by the secret; holds the promise so concurrent first uses derive once.
const cache = new Map<string, Promise<TokenKeys>>();

/** Derives both keys; a malformed or short `MCP_TOKEN_KEY` is a `ConfigError` naming it. */
export function tokenKeys(secret: string): Promise<TokenKeys> {
  let keys = cache.get(secret);
  if (!keys) {
    const checked = checkKeySecret("MCP_TOKEN_KEY", secret);
    if (!checked.ok) {
      return Promise.reject(new ConfigError(checked.reason));
    }
    keys = derive(checked.bytes);
    cache.set(secret, keys);
    keys.catch(() => cache.delete(secret)); // never cache a failure
  }
  return keys;
}

async function derive(secret: Uint8Array): Promise<TokenKeys> {
  const base = await crypto.subtle.importKey("raw", secret, "HKDF", false, ["deriveKey"]);
  const params = (label: string) => ({
    name: "HKDF",
    hash: "SHA-256",
    salt: new Uint8Array(0),
    info: encoder.encode(label),
  });
  const [cipher, state] = await Promise.all([
    crypto.subtle.deriveKey(params(LABELS.cipher), base, { name: "AES-GCM", length: 256 }, false, [
      "encrypt",
      "decrypt",
    ]),
    crypto.subtle.deriveKey(
      params(LABELS.state),
      base,
      { name: "HMAC", hash: "SHA-256", length: 256 },
      false,
      ["sign", "verify"],
    ),
  ]);
  return { cipher, state };
}
