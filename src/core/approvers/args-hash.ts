/**
 * The version of a request's arguments (docs/architecture.md §6 "Votes are bound to
 * arguments"): base64url (no padding) of SHA-256 over their canonical JSON. Every vote
 * records the version it was cast on, and an approval of an older version is refused
 * (`args_changed`), so n approvals are always n approvals of the same arguments.
 */
import { canonicalJson } from "../canonical-json";
import { sha256 } from "../sha256";

const encoder = new TextEncoder();

/**
 * @example argsHash({ b: 1, a: [2] }) === argsHash({ a: [2], b: 1 })
 */
export function argsHash(args: unknown): string {
  return base64Url(sha256(encoder.encode(canonicalJson(args))));
}

function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) {
    binary += String.fromCharCode(byte);
  }
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
