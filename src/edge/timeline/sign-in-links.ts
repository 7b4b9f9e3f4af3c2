/**
 * The timeline is for people other than the requester (group members, view-link holders), so
 * an MCP sign-in request shows there without its link (src/edge/oauth/sign-in-link.ts): in the
 * page's input and in the event stream the page's script reads.
 */
import type { Request } from "../../core/types";
import { withoutSignInLink } from "../oauth/sign-in-request";
import type { TimelineInput } from "./model";

type WithRequest = { request?: Request } & Record<string, unknown>;

function eventData(type: string, data: unknown): unknown {
  const request = (data as WithRequest | null)?.request;
  if (type !== "pending" || !request) {
    return data;
  }
  return { ...(data as WithRequest), request: withoutSignInLink(request) };
}

export function timelineWithoutSignInLinks(input: TimelineInput): TimelineInput {
  const { run } = input;
  return {
    ...input,
    run: run.pending ? { ...run, pending: withoutSignInLink(run.pending) } : run,
    events: input.events.map((event) => ({ ...event, data: eventData(event.type, event.data) })),
  };
}

/** An SSE body with each `pending` event's sign-in link left out (blocks end with a blank line). */
export function sseWithoutSignInLinks(
  body: ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let buffered = "";
  const rewrite = (block: string): string => {
    if (!/^event: pending$/m.test(block)) {
      return block;
    }
    return block.replace(/^data: (.*)$/m, (_line, json: string) => {
      try {
        return `data: ${JSON.stringify(eventData("pending", JSON.parse(json)))}`;
      } catch {
        return "data: {}";
      }
    });
  };
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        buffered += decoder.decode(chunk, { stream: true });
        const end = buffered.lastIndexOf("\n\n");
        if (end >= 0) {
          const complete = buffered.slice(0, end + 2);
          buffered = buffered.slice(end + 2);
          controller.enqueue(encoder.encode(complete.split("\n\n").map(rewrite).join("\n\n")));
        }
      },
      flush(controller) {
        if (buffered) {
          controller.enqueue(encoder.encode(rewrite(buffered)));
        }
      },
    }),
  );
}
