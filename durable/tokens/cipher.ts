/**
 * AES-GCM for one stored OAuth record: a fresh 96-bit IV per write, and the subject and
 * server as additional data, so a row copied under another server or into another subject's
 * object does not decrypt. The key is derived from `MCP_TOKEN_KEY` (src/edge/oauth/keys.ts).
 */
import type { OAuthRecord } from "../../src/core/mcp/oauth/store";
import { decodeOAuthRecord } from "../storage/decode";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface Sealed {
  iv: Uint8Array;
  data: Uint8Array;
}

const boundTo = (subject: string, server: string) =>
  encoder.encode(JSON.stringify(["toolnexus-edge oauth record", subject, server]));

export async function seal(
  key: CryptoKey,
  where: { subject: string; server: string },
  record: OAuthRecord,
): Promise<Sealed> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: boundTo(where.subject, where.server) },
    key,
    encoder.encode(JSON.stringify(record)),
  );
  return { iv, data: new Uint8Array(data) };
}

/** The record, or undefined when it does not decrypt (another key, another place, altered). */
export async function open(
  key: CryptoKey,
  where: { subject: string; server: string },
  sealed: Sealed,
): Promise<OAuthRecord | undefined> {
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: sealed.iv, additionalData: boundTo(where.subject, where.server) },
      key,
      sealed.data,
    );
    return decodeOAuthRecord(decoder.decode(plain));
  } catch {
    return undefined;
  }
}
