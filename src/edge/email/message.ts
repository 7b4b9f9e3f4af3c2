/**
 * What an approval email says, as plain text and as HTML: the prompt, the arguments, the
 * votes so far, the expiry and the member's personal Approve / Decline links. Prompts and
 * arguments come from a model and its tools: in the HTML part every one of them is escaped,
 * and the subject (a header) is cut to one line by the MIME writer.
 */
import type { InboxItem } from "../inbox/item";
import { esc, prettyJson, utcAndRelative } from "../pages/layout";

export interface ApprovalEmail {
  subject: string;
  text: string;
  html: string;
}

/** Subjects longer than this are cut (with "…"): mail clients show about 60 characters anyway. */
const SUBJECT_PROMPT_CHARS = 120;

export function approvalEmail(
  item: InboxItem,
  options: { links: { approve: string; decline: string }; reminder?: number; now: number },
): ApprovalEmail {
  const { links, reminder, now } = options;
  const prompt =
    item.prompt.length > SUBJECT_PROMPT_CHARS
      ? `${item.prompt.slice(0, SUBJECT_PROMPT_CHARS - 1)}…`
      : item.prompt;
  const subject = `${reminder ? `Reminder ${reminder}: ` : ""}Approval needed: ${prompt}`;
  const live = item.votes.filter((v) => !v.reset);
  const votes =
    item.needed === null
      ? []
      : [
          `Votes: ${live.filter((v) => v.decision === "approve").length} of ${item.needed} approvals`,
          ...live.map((v) => `  ${v.decidedBy}: ${v.decision} (${v.channel})`),
        ];
  const facts: Array<[string, string]> = [
    ["Agent", item.askedBy ?? item.agent],
    ...(item.tool ? ([["Tool", item.tool]] as Array<[string, string]>) : []),
    ...(item.requestedBy ? ([["Requested by", item.requestedBy]] as Array<[string, string]>) : []),
    [
      "Expires",
      item.expiresAt ? utcAndRelative(item.expiresAt, now) : "when the run's timeout ends",
    ],
    ["Run", item.runId],
    ["Request", item.requestId],
  ];
  const args = prettyJson(item.args);
  const intro = reminder
    ? `Reminder ${reminder}: this request is still waiting for a decision.`
    : "An agent is waiting for your decision.";
  const text = [
    intro,
    "",
    item.prompt,
    "",
    ...facts.map(([k, v]) => `${k}: ${v}`),
    "",
    "Arguments:",
    args,
    "",
    ...(votes.length ? [...votes, ""] : []),
    `Approve: ${links.approve}`,
    `Decline: ${links.decline}`,
    "",
    "Each link opens a confirmation page; nothing is decided until you confirm there.",
    "The links are yours alone and work once. Do not forward this email.",
    "",
  ].join("\n");
  const html = `<!doctype html>
<html><body style="font-family: system-ui, sans-serif; max-width: 40rem">
<p>${esc(intro)}</p>
<p id="prompt" style="font-size: 1.15em"><strong>${esc(item.prompt)}</strong></p>
<table>${facts.map(([k, v]) => `<tr><th align="left">${esc(k)}</th><td>${esc(v)}</td></tr>`).join("")}</table>
<h3>Arguments</h3>
<pre id="args" style="background: #f4f4f4; padding: .5em; white-space: pre-wrap">${esc(args)}</pre>
${votes.length ? `<h3>Votes</h3>\n<p id="votes">${votes.map(esc).join("<br>")}</p>` : ""}
<p>
<a id="approve" href="${esc(links.approve)}" style="background: #1a7f37; color: #fff; padding: .5em 1em; text-decoration: none">Approve</a>
&nbsp;
<a id="decline" href="${esc(links.decline)}" style="background: #b42318; color: #fff; padding: .5em 1em; text-decoration: none">Decline</a>
</p>
<p style="color: #666; font-size: .9em">Each link opens a confirmation page; nothing is decided until you confirm there. The links are yours alone and work once. Do not forward this email.</p>
</body></html>
`;
  return { subject, text, html };
}
