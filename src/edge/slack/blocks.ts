/**
 * Block Kit for approvals: the message posted to a group's channel, the same message
 * once something happened (votes so far, or the outcome, without buttons), and the
 * modal that asks a decliner for a reason. Pure functions over plain data.
 *
 * What reaches Slack from the model (prompt, arguments) goes out as `plain_text` or
 * escaped (inside a code block, and in the message's top-level `text`, which notifications
 * and screen readers show), so a prompt holding `<!channel>` or `<https://…|link>` pings
 * nobody and links nowhere.
 */
import type { AnyMessageBlock, Button, ModalView, SectionBlock } from "slack-web-api-client";

export const APPROVE_ACTION = "toolnexus_approve";
export const DECLINE_ACTION = "toolnexus_decline";
/** Revokes an approval held in its undo window (approver rule `delay`; docs/undo.md). */
export const UNDO_ACTION = "toolnexus_undo";
export const DECLINE_MODAL = "toolnexus_decline_reason";
export const REASON_BLOCK = "reason";
export const REASON_INPUT = "reason_input";

/** What the message shows about one pending request. */
export interface SlackRequestView {
  runId: string;
  requestId: string;
  agent: string;
  prompt: string;
  tool?: string;
  /** The arguments now up for approval (an edit replaces them; the message is updated). */
  args: unknown;
  /** Their version: the Approve button carries it, so a click on replaced arguments is refused. */
  argsHash?: string;
  requestedBy?: string | null;
  /** Unix milliseconds. */
  expiresAt?: number | null;
}

/** Where the request stands, as the message should say. */
export type SlackRequestState =
  | { status: "open"; votes?: number; needed?: number; voters?: string[]; expiring?: boolean }
  | {
      status: "approved" | "declined" | "cancelled" | "expired";
      by?: string | null;
      via?: string | null;
      reason?: string | null;
      /** An approval held in its undo window until then (Unix ms): the message offers Undo. */
      heldUntil?: number;
    };

/** Which request a button or modal acts on; carried in the button's value / the modal's metadata. */
export interface SlackTarget {
  runId: string;
  requestId: string;
  argsHash?: string;
}

export interface SlackMessage {
  text: string;
  blocks: AnyMessageBlock[];
}

const MAX_SECTION = 2900; // Slack allows 3000 characters per text object
/** As on every channel (src/edge/http/schemas.ts MAX_REASON_CHARS). */
export const MAX_REASON = 1000;
const MAX_HEADER = 150;

export function approvalMessage(view: SlackRequestView, state: SlackRequestState): SlackMessage {
  const fields: SectionBlock["fields"] = [
    { type: "mrkdwn", text: `*Tool*\n${code(view.tool ?? "(none)")}` },
    { type: "mrkdwn", text: `*Agent*\n${escapeText(view.agent)}` },
    { type: "mrkdwn", text: `*Requested by*\n${escapeText(view.requestedBy ?? "(unknown)")}` },
    {
      type: "mrkdwn",
      text: `*Expires*\n${view.expiresAt ? slackDate(view.expiresAt) : "(no expiry)"}`,
    },
  ];
  const blocks: AnyMessageBlock[] = [
    { type: "header", text: { type: "plain_text", text: clip("Approval requested", MAX_HEADER) } },
    { type: "section", text: { type: "plain_text", text: clip(view.prompt, MAX_SECTION) } },
    { type: "section", fields },
    {
      type: "section",
      text: { type: "mrkdwn", text: `*Arguments*\n${codeBlock(pretty(view.args))}` },
    },
    { type: "context", elements: [{ type: "mrkdwn", text: statusLine(state) }] },
  ];
  if (state.status === "open") {
    const target = { runId: view.runId, requestId: view.requestId };
    const approve = JSON.stringify({
      ...target,
      ...(view.argsHash ? { argsHash: view.argsHash } : {}),
    });
    blocks.push({
      type: "actions",
      block_id: "decision",
      elements: [
        button(APPROVE_ACTION, "Approve", { style: "primary", value: approve }),
        button(DECLINE_ACTION, "Decline", { style: "danger", value: JSON.stringify(target) }),
      ],
    });
  }
  if (state.status === "approved" && state.heldUntil !== undefined) {
    const target = JSON.stringify({ runId: view.runId, requestId: view.requestId });
    blocks.push(
      {
        type: "context",
        elements: [
          {
            type: "mrkdwn",
            text: `Runs ${slackDate(state.heldUntil)}; until then an approver may undo it.`,
          },
        ],
      },
      {
        type: "actions",
        block_id: "undo",
        elements: [button(UNDO_ACTION, "Undo", { style: "danger", value: target })],
      },
    );
  }
  return { text: `${headline(state)}: ${escapeText(clip(view.prompt, 200))}`, blocks };
}

/** The modal a Decline button opens: one reason field; the target rides in private_metadata. */
export function declineModal(
  target: SlackTarget,
  message: { channel: string; ts: string },
): ModalView {
  return {
    type: "modal",
    callback_id: DECLINE_MODAL,
    title: { type: "plain_text", text: "Decline request" },
    submit: { type: "plain_text", text: "Decline" },
    close: { type: "plain_text", text: "Cancel" },
    private_metadata: JSON.stringify({ ...target, ...message }),
    blocks: [
      {
        type: "input",
        block_id: REASON_BLOCK,
        label: { type: "plain_text", text: "Reason (the agent is told)" },
        element: {
          type: "plain_text_input",
          action_id: REASON_INPUT,
          multiline: true,
          max_length: MAX_REASON,
        },
        optional: true,
      },
    ],
  };
}

function statusLine(state: SlackRequestState): string {
  if (state.status === "open") {
    // Issue 42: the rule's warnBefore passed.
    const soon = state.expiring ? "*Expires soon.* " : "";
    if (state.needed === undefined || !state.votes) {
      return `${soon}Waiting for a decision.`;
    }
    const who = state.voters?.length ? ` (${state.voters.map(escapeText).join(", ")})` : "";
    return `${soon}${state.votes} of ${state.needed} approvals so far${who}.`;
  }
  const by = state.by ? ` by ${escapeText(state.by)}` : "";
  const via = state.via ? ` via ${escapeText(state.via)}` : "";
  const reason = state.reason ? `: ${escapeText(clip(state.reason, 500))}` : "";
  return `*${headline(state)}*${by}${via}${reason}`;
}

function headline(state: SlackRequestState): string {
  switch (state.status) {
    case "open":
      return "Approval requested";
    case "approved":
      return "Approved";
    case "declined":
      return "Declined";
    case "cancelled":
      return "Cancelled";
    case "expired":
      return "Expired";
    default: {
      const never: never = state;
      return never;
    }
  }
}

function button(
  actionId: string,
  text: string,
  { style, value }: { style: "primary" | "danger"; value: string },
): Button {
  return { type: "button", action_id: actionId, text: { type: "plain_text", text }, style, value };
}

/** Slack renders `<!date^…>` in each reader's time zone; the fallback is UTC. */
function slackDate(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  const fallback = new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
  return `<!date^${seconds}^{date_short_pretty} {time}|${fallback}>`;
}

/** Slack's three control characters, escaped as its docs ask. */
export function escapeText(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

function code(text: string): string {
  return `\`${escapeText(text.replaceAll("`", "'"))}\``;
}

function codeBlock(text: string): string {
  return `\`\`\`${clipEscaped(escapeText(text.replaceAll("```", "'''")), MAX_SECTION - 40)}\`\`\``;
}

/** Clips already-escaped text without leaving half an entity (`&am`) at the end. */
function clipEscaped(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${clip(text, max)
        .slice(0, -1)
        .replace(/&[a-z]*$/, "")}…`;
}

function pretty(value: unknown): string {
  if (value === undefined) {
    return "(no arguments)";
  }
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

function clip(text: string, max: number): string {
  const chars = Array.from(text); // never split a surrogate pair
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}
