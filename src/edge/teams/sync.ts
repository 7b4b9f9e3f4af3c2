/**
 * Keeps a group's Teams conversation in step with its approvals, as Slack's: one card per
 * request, posted when the request surfaces (or is escalated to the group) and replaced in
 * place on every later change (an edit, a vote from any channel, the outcome). Runs in the
 * `notify` queue consumer; the state shown is read from the thread when the message is handled.
 */
import type { InboxItem } from "../inbox/item";
import { approvalCardActivity } from "./card";
import type { TeamsConnector } from "./connector";

/** `notify` queue body for Teams (a callback notification has no `teams` member). */
export interface TeamsSyncMessage {
  threadId: string;
  runId: string;
  requestId: string;
  teams: { group: string };
}

export function isTeamsSync(body: unknown): body is TeamsSyncMessage {
  return typeof body === "object" && body !== null && "teams" in body;
}

export interface TeamsSource {
  item: InboxItem;
  cards: Array<{ conversation: string; activityId: string }>;
}

/** The thread's side (ThreadRpc). */
export interface TeamsThread {
  teamsSource(runId: string, requestId: string): Promise<TeamsSource | undefined>;
  /** First caller gets true (and must post); a claim older than a minute may be taken over. */
  teamsClaim(runId: string, requestId: string, conversation: string): Promise<boolean>;
  teamsPosted(
    request: { runId: string; requestId: string },
    posted: { conversation: string; activityId: string },
  ): Promise<void>;
  teamsRelease(runId: string, requestId: string, conversation: string): Promise<void>;
}

export async function syncTeams(
  { thread, connector }: { thread: TeamsThread; connector: TeamsConnector },
  message: TeamsSyncMessage,
  target: { conversation: string; serviceUrl: string },
): Promise<"posted" | "updated" | "nothing"> {
  const source = await thread.teamsSource(message.runId, message.requestId);
  if (!source) {
    return "nothing";
  }
  const activity = approvalCardActivity(source.item);
  const posted = source.cards.find((c) => c.conversation === target.conversation);
  if (posted) {
    await connector.update({ ...target, activityId: posted.activityId }, activity);
    return "updated";
  }
  if (source.item.status !== "open") {
    return "nothing"; // settled before it was ever posted
  }
  if (!(await thread.teamsClaim(message.runId, message.requestId, target.conversation))) {
    return "nothing"; // another delivery is posting it; its update follows
  }
  let activityId: string;
  try {
    activityId = await connector.post(target, activity);
  } catch (error) {
    await thread.teamsRelease(message.runId, message.requestId, target.conversation);
    throw error;
  }
  await thread.teamsPosted(
    { runId: message.runId, requestId: message.requestId },
    { conversation: target.conversation, activityId },
  );
  return "posted";
}
