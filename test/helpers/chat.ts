/** Driving the chat (AI SDK UI) and AG-UI routes in the workers pool: bodies, streams, frames. */
import { api } from "./edge";

export type Frame = Record<string, unknown> & { type: string };

/** Every `data:` frame of an SSE body, JSON-parsed, until the body ends (`[DONE]` dropped). */
export async function readFrames(response: Response): Promise<Frame[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .map((block) =>
      block
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => line.slice(6))
        .join("\n"),
    )
    .filter((data) => data && data !== "[DONE]")
    .map((data) => JSON.parse(data) as Frame);
}

export function userMessage(text: string, id = `m_${crypto.randomUUID()}`) {
  return { id, role: "user", parts: [{ type: "text", text }] };
}

export function chatPost(
  body: unknown,
  headers: Record<string, string> = {},
  agent = "support",
): Promise<Response> {
  return api(`/v1/chat/${agent}`, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers,
  });
}

/** The assistant message the client would hold after `frames`, with one tool part answered. */
export function answeredAssistant(
  frames: Frame[],
  approval: { approved: boolean; reason?: string },
): { id: string; role: "assistant"; parts: unknown[] } {
  const start = frames.find((f) => f.type === "start");
  const input = frames.find((f) => f.type === "tool-input-available");
  const request = frames.find((f) => f.type === "tool-approval-request");
  if (!start || !input || !request) {
    throw new Error(`no approval request in ${JSON.stringify(frames)}`);
  }
  return {
    id: String(start.messageId),
    role: "assistant",
    parts: [
      {
        type: `tool-${String(input.toolName)}`,
        toolCallId: input.toolCallId,
        state: "approval-responded",
        input: input.input,
        approval: { id: request.approvalId, ...approval },
      },
    ],
  };
}

export function agUiPost(
  body: unknown,
  headers: Record<string, string> = {},
  agent = "support",
): Promise<Response> {
  return api(`/v1/ag-ui/${agent}`, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { accept: "text/event-stream", ...headers },
  });
}

export function runAgentInput(threadId: string, extra: Record<string, unknown> = {}) {
  return {
    threadId,
    runId: `r_${crypto.randomUUID()}`,
    messages: [],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
    ...extra,
  };
}

/** Reads an SSE body frame by frame; `until` stops at the first frame that matches (the rest stays unread). */
export function frameReader(response: Response) {
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (!reader) {
    throw new Error("no body");
  }
  let buffer = "";
  const seen: Frame[] = [];
  return {
    seen,
    async until(match: (frame: Frame) => boolean): Promise<Frame> {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block
            .split("\n")
            .filter((l) => l.startsWith("data: "))
            .map((l) => l.slice(6))
            .join("\n");
          if (data && data !== "[DONE]") {
            const frame = JSON.parse(data) as Frame;
            seen.push(frame);
            if (match(frame)) {
              return frame;
            }
          }
          continue;
        }
        const { done, value } = await reader.read();
        if (done) {
          throw new Error(
            `stream ended before a match; saw ${JSON.stringify(seen.map((f) => f.type))}`,
          );
        }
        buffer += value;
      }
    },
    cancel: () => reader.cancel().catch(() => {}),
  };
}
