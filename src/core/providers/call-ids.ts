/** An id for a tool call whose provider sent none; the loop needs one per call to balance results. */
export function newCallId(): string {
  return `call_${crypto.randomUUID().replace(/-/g, "").slice(0, 24)}`;
}
