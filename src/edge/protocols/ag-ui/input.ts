/**
 * `RunAgentInput` as `POST /v1/ag-ui/:agent` reads it (AG-UI 1.0). The stored transcript is
 * authoritative: of `messages` only the last one, when it is a new user message, is read;
 * `resume` answers the interrupts of the thread's run. Frontend `tools` are refused (400,
 * naming them): the agent's tools are the server's. `context` and `state` reach the model
 * as a short block after the user's text (see docs/ag-ui.md).
 */
import * as z from "zod";
import { MAX_CONVERSATION_ID_CHARS } from "../conversation";
import { editedArgsField } from "../../../core/approvers/edit-fields";

export const MAX_AG_UI_BODY_BYTES = 1024 * 1024;

const id = (what: string) =>
  z
    .string()
    .min(1, `${what} must not be empty`)
    .max(MAX_CONVERSATION_ID_CHARS, `must be at most ${MAX_CONVERSATION_ID_CHARS} characters`);

export const ResumeEntrySchema = z.looseObject({
  interruptId: z.string().min(1).max(512),
  status: z.enum(["resolved", "cancelled"]),
  payload: z.unknown().optional(),
});

export const RunAgentInputSchema = z.looseObject({
  threadId: id("threadId"),
  runId: id("runId"),
  protocolVersion: z.string().max(32).optional(),
  parentRunId: z.string().max(512).optional(),
  state: z.unknown().optional(),
  messages: z
    .array(
      z.looseObject({
        id: z.string().max(512),
        role: z.string().min(1),
        content: z.unknown().optional(),
      }),
    )
    .max(10_000),
  tools: z
    .array(z.looseObject({ name: z.string() }))
    .max(1_000)
    .optional(),
  context: z
    .array(z.looseObject({ description: z.string().max(10_000), value: z.string().max(100_000) }))
    .max(1_000)
    .optional(),
  forwardedProps: z.unknown().optional(),
  resume: z.array(ResumeEntrySchema).max(100).optional(),
});

export type RunAgentBody = z.infer<typeof RunAgentInputSchema>;
export type ResumeBody = z.infer<typeof ResumeEntrySchema>;

/**
 * A resolved approval's payload (`{ approved, reason?, editedArgs?, argsHash? }`);
 * `argsHash` echoes the interrupt's `metadata.argsHash` (the version approved).
 */
export const ApprovalPayloadSchema = z.strictObject({
  approved: z.boolean(),
  reason: z.string().max(2_000).optional(),
  editedArgs: editedArgsField().optional(),
  argsHash: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/, "must be an argsHash (43 base64url characters)")
    .optional(),
});

/** The text of the last message when it is the user's (string content, or its text parts). */
export function newUserText(body: RunAgentBody): { messageId: string; text: string } | undefined {
  const last = body.messages[body.messages.length - 1];
  if (last?.role !== "user") {
    return undefined;
  }
  const content = last.content;
  const text =
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content
            .map((p) =>
              typeof p === "object" && p !== null && (p as { type?: unknown }).type === "text"
                ? String((p as { text?: unknown }).text ?? "")
                : "",
            )
            .join("\n")
        : "";
  return { messageId: last.id, text: text.trim() };
}

/** What the model reads: the user's text, then the context entries and the state, if any. */
export function modelInput(text: string, body: RunAgentBody): string {
  const blocks = [text];
  if (body.context && body.context.length > 0) {
    blocks.push(
      ["Context:", ...body.context.map((c) => `- ${c.description}: ${c.value}`)].join("\n"),
    );
  }
  const state = givenState(body);
  if (state !== undefined) {
    blocks.push(`State: ${JSON.stringify(state)}`);
  }
  return blocks.join("\n\n");
}

/**
 * The input's `state` when it says anything: `HttpAgent` sends `{}` on every run, which
 * neither reaches the model nor is echoed back as a STATE_SNAPSHOT the client already has.
 */
export function givenState(body: RunAgentBody): unknown {
  const { state } = body;
  const empty =
    state === undefined ||
    state === null ||
    (typeof state === "object" && Object.keys(state).length === 0);
  return empty ? undefined : state;
}
