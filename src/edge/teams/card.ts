/**
 * The Adaptive Card that shows one request in a Teams conversation: the prompt, the facts, the
 * arguments, the votes so far, and while it is open a reason field with Approve / Decline
 * (`Action.Submit`, whose data names the request and the version of the arguments shown).
 * Decided, expired or cancelled, the same card shows the outcome and no buttons. Everything a
 * model wrote is in plain TextBlocks with Markdown's characters escaped, so a prompt cannot
 * turn into a link or formatting.
 */
import type { InboxItem } from "../inbox/item";
import { prettyJson } from "../pages/layout";

export const TEAMS_APPROVE = "toolnexus_approve";
export const TEAMS_DECLINE = "toolnexus_decline";

/** What a card's button submits (the activity's `value`). */
export interface TeamsAction {
  toolnexus: typeof TEAMS_APPROVE | typeof TEAMS_DECLINE;
  runId: string;
  requestId: string;
  argsHash: string;
  /** The card's reason field. */
  reason?: string;
}

/** Backslash before every character Markdown (as Teams renders it) gives a meaning to. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, (c) => `\\${c}`);
}

const block = (text: string, extra: Record<string, unknown> = {}) => ({
  type: "TextBlock",
  text: escapeMarkdown(text),
  wrap: true,
  ...extra,
});

/** The message activity carrying the request's card (posted, and PUT on every change). */
export function approvalCardActivity(item: InboxItem): Record<string, unknown> {
  const live = item.votes.filter((v) => !v.reset);
  const facts = [
    { title: "Agent", value: item.askedBy ?? item.agent },
    ...(item.tool ? [{ title: "Tool", value: item.tool }] : []),
    ...(item.requestedBy ? [{ title: "Requested by", value: item.requestedBy }] : []),
    { title: "Expires", value: item.expiresAt ?? "with the run's timeout" },
    { title: "Request", value: item.requestId },
  ].map((f) => ({ title: f.title, value: escapeMarkdown(f.value) }));
  const body: unknown[] = [
    block("Approval requested", { weight: "Bolder", size: "Medium" }),
    block(item.prompt),
    { type: "FactSet", facts },
    block(prettyJson(item.args), { fontType: "Monospace" }),
  ];
  if (item.needed !== null) {
    const approvals = live.filter((v) => v.decision === "approve");
    body.push(
      block(
        `Votes: ${approvals.length} of ${item.needed} approvals${approvals.length ? ` (${approvals.map((v) => `${v.decidedBy} via ${v.channel}`).join(", ")})` : ""}`,
        { id: "votes" },
      ),
    );
  }
  const open = item.status === "open" || !item.decision;
  if (!open && item.decision) {
    const d = item.decision;
    body.push(
      block(
        `${d.outcome[0]?.toUpperCase()}${d.outcome.slice(1)}${d.decidedBy ? ` by ${d.decidedBy}` : ""} via ${d.channel}${d.reason ? `: ${d.reason}` : ""}`,
        { id: "outcome", weight: "Bolder" },
      ),
    );
  }
  const data = (toolnexus: TeamsAction["toolnexus"]) => ({
    toolnexus,
    runId: item.runId,
    requestId: item.requestId,
    argsHash: item.argsHash,
  });
  const card = {
    type: "AdaptiveCard",
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    version: "1.4",
    body: open
      ? [
          ...body,
          {
            type: "Input.Text",
            id: "reason",
            placeholder: "Reason (optional, shown with a decline)",
            isMultiline: true,
            maxLength: 1000,
          },
        ]
      : body,
    ...(open
      ? {
          actions: [
            {
              type: "Action.Submit",
              title: "Approve",
              style: "positive",
              data: data(TEAMS_APPROVE),
            },
            {
              type: "Action.Submit",
              title: "Decline",
              style: "destructive",
              data: data(TEAMS_DECLINE),
            },
          ],
        }
      : {}),
  };
  return {
    type: "message",
    summary: `Approval requested: ${item.prompt.slice(0, 100)}`,
    attachments: [{ contentType: "application/vnd.microsoft.card.adaptive", content: card }],
  };
}

/** The submitted action, when the activity is a press of one of our buttons. */
export function teamsActionOf(activity: Record<string, unknown>): TeamsAction | undefined {
  // Action.Submit arrives as a message whose `value` is the data plus the inputs (`reason`).
  const value = (activity.type === "message" ? activity.value : undefined) as
    | Record<string, unknown>
    | undefined;
  if (
    !value ||
    (value.toolnexus !== TEAMS_APPROVE && value.toolnexus !== TEAMS_DECLINE) ||
    typeof value.runId !== "string" ||
    typeof value.requestId !== "string" ||
    typeof value.argsHash !== "string"
  ) {
    return undefined;
  }
  return {
    toolnexus: value.toolnexus,
    runId: value.runId,
    requestId: value.requestId,
    argsHash: value.argsHash,
    ...(typeof value.reason === "string" && value.reason.trim()
      ? { reason: value.reason.trim() }
      : {}),
  };
}
