/**
 * The checks of a new delegation (issue 42), one place for the API route and the inbox page:
 * `until` ahead and at most 90 days away (400 `invalid_until`), `from` and `to` members of an
 * approver group (400 `unknown_member`) and not the same person, `groups` among `from`'s
 * (400 `invalid_groups`), and the caller is `from` (403 `not_your_delegation`).
 */
import type { ApproverDirectory } from "../approvals/groups";
import { ApiError } from "../http/errors";
import type { ActiveDelegation } from "../protocol";
import { MAX_DELEGATION_DAYS } from "./schemas";

const DAY_MS = 24 * 3600 * 1000;

export interface DelegationAsked {
  from: string;
  to: string;
  until: string;
  groups?: string[] | undefined;
}

/** The delegation to store, or the ApiError that says what is wrong with it. */
export function newDelegation(
  people: ApproverDirectory,
  { body, caller, now }: { body: DelegationAsked; caller: string | undefined; now: number },
): ActiveDelegation & { createdAt: string } {
  const until = Date.parse(body.until);
  if (!Number.isFinite(until) || until <= now || until > now + MAX_DELEGATION_DAYS * DAY_MS) {
    throw new ApiError(400, "invalid_until", {
      message: `until must be in the future and at most ${MAX_DELEGATION_DAYS} days away`,
      issues: [{ path: "until", message: until > now ? "too far ahead" : "not in the future" }],
    });
  }
  const from = member(people, body.from, "from");
  const to = member(people, body.to, "to");
  if (from === to) {
    throw new ApiError(400, "invalid_body", {
      message: "a member cannot delegate to themselves",
      issues: [{ path: "to", message: "the same member as from" }],
    });
  }
  const own = people.groupsOfMember(from);
  const outside = (body.groups ?? []).filter((g) => !own.includes(g));
  if (outside.length > 0) {
    throw new ApiError(400, "invalid_groups", {
      message: `${from} is not a member of ${outside.map((g) => JSON.stringify(g)).join(", ")}: a delegation covers only groups of its giver`,
      issues: [{ path: "groups", message: "not a group of from" }],
    });
  }
  if (caller !== from) {
    throw new ApiError(403, "not_your_delegation", {
      message: `a member may delegate only themselves: ${caller === undefined ? "the caller names nobody (send x-toolnexus-user)" : `${caller} is not ${from}`}`,
    });
  }
  return {
    id: `dlg_${crypto.randomUUID().replace(/-/g, "")}`,
    from,
    to,
    until: new Date(until).toISOString(),
    ...(body.groups?.length ? { groups: [...new Set(body.groups)] } : {}),
    createdAt: new Date(now).toISOString(),
  };
}

/** The member an identity names; anyone else is 400 `unknown_member`. */
function member(people: ApproverDirectory, identity: string, field: "from" | "to"): string {
  const id = people.memberOf(identity);
  if (id === undefined || people.groupsOfMember(id).length === 0) {
    throw new ApiError(400, "unknown_member", {
      message: `${JSON.stringify(identity)} is not a member of any approver group`,
      issues: [{ path: field, message: "not a member" }],
    });
  }
  return id;
}
