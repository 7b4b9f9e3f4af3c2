/**
 * What a listing of one inbox asks for: status, filters (agent, tool, requester, text) and
 * order, the same for `GET /v1/approvals`, the `/inbox` page and the `InboxObject`. Its
 * cursor carries a fingerprint of everything but the position, so a cursor from one filter
 * or order used with another is refused (400) instead of silently skipping or repeating items.
 */
import { toBase64Url } from "../../approvals/base64url";

export type InboxStatus = "open" | "decided";
/** `default`: open oldest surfaced first, decided newest decision first (as before filters existed). */
export type InboxSort = "default" | "expires" | "surfaced";
export const INBOX_SORTS: readonly InboxSort[] = ["default", "expires", "surfaced"];

export interface InboxFilters {
  agent?: string;
  tool?: string;
  requestedBy?: string;
  /** Text in the prompt or the arguments (or the user's input), case-insensitive. */
  q?: string;
}

export interface InboxListQuery extends InboxFilters {
  status: InboxStatus;
  limit: number;
  sort?: InboxSort;
  /** Position after which the page starts (decoded from the previous page's `nextCursor`). */
  cursor?: InboxCursor;
}

/** Position in a listing: the sort value then the item key, plus the listing's fingerprint. */
export interface InboxCursor {
  sort: number;
  id: string;
  /** Absent on cursors made before filters existed: they belong to the unfiltered default order. */
  fp?: string;
}

/**
 * Text folded for a case-insensitive, Unicode-aware "contains": compatibility forms unified
 * (NFKC: full-width letters, ligatures) and case folded through upper then lower, so "ß"
 * matches "SS" and "Σ"/"ς"/"σ" match each other. Stored beside each item and applied to `q`.
 */
export function foldText(text: string): string {
  return text.normalize("NFKC").toUpperCase().toLowerCase().replaceAll("ς", "σ").normalize("NFKC");
}

/** Listing identity apart from position: what a cursor may only be used with. */
export function listingFingerprint(
  group: string,
  query: Omit<InboxListQuery, "limit" | "cursor">,
): string {
  const parts = [
    group,
    query.status,
    query.sort ?? "default",
    query.agent ?? "",
    query.tool ?? "",
    query.requestedBy ?? "",
    query.q === undefined ? "" : foldText(query.q),
  ];
  return hash53(JSON.stringify(parts));
}

/** The fingerprint of the plain listing (no filters, default order): old two-part cursors. */
export function isPlainListing(query: Omit<InboxListQuery, "limit" | "cursor">): boolean {
  return (
    (query.sort ?? "default") === "default" &&
    query.agent === undefined &&
    query.tool === undefined &&
    query.requestedBy === undefined &&
    query.q === undefined
  );
}

export function hasFilters(query: InboxFilters): boolean {
  return (
    query.agent !== undefined ||
    query.tool !== undefined ||
    query.requestedBy !== undefined ||
    query.q !== undefined
  );
}

/** Whether a decoded cursor may continue this listing. */
export function cursorFits(
  cursor: InboxCursor,
  group: string,
  query: Omit<InboxListQuery, "limit" | "cursor">,
): boolean {
  return cursor.fp === undefined
    ? isPlainListing(query)
    : cursor.fp === listingFingerprint(group, query);
}

export function encodeCursor(cursor: InboxCursor): string {
  const parts =
    cursor.fp === undefined ? [cursor.sort, cursor.id] : [cursor.sort, cursor.id, cursor.fp];
  return toBase64Url(new TextEncoder().encode(JSON.stringify(parts)));
}

/** The cursor, or undefined when the text is not one we made. */
export function decodeCursor(text: string): InboxCursor | undefined {
  if (!/^[A-Za-z0-9_-]{1,1024}$/.test(text)) {
    return undefined;
  }
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    const json: unknown = JSON.parse(
      new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(
        Uint8Array.from(binary, (c) => c.charCodeAt(0)),
      ),
    );
    if (
      Array.isArray(json) &&
      (json.length === 2 || (json.length === 3 && typeof json[2] === "string")) &&
      Number.isSafeInteger(json[0]) &&
      typeof json[1] === "string"
    ) {
      return json.length === 3
        ? { sort: json[0], id: json[1], fp: json[2] }
        : { sort: json[0], id: json[1] };
    }
  } catch {
    // fall through: not ours
  }
  return undefined;
}

/** A short non-cryptographic hash (cyrb53): the fingerprint only tells listings apart, it guards nothing. */
function hash53(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}
