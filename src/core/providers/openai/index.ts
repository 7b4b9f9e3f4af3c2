import type { WireStyle } from "../model";
import { bodyBuilders } from "../body-json";
import { toOpenAIMessages } from "./messages";
import { toOpenAITool } from "./tools";
import { parseOpenAIResponse } from "./response";
import { openaiStreamFlags, openaiStreamParser } from "./stream";
import { openaiTranslateBody } from "./translate";

// With tools, `tool_choice: "auto"` as the reference clients send it (SPEC §10, issue 40);
// without tools neither key goes out.
const bodies = bodyBuilders(
  ({ model, messages }) => ({ model, messages: toOpenAIMessages(messages) }),
  toOpenAITool,
  "auto",
);

/** OpenAI chat completions: `POST {baseUrl}/chat/completions`, Bearer auth. */
export const openaiStyle: WireStyle = {
  name: "openai",
  url: (baseUrl) => `${baseUrl.replace(/\/+$/, "")}/chat/completions`,
  headers: (apiKey) => ({
    "content-type": "application/json",
    ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
  }),
  body: bodies.body,
  bodyText: bodies.bodyText,
  parse: parseOpenAIResponse,
  streamFlags: openaiStreamFlags,
  streamParser: openaiStreamParser,
  translateBody: openaiTranslateBody,
};
