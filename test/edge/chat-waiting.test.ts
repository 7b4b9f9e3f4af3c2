/**
 * Issue 39 item 4: examples/chat shows where a tool call waits on a group. The server's
 * `data-toolnexus-waiting` part names the tool call it waits for (`toolCallId`): the tool part
 * of a request this reader may not decide has no `approval`, so the example's lookup
 * (examples/chat/src/waiting.js) finds it by its `toolCallId` — fed here with the frames the
 * real chat route streams for a $2000 refund (two of finance).
 */
import { describe, expect, it } from "vitest";
// @ts-expect-error: the example's plain JavaScript module (no declarations)
import { waitingFor, waitingParts } from "../../examples/chat/src/waiting.js";
import { chatPost, frameReader, userMessage } from "../helpers/chat";

type Waiting = { requestId: string; group: string | null; toolCallId?: string };
const lookup = waitingFor as (part: Record<string, unknown>, waiting: Waiting[]) => Waiting;
const parts = waitingParts as (messages: Array<{ parts: unknown[] }>) => Waiting[];

describe("examples/chat: the waiting card", () => {
  it("finds the group wait of a tool part that has no approval, by its toolCallId", async () => {
    const live = frameReader(
      await chatPost({
        id: `chat-${crypto.randomUUID()}`,
        messages: [userMessage("refund $2000 on order 42")],
      }),
    );
    const waiting = await live.until((f) => f.type === "data-toolnexus-waiting");
    await live.cancel();
    const input = live.seen.find((f) => f.type === "tool-input-available");
    // The assistant message as useChat builds it: the tool part (input available, no
    // approval: nobody asked this reader) and the data part.
    const message = {
      parts: [
        {
          type: "tool-refund_order",
          toolCallId: input?.toolCallId,
          state: "input-available",
          input: input?.input,
        },
        { type: waiting.type, id: waiting.id, data: waiting.data },
      ],
    };
    const found = lookup(message.parts[0] as Record<string, unknown>, parts([message]));
    expect(found).toMatchObject({ group: "finance", toolCallId: input?.toolCallId });
  });

  it("after the reader's own vote, the part's approval id is the waiting request", () => {
    const waiting = [{ requestId: "apr_1", group: null }];
    expect(lookup({ toolCallId: "call_1", approval: { id: "apr_1" } }, waiting)).toBe(waiting[0]);
    expect(lookup({ toolCallId: "call_2" }, waiting)).toBeUndefined();
  });
});
