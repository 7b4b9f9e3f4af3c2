/**
 * The few Slack Web API calls approvals make, through slack-edge's `SlackAPIClient`
 * (it runs in workerd: fetch + URLSearchParams, nothing Node-only).
 *
 * The client's own rate-limit retry (it sleeps and calls again inline) is turned off:
 * posting happens in a `notify` queue consumer, whose retries back off without holding
 * the consumer, and end in the dead-letter queue.
 */
import { SlackAPIClient, type ModalView } from "slack-edge";
import type { SlackSettings } from "./settings";
import { escapeText, type SlackMessage } from "./blocks";

export interface SlackApi {
  /** Posts to a channel; returns the message's `ts` (its id within the channel). */
  post(channel: string, message: SlackMessage): Promise<{ channel: string; ts: string }>;
  update(channel: string, ts: string, message: SlackMessage): Promise<void>;
  /** A reply in the message's thread, also shown in the channel. Plain text: no mentions parsed. */
  reply(channel: string, ts: string, text: string): Promise<void>;
  openModal(triggerId: string, view: ModalView): Promise<void>;
  /** A message only `user` sees (e.g. "you are not an approver"). */
  ephemeral(channel: string, user: string, text: string): Promise<void>;
}

export function slackApi(settings: SlackSettings): SlackApi {
  const client = new SlackAPIClient(settings.botToken, {
    baseUrl: settings.apiUrl,
    retryHandlers: [],
    logLevel: "WARN",
    throwSlackAPIError: true,
  });
  return {
    async post(channel, message) {
      const result = await client.chat.postMessage({ channel, ...message, unfurl_links: false });
      if (!result.ts) {
        throw new Error("chat.postMessage answered without a ts");
      }
      return { channel: result.channel ?? channel, ts: result.ts };
    },
    async update(channel, ts, message) {
      await client.chat.update({ channel, ts, ...message });
    },
    async reply(channel, ts, text) {
      await client.chat.postMessage({
        channel,
        thread_ts: ts,
        reply_broadcast: true,
        text: escapeText(text),
        unfurl_links: false,
      });
    },
    async openModal(triggerId, view) {
      await client.views.open({ trigger_id: triggerId, view });
    },
    async ephemeral(channel, user, text) {
      await client.chat.postEphemeral({ channel, user, text });
    },
  };
}
