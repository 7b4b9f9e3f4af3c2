/**
 * Where a tool call waits on a group's decision. The server announces it as a
 * `data-toolnexus-waiting` part: `data.toolCallId` names the tool part it waits for (that
 * part has no `approval`, since nobody asked this reader), and after this reader's own
 * vote on a quorum the part's `approval.id` is the waiting request's `data.requestId`.
 */

/** The waiting parts of a conversation, as `{ requestId, group, needed, votes, inboxUrl, toolCallId? }`. */
export function waitingParts(messages) {
  return messages
    .flatMap((message) => message.parts)
    .filter((part) => part.type === "data-toolnexus-waiting")
    .map((part) => part.data);
}

/** The wait a tool part is in, or undefined. */
export function waitingFor(part, waiting) {
  return waiting.find(
    (w) =>
      (w.toolCallId !== undefined && w.toolCallId === part.toolCallId) ||
      (part.approval !== undefined && w.requestId === part.approval.id),
  );
}
