import type { ModelRequest, WireStyle } from "../model";
import { toAnthropicMessages } from "./messages";
import { toAnthropicTool, toAnthropicTools } from "./tools";
import { toolJsonCache, withTools } from "../body-json";
import { parseAnthropicResponse } from "./response";
import { anthropicStreamFlags, anthropicStreamParser } from "./stream";
import { chatToAnthropicRequest } from "./translate";

const DEFAULT_MAX_TOKENS = 4096;

const toolsJson = toolJsonCache(toAnthropicTool);

/** Everything but the tools. `params.tools` goes out only when the toolkit has none; otherwise the toolkit's tools win. */
function anthropicHead({ model, messages, tools, params }: ModelRequest, extra?: Record<string, unknown>) {
  const { system, messages: converted } = toAnthropicMessages(messages);
  const { tool_choice: toolChoice, tools: paramTools, ...rest } = params ?? {};
  const head: Record<string, unknown> = {
    model,
    max_tokens: DEFAULT_MAX_TOKENS,
    ...(system === undefined ? {} : { system }),
    messages: converted,
    ...rest,
    ...(tools.length || paramTools === undefined ? {} : { tools: paramTools }),
    ...extra,
  };
  return { head, toolChoice };
}

function anthropicBody(request: ModelRequest): Record<string, unknown> {
  const { head, toolChoice } = anthropicHead(request);
  if (!request.tools.length) return head;
  return { ...head, tools: toAnthropicTools(request.tools), ...(toolChoice === undefined ? {} : { tool_choice: toolChoice }) };
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
  bodyText: (request, extra) => {
    const { head, toolChoice } = anthropicHead(request, extra);
    return request.tools.length ? withTools(head, toolsJson(request.tools), toolChoice) : JSON.stringify(head);
  },
  parse: parseAnthropicResponse,
  streamFlags: anthropicStreamFlags,
  streamParser: anthropicStreamParser,
  // The chat request becomes a neutral one, so translate and the loop share one body builder.
  translateBody: (request) => anthropicBody(chatToAnthropicRequest(request)),
};
