import type { WireStyle } from "../model";
import { toOpenAIMessages } from "./messages";
import { toOpenAITools } from "./tools";
import { parseOpenAIResponse } from "./response";
import { openaiStreamFlags, openaiStreamParser } from "./stream";
import { openaiTranslateBody } from "./translate";

/** OpenAI chat completions: `POST {baseUrl}/chat/completions`, Bearer auth. */
export const openaiStyle: WireStyle = {
  name: "openai",
  url: (baseUrl) => `${baseUrl.replace(/\/+$/, "")}/chat/completions`,
  headers: (apiKey) => ({
    "content-type": "application/json",
    ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
  }),
  body: ({ model, messages, tools, params }) => {
    const { tool_choice, ...rest } = params ?? {};
    return {
      model,
      messages: toOpenAIMessages(messages),
      ...rest,
      // An empty tool list is omitted (with its tool_choice): providers reject `tools: []`.
      ...(tools.length ? { tools: toOpenAITools(tools), ...(tool_choice === undefined ? {} : { tool_choice }) } : {}),
    };
  },
  parse: parseOpenAIResponse,
  streamFlags: openaiStreamFlags,
  streamParser: openaiStreamParser,
  translateBody: openaiTranslateBody,
};
