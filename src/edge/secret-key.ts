/**
 * The one strength check for `whsec_` keys (`WEBHOOK_SECRET`, `NOTIFY_SECRET`, and this
 * wave's `MCP_TOKEN_KEY`): base64 after the `whsec_` prefix, at least 24 random bytes once
 * decoded. A shorter key (`supersecret` is 8 bytes as base64, `whsec_c2hvcnQ=` is 5) can be
 * guessed offline from one signed request, so it is a configuration error, and the message
 * says how to make a good one. It never contains the value.
 */
import { decodeBase64 } from "./notify/webhooks";

/** Bytes a key must have once decoded: 192 bits, as the docs have always asked. */
export const MIN_KEY_BYTES = 24;

const PREFIX = "whsec_";
const HOW_TO_GENERATE = `generate one with \`echo "whsec_$(openssl rand -base64 32)"\` (npm start writes fresh ones into .dev.vars)`;

/**
 * Decodes one `whsec_<base64>` key (the prefix may be left out) and checks its length.
 * Returns the key bytes, or the reason it is refused (naming `name`, never the value).
 *
 * @example checkKeySecret("MCP_TOKEN_KEY", env.MCP_TOKEN_KEY) // { ok: true, bytes } | { ok: false, reason }
 */
export function checkKeySecret(
  name: string,
  value: string,
): { ok: true; bytes: Uint8Array } | { ok: false; reason: string } {
  const body = value.startsWith(PREFIX) ? value.slice(PREFIX.length) : value;
  const bytes = body === "" ? null : decodeBase64(body);
  if (!bytes || bytes.length === 0) {
    return {
      ok: false,
      reason: `${name} is malformed: not valid base64 after whsec_ (expected whsec_<base64>); ${HOW_TO_GENERATE}`,
    };
  }
  if (bytes.length < MIN_KEY_BYTES) {
    return {
      ok: false,
      reason: `${name} is too short: ${bytes.length} bytes once decoded from the base64 after whsec_, at least ${MIN_KEY_BYTES} random bytes needed; ${HOW_TO_GENERATE}`,
    };
  }
  return { ok: true, bytes };
}
