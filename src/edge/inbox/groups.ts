/**
 * Which inboxes exist: `default` (requests without a group) and every approver group.
 * Checked before an `InboxObject` is touched, so an unknown name creates no storage.
 */
import { DEFAULT_GROUP } from "./item";

export function inboxGroups(_env: object): Set<string> {
  return new Set([DEFAULT_GROUP]);
}
