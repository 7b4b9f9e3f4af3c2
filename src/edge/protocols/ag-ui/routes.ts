/**
 * `POST /v1/ag-ui/:agent` — AG-UI 1.0 (`RunAgentInput` in, events out). The `threadId`
 * names a conversation per caller, as a chat id does. A new user message starts a run in
 * it; `resume` answers the interrupts of its paused run through the ledger (channel
 * `ag-ui`): every entry is checked before any is recorded (404 unknown — an interrupt of
 * another thread included —, 409 settled or expired, 403 not the caller's to decide, 400 a
 * malformed payload); repeating an answer already recorded is a no-op (idempotent resume);
 * interrupts left unanswered stay open and the next `RUN_FINISHED` lists them again.
 */
import { Hono } from "hono";
import { ApiError } from "../../http/errors";
import type { RunSummary } from "../../protocol";
import { checkAnswerable, memberOf, recordAnswer, type Answer } from "../answers";
import { readProtocolBody } from "../body";
import { conversation, type Conversation } from "../conversation";
import { protocolCors } from "../cors";
import { jsonWrites, sameSiteWrites } from "../../browser/writes";
import { protocolAuth, protocolBase, type ProtocolVars } from "../identity";
import { runnableAgent, startConversationRun, type ProtocolDeps } from "../start";
import {
  ApprovalPayloadSchema,
  givenState,
  MAX_AG_UI_BODY_BYTES,
  modelInput,
  newUserText,
  RunAgentInputSchema,
  type ResumeBody,
  type RunAgentBody,
} from "./input";
import type { Request } from "../../../core/types";
import { agUiStream, type AgUiStreamOptions } from "./stream";
import { FINISHED } from "../run-feed";
import { unpack } from "../../packed";

const ACTIVE = new Set(["running", "pending"]);

export function agUiRoutes(deps: ProtocolDeps) {
  // A browser's Access session rides along cross-site: other sites' pages may not write.
  return new Hono<ProtocolVars>()
    .use("/ag-ui/*", protocolCors())
    .use("/ag-ui/*", sameSiteWrites())
    .use("/ag-ui/*", protocolAuth())
    .use("/ag-ui/*", jsonWrites())
    .post("/ag-ui/:agent", async (c) => {
      const agent = runnableAgent(deps, c.env, c.req.param("agent"));
      const body = await readProtocolBody(c, MAX_AG_UI_BODY_BYTES, RunAgentInputSchema);
      refuseFrontendTools(body);
      const { user } = c.var.caller;
      const conv = await conversation(c.env, user, body.threadId);
      const runs = await conv.stub.runs();
      const latest = runs[runs.length - 1];
      const active = latest && ACTIVE.has(latest.status) ? latest : undefined;
      const message = newUserText(body);
      const fresh = message && (!latest || agUiMessageOf(latest) !== message.messageId);
      /** The run `from.runId` as this input's AG-UI stream, after `from.after`. */
      const stream = (from: StreamFrom) =>
        agUiStream({
          ...from,
          stub: conv.stub,
          ids: { threadId: body.threadId, runId: body.runId },
          state: givenState(body),
          user,
          base: protocolBase(c),
          signal: c.req.raw.signal,
        });

      if (body.resume && body.resume.length > 0) {
        if (fresh) {
          throw new ApiError(400, "invalid_body", {
            message: "send resume and a new user message in separate runs",
            issues: [{ path: "messages", message: "a new user message alongside resume" }],
          });
        }
        const answers = await checkResume(conv, {
          active,
          entries: body.resume,
          user,
          memberOf: memberOf(c.env, deps),
        });
        for (const answer of answers.toRecord) {
          await recordAnswer({ stub: conv.stub, runId: answers.runId }, answer, {
            user,
            channel: "ag-ui",
          });
        }
        const events = await unpack(await conv.stub.runEvents(answers.runId));
        const ids = new Set(answers.all);
        const cursor = Math.max(
          0,
          ...events
            .filter((e) => e.type === "pending" && ids.has(requestIdOf(e.data) ?? ""))
            .map((e) => e.id),
        );
        return stream({
          runId: answers.runId,
          after: cursor,
          before: events.filter((e) => e.id <= cursor),
        });
      }
      if (fresh && message) {
        if (!message.text) {
          throw new ApiError(400, "invalid_body", {
            message: "the new user message has no text",
            issues: [{ path: `messages[${body.messages.length - 1}].content`, message: "empty" }],
          });
        }
        if (active) {
          throw new ApiError(
            409,
            "thread_busy",
            `this thread's run ${active.runId} is ${active.status}; resume its interrupts first`,
          );
        }
        const run = await startConversationRun(c.env, deps, {
          publicUrl: protocolBase(c),
          agent,
          threadId: conv.threadId,
          stub: conv.stub,
          input: modelInput(message.text, body),
          user,
          metadata: {
            agUi: { threadId: body.threadId, runId: body.runId, messageId: message.messageId },
          },
        });
        return stream({ runId: run.runId, after: 0 });
      }
      if (latest && message) {
        // The same input again: its run, replayed (a finished one in one piece).
        return FINISHED.has(latest.status)
          ? stream({
              runId: latest.runId,
              after: 0,
              log: await unpack(await conv.stub.runEvents(latest.runId)),
            })
          : stream({ runId: latest.runId, after: 0 });
      }
      throw new ApiError(400, "nothing_to_run", {
        message: "RunAgentInput has neither a new user message nor resume",
        issues: [{ path: "messages", message: "the last message is not a new user message" }],
      });
    });
}

function refuseFrontendTools(body: RunAgentBody): void {
  const tools = body.tools ?? [];
  if (tools.length > 0) {
    throw new ApiError(400, "unsupported_tools", {
      message: `frontend tools are not supported (the agent's tools run on the server): ${tools.map((t) => t.name).join(", ")}`,
      issues: tools.map((t, i) => ({
        path: `tools[${i}].name`,
        message: `${t.name}: not supported`,
      })),
    });
  }
}

/** The client's id of the user message that started the run (by AG-UI or by the chat route). */
function agUiMessageOf(run: RunSummary): string | undefined {
  const metadata = run.metadata as {
    agUi?: { messageId?: unknown };
    chat?: { messageId?: unknown };
  } | null;
  const id = metadata?.agUi?.messageId ?? metadata?.chat?.messageId;
  return typeof id === "string" ? id : undefined;
}

function requestIdOf(data: Record<string, unknown>): string | undefined {
  const request = data.request as { id?: unknown } | undefined;
  return typeof request?.id === "string" ? request.id : undefined;
}

/** Which run, from where, and what has been seen of it: the part of a stream each branch chooses. */
type StreamFrom = Pick<AgUiStreamOptions, "runId" | "after" | "before" | "log">;

/** A `resume`, and who sends it: `active` is the thread's running or paused run, if any. */
interface ResumeInput {
  active: RunSummary | undefined;
  entries: ResumeBody[];
  user: string | null;
  memberOf: (identity: string) => string;
}

/** Checks every entry before any is recorded; repeats of recorded answers are dropped. */
async function checkResume(
  conv: Conversation,
  { active, entries, user, memberOf }: ResumeInput,
): Promise<{ runId: string; toRecord: Answer[]; all: string[] }> {
  const runId = (active ?? (await conv.stub.runs()).at(-1))?.runId;
  const unknown = (n: number) =>
    new ApiError(404, "interrupt_not_found", {
      message: `no interrupt ${entries[n]?.interruptId} in this thread`,
      issues: [{ path: `resume[${n}].interruptId`, message: "unknown interrupt" }],
    });
  if (!runId) {
    throw unknown(0);
  }
  const seen = new Set<string>();
  const toRecord: Answer[] = [];
  for (const [n, entry] of entries.entries()) {
    if (seen.has(entry.interruptId)) {
      throw new ApiError(400, "invalid_body", {
        message: `interrupt ${entry.interruptId} is answered twice`,
        issues: [{ path: `resume[${n}].interruptId`, message: "duplicate" }],
      });
    }
    seen.add(entry.interruptId);
    let checked: Awaited<ReturnType<typeof checkAnswerable>>;
    try {
      checked = await checkAnswerable({ stub: conv.stub, runId }, entry.interruptId, {
        user,
        intended: { decision: intendedDecision(entry), channel: "ag-ui" },
        memberOf,
      });
    } catch (error) {
      if (error instanceof ApiError && error.code === "request_not_found") {
        throw unknown(n);
      }
      throw error;
    }
    if (checked !== "repeat") {
      toRecord.push(answerOf(entry, checked, n));
    }
  }
  return { runId, toRecord, all: [...seen] };
}

function intendedDecision(entry: ResumeBody): Answer["decision"] {
  if (entry.status === "cancelled") {
    return "cancel";
  }
  const approved = (entry.payload as { approved?: unknown } | null | undefined)?.approved;
  return approved === false ? "decline" : "approve";
}

/** An approval takes `{ approved, reason?, editedArgs? }`; any other request takes the payload as its answer. */
function answerOf(entry: ResumeBody, request: Request, n: number): Answer {
  if (entry.status === "cancelled") {
    return { requestId: request.id, decision: "cancel" };
  }
  if (request.kind !== "approval") {
    return { requestId: request.id, decision: "approve", data: entry.payload ?? null };
  }
  const parsed = ApprovalPayloadSchema.safeParse(entry.payload);
  if (!parsed.success) {
    throw new ApiError(400, "invalid_body", {
      message:
        "an approval's payload is { approved: boolean, reason?: string, editedArgs?: object, argsHash?: string }",
      issues: parsed.error.issues.map((issue) => ({
        path: [`resume[${n}].payload`, ...issue.path.map(String)].join("."),
        message: issue.message,
      })),
    });
  }
  const { approved, reason, editedArgs, argsHash } = parsed.data;
  return {
    requestId: request.id,
    decision: approved ? "approve" : "decline",
    ...(reason === undefined ? {} : { reason }),
    ...(approved && editedArgs ? { args: editedArgs } : {}),
    ...(approved && argsHash ? { argsHash } : {}),
  };
}
