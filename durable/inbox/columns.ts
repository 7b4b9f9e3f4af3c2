/**
 * The inbox projection's searchable columns: what each item is filtered, sorted and counted
 * by, computed from the item once when it is written (and once for rows written before the
 * columns existed), so a listing reads indexes instead of decoding bodies.
 */
import { foldText } from "../../src/edge/inbox/find/listing";
import type { InboxItem } from "../../src/edge/inbox/item";

/** No expiry sorts after every real one (ascending), and keeps keyset cursors plain integers. */
export const NO_EXPIRY = Number.MAX_SAFE_INTEGER;
/** Text searched by `q`: kept under one row value's inline size (storage/large/values.ts). */
const SEARCH_CHARS = 32 * 1024;

export interface ItemColumns {
  agent: string;
  tool: string | null;
  requestedBy: string | null;
  expires: number;
  surfaced: number;
  search: string;
  decidedAt: number | null;
  decidedBy: string | null;
  channel: string | null;
  outcome: string | null;
}

export function columnsOf(item: InboxItem): ItemColumns {
  const expires = item.expiresAt ? Date.parse(item.expiresAt) : Number.NaN;
  const decidedAt = item.decision ? Date.parse(item.decision.decidedAt) : Number.NaN;
  const args = JSON.stringify(item.args) ?? "";
  return {
    agent: item.agent,
    tool: item.tool,
    // Requesters are people's ids and emails: matched case-insensitively.
    requestedBy: item.requestedBy ? item.requestedBy.toLowerCase() : null,
    expires: Number.isFinite(expires) ? expires : NO_EXPIRY,
    surfaced: Date.parse(item.surfacedAt),
    search: foldText(`${item.prompt}\n${args}\n${item.input}`).slice(0, SEARCH_CHARS),
    decidedAt: Number.isFinite(decidedAt) ? decidedAt : null,
    decidedBy: item.decision?.decidedBy ?? null,
    channel: item.decision?.channel ?? null,
    outcome: item.decision?.outcome ?? null,
  };
}
