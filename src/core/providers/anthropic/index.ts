import type { WireStyle } from "../model";
import { toAnthropicMessages } from "./messages";
import { toAnthropicTool } from "./tools";
import { bodyBuilders } from "../body-json";
import { parseAnthropicResponse } from "./response";
import { anthropicStreamFlags, anthropicStreamParser } from "./stream";
import { chatToAnthropicRequest } from "./translate";

const DEFAULT_MAX_TOKENS = 4096;

const bodies = bodyBuilders(({ model, messages }) => {
  const { system, messages: converted } = toAnthropicMessages(messages);
  return {
    model,
    max_tokens: DEFAULT_MAX_TOKENS,
    ...(system === undefined ? {} : { system }),
    messages: converted,
  };
}, toAnthropicTool);

/** Anthropic messages: `POST {baseUrl}/v1/messages` (`/v1` added unless present), `x-api-key`. */
export const anthropicStyle: WireStyle = {
  name: "anthropic",
  url: (baseUrl) => {
    const base = baseUrl.replace(/\/+$/, "");
    return /\/v1$/.test(base) ? `${base}/messages` : `${base}/v1/messages`;
  },
  headers: (apiKey) => ({
    "content-type": "application/json",
    "anthropic-version": "2023-06-01",
    ...(apiKey ? { "x-api-key": apiKey } : {}),
  }),
  body: bodies.body,
  bodyText: bodies.bodyText,
  parse: parseAnthropicResponse,
  streamFlags: anthropicStreamFlags,
  streamParser: anthropicStreamParser,
  // The chat request becomes a neutral one, so translate and the loop share one body builder.
  translateBody: (request) => bodies.body(chatToAnthropicRequest(request)),
};
