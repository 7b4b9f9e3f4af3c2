/**
 * The salt for `toolnexus.request.decided_by_hash` (docs/observability.md, "Traces and the run timeline"): derived from
 * `WEBHOOK_SECRET` under its own HKDF label (approvals/keys.ts), so it is stable across
 * deployments and isolates (the same person hashes alike in every trace) yet never leaves
 * the service, and nobody holding a trace can test a guessed member id against it.
 */
import { derivedKeys } from "../approvals/keys";

const encoder = new TextEncoder();
const salts = new Map<string, Promise<string>>();

/** Hex HMAC of a fixed label under the signing secret's `trace-decider` key. */
export function deciderSalt(webhookSecrets: readonly string[]): Promise<string> {
  const signing = webhookSecrets[0];
  if (signing === undefined) {
    return Promise.reject(new Error("no webhook secret configured"));
  }
  let salt = salts.get(signing);
  if (!salt) {
    salt = derive(signing);
    salts.set(signing, salt);
    salt.catch(() => salts.delete(signing)); // never cache a failure
  }
  return salt;
}

async function derive(signing: string): Promise<string> {
  const [key] = await derivedKeys([signing], "trace-decider");
  if (!key) {
    throw new Error("no webhook secret configured");
  }
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode("decided_by_hash salt"));
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
