import type { ModelRequest, WireStyle } from "../model";
import { toolJsonCache, withTools } from "../body-json";
import { toOpenAIMessages } from "./messages";
import { toOpenAITool, toOpenAITools } from "./tools";
import { parseOpenAIResponse } from "./response";
import { openaiStreamFlags, openaiStreamParser } from "./stream";
import { openaiTranslateBody } from "./translate";

const toolsJson = toolJsonCache(toOpenAITool);

/** Everything but the tools. `params.tools` goes out only when the toolkit has none; otherwise the toolkit's tools win. */
function openaiHead({ model, messages, tools, params }: ModelRequest, extra?: Record<string, unknown>) {
  const { tool_choice: toolChoice, tools: paramTools, ...rest } = params ?? {};
  const head: Record<string, unknown> = {
    model,
    messages: toOpenAIMessages(messages),
    ...rest,
    ...(tools.length || paramTools === undefined ? {} : { tools: paramTools }),
    ...extra,
  };
  return { head, toolChoice };
}

/** OpenAI chat completions: `POST {baseUrl}/chat/completions`, Bearer auth. */
export const openaiStyle: WireStyle = {
  name: "openai",
  url: (baseUrl) => `${baseUrl.replace(/\/+$/, "")}/chat/completions`,
  headers: (apiKey) => ({
    "content-type": "application/json",
    ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
  }),
  body: (request) => {
    const { head, toolChoice } = openaiHead(request);
    // An empty tool list is omitted (with its tool_choice): providers reject `tools: []`.
    if (!request.tools.length) return head;
    return { ...head, tools: toOpenAITools(request.tools), ...(toolChoice === undefined ? {} : { tool_choice: toolChoice }) };
  },
  bodyText: (request, extra) => {
    const { head, toolChoice } = openaiHead(request, extra);
    return request.tools.length ? withTools(head, toolsJson(request.tools), toolChoice) : JSON.stringify(head);
  },
  parse: parseOpenAIResponse,
  streamFlags: openaiStreamFlags,
  streamParser: openaiStreamParser,
  translateBody: openaiTranslateBody,
};
