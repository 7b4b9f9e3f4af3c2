import { Hono, type Context } from "hono";
import * as z from "zod";
import { type EdgeEnv, type SlackSettings, settings } from "../settings";
import { errorSink, type ErrorInfo } from "../error-sink";
import type { ApproverGroupsInit } from "../approvals/groups";
import type { ActiveDelegation } from "../protocol";
import { delegatedGroups, delegationsOf } from "../delegations/lookup";
import { ApiError } from "../http/errors";
import { readRawBody } from "../http/body";
import { threadOf, threadStub } from "../http/threads";
import { SlackVerificationError, verifySlackSignature } from "./verify";
import { MAX_REASON_CHARS } from "../http/schemas";
import { slackApi } from "./api";
import {
  APPROVE_ACTION,
  DECLINE_ACTION,
  DECLINE_MODAL,
  declineModal,
  REASON_BLOCK,
  REASON_INPUT,
  UNDO_ACTION,
} from "./blocks";
import type { DecisionOutcome } from "../protocol";

type Ctx = Context<{ Bindings: EdgeEnv }>;

/** Slack's payloads are a few KiB; this bounds the work before the signature is checked. */
const MAX_INTERACTION_BYTES = 128 * 1024;

interface SlackRouteOptions {
  approverGroups?: ApproverGroupsInit;
  /** The application's error sink (`createEdge({ onError })`). */
  report?: (error: unknown, info: ErrorInfo) => void;
}

const Target = z.object({
  runId: z.string().min(1).max(300),
  requestId: z.string().min(1).max(300),
  argsHash: z.string().max(64).optional(),
});
const User = z.object({ id: z.string().min(1), team_id: z.string().optional() });
const Team = z.object({ id: z.string().min(1) }).nullish();

// Lenient: only the fields used; Slack adds members freely.
const BlockActions = z.object({
  type: z.literal("block_actions"),
  user: User,
  team: Team,
  trigger_id: z.string().optional(),
  channel: z.object({ id: z.string() }).optional(),
  container: z.object({ channel_id: z.string().optional(), message_ts: z.string().optional() }),
  actions: z.array(z.object({ action_id: z.string(), value: z.string().optional() })).min(1),
});
const ViewSubmission = z.object({
  type: z.literal("view_submission"),
  user: User,
  team: Team,
  view: z.object({
    callback_id: z.string(),
    private_metadata: z.string(),
    state: z.object({
      values: z.record(z.string(), z.record(z.string(), z.object({ value: z.string().nullish() }))),
    }),
  }),
});

/**
 * `POST /slack/interactions`: Slack's Approve / Decline buttons and the decline-reason
 * modal. The v0 signature is checked over the raw bytes first (401 otherwise); the vote is
 * recorded through the run's ledger (channel `slack`, `decidedBy` the member behind
 * `slack:<team>/<user>`) and Slack is answered at once. The message itself is updated by
 * the `notify` queue, fed by the thread's outbox like the inbox.
 */
export function slackRoutes(options: SlackRouteOptions) {
  return new Hono<{ Bindings: EdgeEnv }>().post("/slack/interactions", async (c) => {
    const { slack } = settings(c.env);
    if (!slack) {
      throw new ApiError(404, "slack_not_configured", "Slack is not configured on this worker");
    }
    const raw = await readRawBody(c, MAX_INTERACTION_BYTES);
    try {
      await verifySlackSignature(slack.signingSecrets, c.req.raw.headers, raw);
    } catch (error) {
      if (error instanceof SlackVerificationError) {
        throw new ApiError(401, error.code, error.message);
      }
      throw error;
    }
    const payload = parsePayload(raw);
    const action = BlockActions.safeParse(payload);
    if (action.success) {
      return blockAction(c, { slack, options }, action.data);
    }
    const submission = ViewSubmission.safeParse(payload);
    if (submission.success && submission.data.view.callback_id === DECLINE_MODAL) {
      return declineSubmitted(c, options, submission.data);
    }
    return c.body(null, 200); // an interaction we do not handle: acknowledged, nothing done
  });
}

function parsePayload(raw: string): unknown {
  try {
    return JSON.parse(new URLSearchParams(raw).get("payload") ?? "");
  } catch {
    throw new ApiError(400, "invalid_body", "expected a form with a JSON `payload`");
  }
}

function identityOf(user: z.infer<typeof User>, team: z.infer<typeof Team>): string {
  return `slack:${user.team_id ?? team?.id ?? "?"}/${user.id}`;
}

async function blockAction(
  c: Ctx,
  { slack, options }: { slack: SlackSettings; options: SlackRouteOptions },
  payload: z.infer<typeof BlockActions>,
) {
  const [action] = payload.actions;
  if (
    !action ||
    (action.action_id !== APPROVE_ACTION &&
      action.action_id !== DECLINE_ACTION &&
      action.action_id !== UNDO_ACTION)
  ) {
    return c.body(null, 200);
  }
  const target = parseTarget(action.value);
  const identity = identityOf(payload.user, payload.team);
  const channel = payload.container.channel_id ?? payload.channel?.id;
  const api = slackApi(slack);
  const tell = (text: string) => {
    if (channel) {
      c.executionCtx.waitUntil(
        api.ephemeral(channel, payload.user.id, text).catch((error) => {
          (options.report ?? errorSink())(
            new Error("slack: ephemeral message failed", { cause: error }),
            {
              source: "slack",
              runId: target.runId,
              ...(threadOf(target.runId) ? { threadId: threadOf(target.runId) } : {}),
              requestId: target.requestId,
              recoverable: false,
            },
          );
        }),
      );
    }
  };
  const who = await approverOf(c, options, {
    identity,
    groups: await requestGroups(c, target),
  });
  if (!who) {
    tell("You are not an approver of this request.");
    return c.body(null, 200);
  }
  if (action.action_id === DECLINE_ACTION) {
    // The reason is asked in a modal; the decision is recorded when it is submitted.
    if (payload.trigger_id && channel && payload.container.message_ts) {
      await api.openModal(
        payload.trigger_id,
        declineModal(target, { channel, ts: payload.container.message_ts }),
      );
    }
    return c.body(null, 200);
  }
  const decision = action.action_id === UNDO_ACTION ? "revoke" : "approve";
  const outcome = await decide(c, { target, ...who, decision });
  if (outcome.ok && decision === "revoke") {
    tell("Undone: the approval is revoked and the call will not run.");
  } else if (!outcome.ok) {
    tell(
      outcome.code === "not_an_approver" || outcome.code === "own_request"
        ? "You are not an approver of this request."
        : outcome.code === "args_changed"
          ? "Not recorded: the arguments were edited after this message was posted. The message now shows the current ones; review them and approve again."
          : `Not recorded: ${outcome.message}.`,
    );
  } else if (!outcome.decision && outcome.needed !== undefined) {
    tell(`Vote recorded: ${outcome.votes ?? 0} of ${outcome.needed} approvals.`);
  }
  return c.body(null, 200);
}

async function declineSubmitted(
  c: Ctx,
  options: { approverGroups?: ApproverGroupsInit },
  payload: z.infer<typeof ViewSubmission>,
) {
  let target: z.infer<typeof Target>;
  try {
    target = Target.parse(JSON.parse(payload.view.private_metadata));
  } catch {
    throw new ApiError(400, "invalid_body", "the modal does not name a request");
  }
  const identity = identityOf(payload.user, payload.team);
  const who = await approverOf(c, options, {
    identity,
    groups: await requestGroups(c, target),
  });
  const reason = payload.view.state.values[REASON_BLOCK]?.[REASON_INPUT]?.value
    ?.trim()
    .slice(0, MAX_REASON_CHARS);
  const problem = !who
    ? "You are not an approver of this request."
    : await decide(c, {
        target,
        ...who,
        decision: "decline",
        ...(reason ? { reason } : {}),
      }).then((outcome) => (outcome.ok ? undefined : `Not recorded: ${outcome.message}.`));
  if (problem) {
    return c.json({ response_action: "errors", errors: { [REASON_BLOCK]: problem } });
  }
  return c.json({ response_action: "clear" });
}

function parseTarget(value: string | undefined): z.infer<typeof Target> {
  try {
    return Target.parse(JSON.parse(value ?? ""));
  } catch {
    throw new ApiError(400, "invalid_body", "the button does not name a request");
  }
}

/** The groups whose inbox shows the request (its group, then any escalation group). */
async function requestGroups(c: Ctx, target: z.infer<typeof Target>): Promise<string[]> {
  const threadId = threadOf(target.runId);
  const source = threadId
    ? await threadStub(c.env, threadId).slackSource(target.runId, target.requestId)
    : undefined;
  return source?.item.groups ?? [];
}

/**
 * The member behind a Slack identity, when they belong to one of the request's groups, or
 * stand in for someone who does (issue 42: a running delegation; the ledger decides the rest).
 */
async function approverOf(
  c: Ctx,
  options: { approverGroups?: ApproverGroupsInit },
  { identity, groups }: { identity: string; groups: string[] },
): Promise<{ member: string; delegations?: ActiveDelegation[] } | undefined> {
  const directory = settings(c.env).approvers(options.approverGroups);
  const member = directory.memberOf(identity);
  if (member === undefined) {
    return undefined;
  }
  const theirs = directory.groupsOfMember(member);
  if (groups.some((g) => theirs.includes(g))) {
    return { member }; // one who may decide in their own right votes as themselves (the ledger's rule)
  }
  const delegations = await delegationsOf(c.env, identity, options.approverGroups);
  const standIn = delegatedGroups(delegations, (m) => directory.groupsOfMember(m));
  return delegations && groups.some((g) => standIn.includes(g))
    ? { member, delegations }
    : undefined;
}

/**
 * Records the vote. Slack's request signature names the delivery: a replayed interaction is
 * the identical repeat, never a second vote, even after an edit reset the first one.
 */
async function decide(
  c: Ctx,
  vote: {
    target: z.infer<typeof Target>;
    member: string;
    decision: "approve" | "decline" | "revoke";
    reason?: string;
    delegations?: ActiveDelegation[];
  },
): Promise<DecisionOutcome> {
  const { target, member, decision, reason, delegations } = vote;
  const threadId = threadOf(target.runId);
  if (!threadId) {
    return { ok: false, code: "run_not_found", message: "no such run" };
  }
  const signature = c.req.header("x-slack-signature");
  return threadStub(c.env, threadId).decide({
    runId: target.runId,
    requestId: target.requestId,
    decision,
    ...(reason ? { reason } : {}),
    ...(decision === "approve" && target.argsHash ? { argsHash: target.argsHash } : {}),
    channel: "slack",
    decidedBy: member,
    ...(delegations ? { delegations } : {}),
    ...(signature ? { webhookId: `slack:${signature}` } : {}),
  });
}
