/** The listing filters of a parsed query (`GET /v1/approvals`, `/inbox`), absent ones left out. */
import type { InboxFilters, InboxSort } from "./listing";

export function filtersOf(query: InboxFilters & { sort?: InboxSort | undefined }): InboxFilters & {
  sort?: InboxSort;
} {
  return {
    ...(query.agent === undefined ? {} : { agent: query.agent }),
    ...(query.tool === undefined ? {} : { tool: query.tool }),
    ...(query.requestedBy === undefined ? {} : { requestedBy: query.requestedBy }),
    ...(query.q === undefined ? {} : { q: query.q }),
    ...(query.sort === undefined ? {} : { sort: query.sort }),
  };
}
