/**
 * The AI SDK UI routes (`useChat` with `DefaultChatTransport`):
 * - `POST /v1/chat/:agent` — a new user message starts a run; approval responses and tool
 *   outputs in the latest assistant message answer the run's requests through the ledger
 *   (channel `chat`); the answer is the run's UI message stream.
 * - `GET /v1/chat/:agent/:id/stream` — the active run's stream again (`useChat({ resume })`),
 *   `204` when the conversation has no active run.
 * - `GET /v1/chat/:agent/:id/messages` — the conversation as UI messages, for a page that
 *   reopens it (finished runs in full; the active run's user message, its answer being the
 *   resumable stream).
 */
import { Hono, type Context } from "hono";
import { ApiError } from "../../http/errors";
import type { RunSummary } from "../../protocol";
import { checkAnswerable, memberOf, recordAnswer, type Answer } from "../answers";
import { readProtocolBody } from "../body";
import { conversation, type Conversation } from "../conversation";
import { protocolCors } from "../cors";
import { jsonWrites, sameSiteWrites } from "../../browser/writes";
import { protocolAuth, protocolBase, type ProtocolVars } from "../identity";
import {
  checkMessageLength,
  runnableAgent,
  startConversationRun,
  type ProtocolDeps,
} from "../start";
import { conversationMessages } from "./history";
import {
  ChatBodySchema,
  ChatTurnError,
  MAX_CHAT_BODY_BYTES,
  readChatTurn,
  type ChatBody,
} from "./request";
import { chatStream } from "./stream";
import { assistantMessageId, type UiChunk } from "./chunks";
import { followUpStream } from "./follow-up";
import { FINISHED } from "../run-feed";
import { unpack } from "../../packed";

const ACTIVE = new Set(["running", "pending"]);

export function chatRoutes(deps: ProtocolDeps) {
  // A browser's Access session rides along cross-site: other sites' pages may not write.
  return new Hono<ProtocolVars>()
    .use("/chat/*", protocolCors())
    .use("/chat/*", sameSiteWrites())
    .use("/chat/*", protocolAuth())
    .use("/chat/*", jsonWrites())
    .post("/chat/:agent", async (c) => {
      const agent = runnableAgent(deps, c.env, c.req.param("agent"));
      const body = await readProtocolBody(c, MAX_CHAT_BODY_BYTES, ChatBodySchema);
      if (body.trigger === "regenerate-message") {
        throw new ApiError(400, "unsupported_trigger", {
          message:
            "regenerate-message is not supported: the stored transcript is authoritative; send a new message",
          issues: [{ path: "trigger", message: "only submit-message" }],
        });
      }
      const turn = readTurn(body);
      const { user } = c.var.caller;
      const conv = await conversation(c.env, user, body.id);
      const runs = await conv.stub.runs();
      const latest = runs[runs.length - 1];
      const active = latest && ACTIVE.has(latest.status) ? latest : undefined;

      if (turn.user && latest && chatMessageOf(latest) === turn.user.messageId) {
        // The same message again: its run, not a second one (a finished one in one piece).
        return streamFrom(c, conv, {
          runId: latest.runId,
          after: 0,
          ...(FINISHED.has(latest.status)
            ? { log: await unpack(await conv.stub.runEvents(latest.runId)) }
            : {}),
        });
      }
      const start = () =>
        startConversationRun(c.env, deps, {
          publicUrl: protocolBase(c),
          agent,
          threadId: conv.threadId,
          stub: conv.stub,
          input: turn.user?.text ?? "",
          user,
          metadata: { chat: { id: body.id, messageId: turn.user?.messageId } },
        });
      if (turn.user && !active) {
        // No active run, so any approval responses alongside are history (already settled).
        return streamFrom(c, conv, { runId: (await start()).runId, after: 0 });
      }
      // Everything is checked before anything is written.
      const answers = active
        ? await collectAnswers({ conv, active, user, member: memberOf(c.env, deps) }, turn, body)
        : undefined;
      if (turn.user && active) {
        if (!answers || answers.all.length === 0) {
          throw new ApiError(
            409,
            "thread_busy",
            `this conversation's run ${active.runId} is ${active.status}; answer its request or wait for it to finish`,
          );
        }
        // The new message waits behind the run its answers continue (chat/follow-up.ts).
        checkMessageLength(turn.user.text);
        await recordAll({ conv, runId: active.runId, user }, answers.toRecord);
        return followUpStream({
          stub: conv.stub,
          runningId: active.runId,
          startNext: start,
          user,
          base: protocolBase(c),
          answered: new Set(answers.all),
          signal: c.req.raw.signal,
        });
      }
      if (!active || !answers || answers.all.length === 0) {
        if (turn.responses.length > 0 && !active) {
          const [first] = turn.responses;
          // The run may already have finished with that decision: a settled request is 409.
          if (first && (await decidedInConversation(conv, first.approvalId))) {
            throw new ApiError(409, "request_not_pending", {
              message: `request ${first.approvalId} was already decided`,
              issues: [{ path: `${first.path}.approval.id`, message: "already decided" }],
            });
          }
          throw new ApiError(404, "request_not_found", {
            message: `no open request ${first?.approvalId} in this conversation`,
            issues: [{ path: `${first?.path}.approval.id`, message: "unknown approval id" }],
          });
        }
        throw new ApiError(400, "nothing_to_answer", {
          message:
            "the last message is neither a new user message nor carries an answer to an open request",
          issues: [
            {
              path: "messages",
              message: "no new user message, approval response or tool output",
            },
          ],
        });
      }
      const initial = await recordAll(
        { conv, runId: active.runId, user },
        answers.toRecord,
        protocolBase(c),
      );
      const events = await unpack(await conv.stub.runEvents(active.runId));
      const answered = new Set(answers.all);
      const cursor = Math.max(
        0,
        ...events
          .filter((e) => e.type === "pending" && answered.has(requestIdOf(e.data) ?? ""))
          .map((e) => e.id),
      );
      const last = body.messages[body.messages.length - 1];
      return streamFrom(c, conv, {
        runId: active.runId,
        after: cursor,
        before: events.filter((e) => e.id <= cursor),
        answered,
        initial,
        continuing: last?.role === "assistant" && last.id === assistantMessageId(active.runId),
      });
    })
    .get("/chat/:agent/:id/stream", async (c) => {
      runnableAgent(deps, c.env, c.req.param("agent"));
      const conv = await conversation(c.env, c.var.caller.user, c.req.param("id"));
      const runs = await conv.stub.runs();
      const latest = runs[runs.length - 1];
      if (!latest || !ACTIVE.has(latest.status)) {
        return c.body(null, 204);
      }
      return streamFrom(c, conv, { runId: latest.runId, after: 0 });
    })
    .get("/chat/:agent/:id/messages", async (c) => {
      runnableAgent(deps, c.env, c.req.param("agent"));
      const conv = await conversation(c.env, c.var.caller.user, c.req.param("id"));
      return c.json({ messages: await conversationMessages(conv.stub) });
    });
}

function readTurn(body: ChatBody) {
  try {
    return readChatTurn(body);
  } catch (error) {
    if (error instanceof ChatTurnError) {
      throw new ApiError(400, "invalid_body", {
        message: error.message,
        issues: [{ path: error.path, message: error.message }],
      });
    }
    throw error;
  }
}

function chatMessageOf(run: RunSummary): string | undefined {
  const chat = (run.metadata as { chat?: { messageId?: unknown } } | null)?.chat;
  return typeof chat?.messageId === "string" ? chat.messageId : undefined;
}

function requestIdOf(data: Record<string, unknown>): string | undefined {
  const request = data.request as { id?: unknown } | undefined;
  return typeof request?.id === "string" ? request.id : undefined;
}

/**
 * The answers the body carries, each checked (404 unknown, 409 settled, 403 not theirs);
 * the caller's own identical answer, already recorded, is a repeat (nothing to record).
 */
async function collectAnswers(
  {
    conv,
    active,
    user,
    member,
  }: {
    conv: Conversation;
    active: RunSummary;
    user: string | null;
    member: (identity: string) => string;
  },
  turn: ReturnType<typeof readChatTurn>,
  body: ChatBody,
): Promise<{ toRecord: Answer[]; all: string[] }> {
  const toRecord: Answer[] = [];
  const all: string[] = [];
  const runId = active.runId;
  for (const response of turn.responses) {
    const decision = response.approved ? "approve" : "decline";
    let checked: Awaited<ReturnType<typeof checkAnswerable>>;
    try {
      checked = await checkAnswerable({ stub: conv.stub, runId }, response.approvalId, {
        user,
        intended: { decision, channel: "chat" },
        memberOf: member,
      });
    } catch (error) {
      if (error instanceof ApiError && error.code === "request_not_found") {
        throw new ApiError(404, error.code, {
          message: error.message,
          issues: [{ path: `${response.path}.approval.id`, message: "unknown approval id" }],
        });
      }
      throw error;
    }
    all.push(response.approvalId);
    if (checked === "repeat") {
      continue;
    }
    // An own entry only: an approval id such as "constructor" must not find Object's.
    const edit =
      body.edits && Object.hasOwn(body.edits, response.approvalId)
        ? body.edits[response.approvalId]
        : undefined;
    toRecord.push({
      requestId: response.approvalId,
      decision,
      ...(response.reason === undefined ? {} : { reason: response.reason }),
      ...(edit && response.approved ? { args: edit } : {}),
      ...(response.argsHash === undefined ? {} : { argsHash: response.argsHash }),
    });
  }
  if (turn.outputs.length > 0) {
    const open = await conv.stub.openRequests(runId);
    const events = open.length > 0 ? await unpack(await conv.stub.runEvents(runId)) : [];
    for (const output of turn.outputs) {
      const pending = events.find((e) => e.type === "pending" && e.data.id === output.toolCallId);
      const requestId = pending && requestIdOf(pending.data);
      const request = open.find((r) => r.id === requestId);
      if (request && !all.includes(request.id)) {
        await checkAnswerable({ stub: conv.stub, runId }, request.id, { user });
        all.push(request.id);
        toRecord.push({ requestId: request.id, decision: "approve", data: output.output });
      }
    }
  }
  return { toRecord, all };
}

/** Records checked answers; a vote that leaves a quorum open becomes a waiting part. */
async function recordAll(
  { conv, runId, user }: { conv: Conversation; runId: string; user: string | null },
  answers: Answer[],
  base?: string,
): Promise<UiChunk[]> {
  const initial: UiChunk[] = [];
  for (const answer of answers) {
    const outcome = await recordAnswer({ stub: conv.stub, runId }, answer, {
      user,
      channel: "chat",
    });
    if (base !== undefined && outcome.decision === null && outcome.votes !== undefined) {
      initial.push({
        type: "data-toolnexus-waiting",
        id: answer.requestId,
        data: {
          requestId: answer.requestId,
          group: null,
          needed: outcome.needed ?? 1,
          votes: outcome.votes,
          inboxUrl: `${base}/inbox`,
        },
      });
    }
  }
  return initial;
}

/** The run's UI message stream from event `after` on (`before`, `log`, …: see `chatStream`). */
function streamFrom(
  c: Context<ProtocolVars>,
  conv: Conversation,
  {
    runId,
    after,
    ...extra
  }: { runId: string; after: number } & Pick<
    Parameters<typeof chatStream>[0],
    "before" | "answered" | "initial" | "continuing" | "log"
  >,
): Response | Promise<Response> {
  return chatStream({
    stub: conv.stub,
    runId,
    after,
    user: c.var.caller.user,
    base: protocolBase(c),
    signal: c.req.raw.signal,
    ...extra,
  });
}

/** Whether a run of this conversation (newest first) has already decided the request. */
async function decidedInConversation(conv: Conversation, requestId: string): Promise<boolean> {
  const runs = await conv.stub.runs();
  for (const run of [...runs].reverse()) {
    const described = await conv.stub.describeRequest(run.runId, requestId);
    if (described.state === "decided") {
      return true;
    }
  }
  return false;
}
