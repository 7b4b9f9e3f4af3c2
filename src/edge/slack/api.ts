/**
 * The few Slack Web API calls approvals make: `POST <SLACK_API_URL><method>` with the bot
 * token and a form body (objects such as `blocks` and `view` as JSON), answered with
 * `{ ok, error?, … }`. Written out rather than taken from slack-web-api-client's
 * `SlackAPIClient`, which bundled every Web API method's definition (≈ 27 KiB minified)
 * for these five; its Block Kit types are still what `blocks.ts` is checked against.
 *
 * Nothing here retries: posting happens in a `notify` queue consumer, whose retries back
 * off without holding the consumer and end in the dead-letter queue. A rate limit (429)
 * is an error like any other, with Slack's `Retry-After` in its message.
 */
import type { ModalView } from "slack-web-api-client";
import type { SlackSettings } from "../settings/slack";
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

/** A Web API call that failed: Slack's error code (`channel_not_found`, …) or the HTTP status. */
export class SlackApiError extends Error {
  override readonly name = "SlackApiError";
  constructor(
    readonly method: string,
    readonly error: string,
  ) {
    super(`Slack ${method} failed: ${error}`);
  }
}

export function slackApi(settings: SlackSettings, fetcher: typeof fetch = fetch): SlackApi {
  const call = async (method: string, params: Record<string, unknown>) => {
    const form = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) {
      if (value !== undefined) {
        form.set(key, typeof value === "object" ? JSON.stringify(value) : String(value));
      }
    }
    const response = await fetcher(`${settings.apiUrl}${method}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${settings.botToken}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: form,
    });
    if (!response.ok) {
      await response.body?.cancel();
      const retryAfter = response.headers.get("retry-after");
      throw new SlackApiError(
        method,
        `HTTP ${response.status}${retryAfter ? ` (retry after ${retryAfter} s)` : ""}`,
      );
    }
    const result = (await response.json().catch(() => undefined)) as
      | { ok?: boolean; error?: string; [key: string]: unknown }
      | undefined;
    if (!result?.ok) {
      throw new SlackApiError(method, result?.error ?? "unknown_error");
    }
    return result;
  };
  return {
    async post(channel, message) {
      const result = await call("chat.postMessage", { channel, ...message, unfurl_links: false });
      if (typeof result.ts !== "string") {
        throw new Error("chat.postMessage answered without a ts");
      }
      return {
        channel: typeof result.channel === "string" ? result.channel : channel,
        ts: result.ts,
      };
    },
    async update(channel, ts, message) {
      await call("chat.update", { channel, ts, ...message });
    },
    async reply(channel, ts, text) {
      await call("chat.postMessage", {
        channel,
        thread_ts: ts,
        reply_broadcast: true,
        text: escapeText(text),
        unfurl_links: false,
      });
    },
    async openModal(triggerId, view) {
      await call("views.open", { trigger_id: triggerId, view });
    },
    async ephemeral(channel, user, text) {
      await call("chat.postEphemeral", { channel, user, text });
    },
  };
}
