/**
 * `POST /teams/messages`, the bot's messaging endpoint. Checks in the usual order: Teams off
 * → 404; the Bot Framework token (verify.ts) → 401, before anything is read from the activity;
 * a malformed body → 400. A press of a card's button (`Action.Submit`: a message activity whose
 * `value` names the request) is recorded through the run's ledger as channel `teams`, as the
 * member the Teams user is: their `teams:<aadObjectId>` identity, else the UPN or email the Bot
 * Connector gives for them. The card itself is replaced through the `notify` queue, like
 * Slack's message, on this and every other change. Other activities are acknowledged and ignored.
 */
import { Hono } from "hono";
import { ApiError } from "../http/errors";
import { readRawBody } from "../http/body";
import { decisionStatus } from "../http/status";
import { threadOf, threadStub } from "../http/threads";
import type { ApproverGroupsInit } from "../approvals/groups";
import type { DecisionOutcome } from "../protocol";
import { type EdgeEnv, settings } from "../settings";
import { serviceUrlAllowed, type TeamsSettings } from "../settings/teams";
import { TEAMS_APPROVE, teamsActionOf } from "./card";
import { teamsConnector } from "./connector";
import { TeamsAuthError, verifyBotToken } from "./verify";
import { MAX_REASON_CHARS } from "../http/schemas";

/** An activity with a card's inputs is a few KiB; this leaves room and bounds the rest. */
export const MAX_ACTIVITY_BYTES = 64 * 1024;

export function teamsRoutes(options: { approverGroups?: ApproverGroupsInit } = {}) {
  return new Hono<{ Bindings: EdgeEnv }>().post("/teams/messages", async (c) => {
    const { teams } = settings(c.env);
    if (!teams) {
      throw new ApiError(
        404,
        "teams_not_configured",
        "Microsoft Teams is not configured on this worker",
      );
    }
    const raw = await readRawBody(c, MAX_ACTIVITY_BYTES);
    let activity: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(raw);
      activity =
        typeof parsed === "object" && parsed !== null
          ? (parsed as Record<string, unknown>)
          : undefined;
    } catch {
      activity = undefined;
    }
    try {
      await verifyBotToken(teams, c.req.header("authorization") ?? null, activity?.serviceUrl);
    } catch (error) {
      if (error instanceof TeamsAuthError) {
        throw new ApiError(401, "unauthorized", `Bot Framework token: ${error.message}`);
      }
      throw error;
    }
    if (!activity) {
      throw new ApiError(
        400,
        "invalid_body",
        "the body is not a Bot Framework activity (JSON object)",
      );
    }
    const action = teamsActionOf(activity);
    if (!action) {
      return c.body(null, 200); // not one of our buttons: acknowledged, nothing to do
    }
    const threadId = threadOf(action.runId);
    if (!threadId) {
      throw new ApiError(404, "run_not_found", `no run ${action.runId}`);
    }
    const who = await teamsIdentity(teams, activity, (identity) =>
      settings(c.env).approvers(options.approverGroups).memberOf(identity),
    );
    const approve = action.toolnexus === TEAMS_APPROVE;
    const outcome: DecisionOutcome = await threadStub(c.env, threadId).decide({
      runId: action.runId,
      requestId: action.requestId,
      decision: approve ? "approve" : "decline",
      ...(approve ? { argsHash: action.argsHash } : {}),
      ...(!approve && action.reason ? { reason: action.reason.slice(0, MAX_REASON_CHARS) } : {}),
      channel: "teams",
      decidedBy: who,
      // A replayed activity is the identical repeat for the request's whole life.
      ...(typeof activity.id === "string" ? { webhookId: `teams_${activity.id}` } : {}),
    });
    const status = decisionStatus(outcome);
    return c.json(
      outcome.ok
        ? { status: outcome.decision ? "decided" : "vote_recorded", duplicate: outcome.duplicate }
        : { error: { code: outcome.code, message: outcome.message } },
      status === 202 ? 200 : (status as 200),
    );
  });
}

/**
 * Who pressed the button, as an identity the directory knows: `teams:<aadObjectId>` when a
 * member lists it, else the UPN or email the Bot Connector gives for them (only from an
 * allowed `serviceUrl`). A stranger keeps `teams:<aadObjectId>`, and the ledger refuses them.
 */
async function teamsIdentity(
  teams: TeamsSettings,
  activity: Record<string, unknown>,
  memberOf: (identity: string) => string | undefined,
): Promise<string> {
  const from = (activity.from ?? {}) as { id?: unknown; aadObjectId?: unknown };
  const aad = typeof from.aadObjectId === "string" ? from.aadObjectId : undefined;
  const fallback = aad ? `teams:${aad}` : `teams:${String(from.id ?? "unknown")}`;
  if (aad && memberOf(`teams:${aad}`)) {
    return `teams:${aad}`;
  }
  const serviceUrl = typeof activity.serviceUrl === "string" ? activity.serviceUrl : "";
  const conversation = (activity.conversation ?? {}) as { id?: unknown };
  if (
    typeof from.id !== "string" ||
    typeof conversation.id !== "string" ||
    !serviceUrlAllowed(teams, serviceUrl)
  ) {
    return fallback;
  }
  const found = await teamsConnector(teams).member(
    { serviceUrl, conversation: conversation.id },
    from.id,
  );
  const upn = found?.userPrincipalName ?? found?.email;
  return upn && memberOf(upn) ? upn : (upn ?? fallback);
}
