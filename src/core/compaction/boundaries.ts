/**
 * Tool-pair safety (§7F): where a transcript may be cut so that no tool result loses the
 * assistant turn that asked for it. A cut may only fall just before a `user` message that
 * carries no tool result. The rule is the same for both wire styles: under openai a tool
 * result is its own `tool` message (never a boundary), so every `user` message is one; under
 * anthropic a tool result is a `user` message whose content holds `tool_result` blocks —
 * part of the tool group, not a boundary.
 */

/** The least a message must look like: a role, and content of any shape. */
export interface CompactableMessage {
  role: string;
  content?: unknown;
}

export function carriesToolResult(message: CompactableMessage): boolean {
  if (message.role === "tool") {
    return true;
  }
  const content = message.content;
  return (
    Array.isArray(content) &&
    content.some(
      (block) =>
        typeof block === "object" &&
        block !== null &&
        (block as { type?: unknown }).type === "tool_result",
    )
  );
}

/** Indices `i` of `body` such that `body.slice(i)` starts a valid tail, in ascending order. */
export function tailBoundaries(body: readonly CompactableMessage[]): number[] {
  const out: number[] = [];
  body.forEach((message, index) => {
    if (message.role === "user" && !carriesToolResult(message)) {
      out.push(index);
    }
  });
  return out;
}
