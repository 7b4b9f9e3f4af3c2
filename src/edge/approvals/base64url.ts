/**
 * base64url without padding (RFC 4648 §5), as every signed token here spells its parts
 * (approval links, approver links, inbox sign-in links, sessions and CSRF tokens), over
 * the strict base64 codec of webhooks.ts.
 */
import { decodeBase64, encodeBase64 } from "../notify/webhooks";

const ALPHABET = /^[A-Za-z0-9_-]+$/;

/** Whether `text` is non-empty and uses only the base64url alphabet (no padding). */
export function isBase64Url(text: string): boolean {
  return ALPHABET.test(text);
}

export function toBase64Url(bytes: Uint8Array): string {
  return encodeBase64(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/**
 * The bytes, or null unless `text` is exactly what {@link toBase64Url} makes of them: only
 * the canonical spelling is accepted, so one token has one string form.
 */
export function fromBase64Url(text: string): Uint8Array | null {
  if (!isBase64Url(text)) {
    return null;
  }
  const bytes = decodeBase64(text.replaceAll("-", "+").replaceAll("_", "/"));
  return bytes && toBase64Url(bytes) === text ? bytes : null;
}
