import type { ModelRequest, WireStyle } from "../model";
import { toAnthropicMessages } from "./messages";
import { toAnthropicTools } from "./tools";
import { parseAnthropicResponse } from "./response";
import { anthropicStreamFlags, anthropicStreamParser } from "./stream";
import { chatToAnthropicRequest } from "./translate";

const DEFAULT_MAX_TOKENS = 4096;

function anthropicBody({ model, messages, tools, params }: ModelRequest): Record<string, unknown> {
  const { system, messages: converted } = toAnthropicMessages(messages);
  const { tool_choice, ...rest } = params ?? {};
  return {
    model,
    max_tokens: DEFAULT_MAX_TOKENS,
    ...(system === undefined ? {} : { system }),
    messages: converted,
    ...rest,
    ...(tools.length ? { tools: toAnthropicTools(tools), ...(tool_choice === undefined ? {} : { tool_choice }) } : {}),
  };
}

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
  body: anthropicBody,
  parse: parseAnthropicResponse,
  streamFlags: anthropicStreamFlags,
  streamParser: anthropicStreamParser,
  // The chat request becomes a neutral one, so translate and the loop share one body builder.
  translateBody: (request) => anthropicBody(chatToAnthropicRequest(request)),
};
