/**
 * The `/inbox` page's query: the filters and order of `GET /v1/approvals` (schemas.ts), read
 * from a GET form, where an empty field means "any". And the order the page merges the
 * groups' open lists in, the same each inbox listed them in.
 */
import * as z from "zod";
import type { InboxItem } from "../item";
import type { InboxFilters, InboxSort } from "./listing";
import { InboxFilterFields } from "../schemas";
import { filtersOf } from "./filter-query";

export type PageFilters = InboxFilters & { sort?: InboxSort };

const PageQuerySchema = z.strictObject(InboxFilterFields);

export function pageFilters(
  query: Record<string, string>,
): { ok: true; value: PageFilters } | { ok: false; message: string } {
  const given = Object.fromEntries(
    Object.entries(query).filter(([, value]) => value.trim() !== ""),
  );
  const parsed = PageQuerySchema.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join(".") : "the query";
    return {
      ok: false,
      message: `${where}: ${issue?.message ?? "invalid"}. Filters are agent, tool, requestedBy and q (up to 200 characters each); order is expires or surfaced.`,
    };
  }
  return { ok: true, value: filtersOf(parsed.data) };
}

const NO_EXPIRY = Number.POSITIVE_INFINITY;

/** Compares open items as the inboxes ordered them, so merging groups keeps the order. */
export function openOrder(sort: InboxSort | undefined): (a: InboxItem, b: InboxItem) => number {
  const surfaced = (i: InboxItem) => Date.parse(i.surfacedAt);
  if (sort === "expires") {
    const expires = (i: InboxItem) => (i.expiresAt ? Date.parse(i.expiresAt) : NO_EXPIRY);
    return (a, b) => expires(a) - expires(b) || surfaced(a) - surfaced(b);
  }
  return (a, b) => surfaced(a) - surfaced(b);
}
