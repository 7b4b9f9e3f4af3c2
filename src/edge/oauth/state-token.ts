/**
 * The `state` of an MCP sign-in: `<base64url(json claims)>.<base64url(hmac)>`, signed with
 * the key derived from `MCP_TOKEN_KEY` under its own label (keys.ts). It names the thread,
 * run and request the sign-in answers, so the callback route knows where to record the
 * answer without storing anything, and a made-up or altered state is refused before any
 * write. A random nonce makes each state unguessable (it is also the CSRF binding the
 * kernel checks against the sign-in in progress).
 */
import { fromBase64Url, isBase64Url, toBase64Url } from "../approvals/base64url";
import { tokenKeys } from "./keys";

export interface OAuthStateClaims {
  threadId: string;
  runId: string;
  requestId: string;
  /** The MCP server's config name, shown on the callback page. */
  server: string;
  /** Whose tokens these are (the run's requestedBy, else the thread): the decision's decidedBy. */
  subject: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
/** Far above any real state; bounds the work done on hostile input. */
const MAX_STATE_LENGTH = 2048;
const FIELDS = ["threadId", "runId", "requestId", "server", "subject"] as const;

export async function createOAuthState(secret: string, claims: OAuthStateClaims): Promise<string> {
  const nonce = toBase64Url(crypto.getRandomValues(new Uint8Array(16)));
  const body = Object.fromEntries(FIELDS.map((field) => [field, claims[field]]));
  const payload = toBase64Url(encoder.encode(JSON.stringify({ ...body, nonce })));
  const { state } = await tokenKeys(secret);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", state, encoder.encode(payload)));
  return `${payload}.${toBase64Url(mac)}`;
}

/** The claims of a state this edge signed, or undefined for anything else (checked before it is read). */
export async function verifyOAuthState(
  secret: string,
  token: string,
): Promise<OAuthStateClaims | undefined> {
  if (token.length === 0 || token.length > MAX_STATE_LENGTH) {
    return undefined;
  }
  const [payload, signature, ...rest] = token.split(".");
  const given = signature ? fromBase64Url(signature) : null;
  if (rest.length > 0 || !payload || !isBase64Url(payload) || !given) {
    return undefined;
  }
  const { state } = await tokenKeys(secret);
  if (!(await crypto.subtle.verify("HMAC", state, given, encoder.encode(payload)))) {
    return undefined;
  }
  return parseClaims(payload);
}

function parseClaims(payload: string): OAuthStateClaims | undefined {
  const bytes = fromBase64Url(payload);
  let value: unknown;
  try {
    value = bytes && JSON.parse(decoder.decode(bytes));
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) {
    return undefined;
  }
  const record = value as Record<string, unknown>;
  if (!FIELDS.every((field) => typeof record[field] === "string" && record[field] !== "")) {
    return undefined;
  }
  return Object.fromEntries(
    FIELDS.map((field) => [field, record[field]]),
  ) as unknown as OAuthStateClaims;
}
