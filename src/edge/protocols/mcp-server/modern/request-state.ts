/**
 * The `requestState` our /mcp server hands an MCP 2026-07-28 host with an `input_required`
 * result: `s.<base64url(json claims)>.<base64url(hmac)>` under the `mcp-request-state` key (its
 * own HKDF label, so no other token of ours verifies as one). It names the thread, the run and
 * the requests the host was asked, and the caller it was issued to, so a retry continues that
 * run (never starts another) and answers only those requests. The host treats it as opaque; a
 * token that does not verify is refused before anything is read or written.
 */
import { timingSafeEqual } from "../../../notify/webhooks";
import { fromBase64Url, isBase64Url, toBase64Url } from "../../../approvals/base64url";
import { derivedKeys } from "../../../approvals/keys";

export interface RequestStateClaims {
  threadId: string;
  runId: string;
  /** The requests the host was asked (empty: "call again later", the run still works). */
  requestIds: string[];
  /** The caller the state was issued to (absent: an anonymous caller). */
  caller?: string;
}

const PREFIX = "s.";
const MAX_TOKEN_LENGTH = 4096;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

export async function signRequestState(
  webhookSecrets: string[],
  claims: RequestStateClaims,
): Promise<string> {
  const [key] = await derivedKeys(webhookSecrets.slice(0, 1), "mcp-request-state");
  if (!key) {
    throw new Error("no webhook secret configured");
  }
  const payload = toBase64Url(encoder.encode(JSON.stringify(claims)));
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(payload)));
  return `${PREFIX}${payload}.${toBase64Url(mac)}`;
}

/** The claims of a state we issued, or undefined for anything else (malformed or tampered). */
export async function verifyRequestState(
  webhookSecrets: string[],
  token: unknown,
): Promise<RequestStateClaims | undefined> {
  if (typeof token !== "string" || !token.startsWith(PREFIX) || token.length > MAX_TOKEN_LENGTH) {
    return undefined;
  }
  const [payload, signature, ...rest] = token.slice(PREFIX.length).split(".");
  const given = signature ? fromBase64Url(signature) : null;
  if (rest.length || !payload || !isBase64Url(payload) || !given) {
    return undefined;
  }
  let valid = false;
  for (const key of await derivedKeys(webhookSecrets, "mcp-request-state")) {
    const expected = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(payload)));
    valid = timingSafeEqual(expected, given) || valid;
  }
  return valid ? parseClaims(payload) : undefined;
}

function parseClaims(payload: string): RequestStateClaims | undefined {
  try {
    const bytes = fromBase64Url(payload);
    const value = bytes && (JSON.parse(decoder.decode(bytes)) as Record<string, unknown>);
    if (!value || typeof value !== "object") {
      return undefined;
    }
    const { threadId, runId, requestIds, caller } = value;
    if (
      typeof threadId === "string" &&
      typeof runId === "string" &&
      Array.isArray(requestIds) &&
      requestIds.every((id) => typeof id === "string") &&
      (caller === undefined || typeof caller === "string")
    ) {
      return { threadId, runId, requestIds, ...(caller === undefined ? {} : { caller }) };
    }
  } catch {
    // not JSON: malformed
  }
  return undefined;
}
