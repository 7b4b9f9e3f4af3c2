/**
 * `RECEIPT_KEY`: base64 of a 32-byte Ed25519 seed, several space-separated to rotate (the first
 * signs; all are published, so receipts signed before a rotation stay verifiable).
 *
 * WebCrypto imports an Ed25519 private key as PKCS#8 or as a JWK, and a JWK needs the public
 * `x` beside `d`. So the seed goes in as PKCS#8 (RFC 8410: a fixed 16-byte prefix, then the
 * seed), and `x` comes out of exporting that key as a JWK. Both workerd and Node ≥ 20 do this
 * (test/edge/receipts and test/node run it).
 */
import { ConfigError } from "../config-error";
import { decodeBase64 } from "../notify/webhooks";
import { type ReceiptJwk, type ReceiptJwks, jwkThumbprint } from "./verify";

/** The variable, for `EdgeEnv` to extend when the lead wires receipts in. */
export interface ReceiptEnv {
  /** Base64 of a 32-byte Ed25519 seed; several space-separated rotate (the first signs). */
  RECEIPT_KEY?: string;
}

export interface ReceiptKey {
  /** RFC 7638 thumbprint of the public key: the JWS `kid`. */
  kid: string;
  publicJwk: ReceiptJwk;
  privateKey: CryptoKey;
}

const SEED_BYTES = 32;
// RFC 8410 OneAsymmetricKey for Ed25519 with no public key: SEQUENCE { version 0,
// AlgorithmIdentifier { 1.3.101.112 }, OCTET STRING { OCTET STRING (32 bytes) } }.
const PKCS8_PREFIX = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);

/**
 * The seeds in `RECEIPT_KEY`, checked: each must be standard base64 of exactly 32 bytes, and not
 * one byte repeated (a placeholder, not a key). Empty when the variable is unset. A seed listed
 * twice counts once.
 */
export function parseReceiptSeeds(value: string | undefined): Uint8Array[] {
  const seeds: Uint8Array[] = [];
  const seen = new Set<string>();
  const entries = (value ?? "").split(/\s+/).filter(Boolean);
  entries.forEach((entry, i) => {
    const which =
      entries.length > 1 ? `RECEIPT_KEY (value ${i + 1} of ${entries.length})` : "RECEIPT_KEY";
    const seed = decodeBase64(entry);
    if (!seed) {
      throw new ConfigError(
        `${which} is not base64: it must be base64 of a 32-byte Ed25519 seed (generate one with \`openssl rand -base64 32\`)`,
      );
    }
    if (seed.length !== SEED_BYTES) {
      throw new ConfigError(
        `${which} is ${seed.length} bytes; an Ed25519 seed is ${SEED_BYTES} random bytes (\`openssl rand -base64 32\`)`,
      );
    }
    if (seed.every((byte) => byte === seed[0])) {
      throw new ConfigError(`${which} is one byte repeated: use 32 random bytes`);
    }
    if (!seen.has(entry)) {
      seen.add(entry);
      seeds.push(seed);
    }
  });
  return seeds;
}

// Keyed by the variable's text; holds the promise so concurrent first uses import once.
const cache = new Map<string, Promise<ReceiptKey[]>>();

/**
 * The receipt keys, the signing one first. Throws `ConfigError` when `RECEIPT_KEY` is unset
 * or malformed (answered `500 config_error` naming it).
 */
export function receiptKeys(value: string | undefined): Promise<ReceiptKey[]> {
  // Asked at every decision and delivery round: a text seen before was parsed then (issue 46).
  const kept = cache.get(value ?? "");
  if (kept) {
    return kept;
  }
  let seeds: Uint8Array[];
  try {
    seeds = parseReceiptSeeds(value);
  } catch (error) {
    return Promise.reject(error);
  }
  if (seeds.length === 0) {
    return Promise.reject(
      new ConfigError(
        "RECEIPT_KEY is not set: add base64 of a 32-byte Ed25519 seed as a secret (`openssl rand -base64 32 | wrangler secret put RECEIPT_KEY`), or for wrangler dev a RECEIPT_KEY line in .dev.vars",
      ),
    );
  }
  const id = value ?? "";
  const keys = Promise.all(seeds.map(importSeed));
  cache.set(id, keys);
  keys.catch(() => cache.delete(id)); // never cache a failure
  return keys;
}

/** One seed as a signing key with its public JWK and thumbprint. */
export async function importSeed(seed: Uint8Array): Promise<ReceiptKey> {
  const pkcs8 = new Uint8Array(PKCS8_PREFIX.length + SEED_BYTES);
  pkcs8.set(PKCS8_PREFIX);
  pkcs8.set(seed, PKCS8_PREFIX.length);
  // Extractable only to read `x`; the key used for signing is re-imported non-extractable.
  const exportable = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, true, [
    "sign",
  ]);
  const jwk = (await crypto.subtle.exportKey("jwk", exportable)) as JsonWebKey;
  if (typeof jwk.x !== "string") {
    throw new Error("this runtime's WebCrypto did not export the Ed25519 public key");
  }
  const privateKey = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, false, [
    "sign",
  ]);
  const kid = jwkThumbprint(jwk.x);
  return {
    kid,
    privateKey,
    publicJwk: { kty: "OKP", crv: "Ed25519", x: jwk.x, kid, alg: "EdDSA", use: "sig" },
  };
}

/** The JWKS of `GET /.well-known/receipt-keys.json`: every configured key, the signing one first. */
export function receiptJwks(keys: readonly ReceiptKey[]): ReceiptJwks {
  return { keys: keys.map((key) => key.publicJwk) };
}
