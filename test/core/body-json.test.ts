/**
 * `bodyText` is the fast path every model call takes (tool JSON reused across turns);
 * `body` is the object form a `bodyTransform` receives. They must say the same thing.
 */
import { describe, expect, it } from "vitest";
import { openaiStyle } from "../../src/core/providers/openai";
import { anthropicStyle } from "../../src/core/providers/anthropic";
import type { ModelRequest } from "../../src/core/providers/model";
import type { Message, Tool } from "../../src/core/types";

const tool = (name: string, description = `${name} tool`): Tool => ({
  name,
  description,
  inputSchema: {
    type: "object",
    properties: { q: { type: "string", description: "¿qué? 🔎" } },
    required: ["q"],
  },
  source: "native",
  execute: async () => ({ output: "", isError: false }),
});

const messages: Message[] = [
  { role: "system", content: "Be brief." },
  { role: "user", content: 'Héllo \u2028 "quoted" 🚀' },
  {
    role: "assistant",
    content: null,
    toolCalls: [{ id: "c1", name: "search", arguments: '{"q":"x"}' }],
  },
  { role: "tool", toolCallId: "c1", name: "search", content: "found" },
];

const cases: Array<[string, Partial<ModelRequest>, Record<string, unknown> | undefined]> = [
  ["no tools", { tools: [] }, undefined],
  ["tools", { tools: [tool("search"), tool("add")] }, undefined],
  [
    "tools + tool_choice + other params",
    { tools: [tool("search")], params: { tool_choice: "required", temperature: 0.2 } },
    undefined,
  ],
  [
    "tool_choice without tools is dropped",
    { tools: [], params: { tool_choice: "auto" } },
    undefined,
  ],
  [
    "params.tools never go out: the toolkit's do",
    {
      tools: [tool("search")],
      params: { tools: [{ type: "function", function: { name: "other" } }] },
    },
    undefined,
  ],
  [
    "params.tools never go out, even when the toolkit has none",
    { tools: [], params: { tools: [{ type: "function", function: { name: "other" } }] } },
    undefined,
  ],
  [
    "params override the model",
    { tools: [tool("search")], params: { model: "override" } },
    undefined,
  ],
  [
    "stream flags as extra",
    { tools: [tool("search")] },
    { stream: true, stream_options: { include_usage: true } },
  ],
  ["stream flags win over params", { tools: [], params: { stream: false } }, { stream: true }],
  [
    "params without a JSON form are left out, toJSON is honoured",
    {
      tools: [tool("search")],
      params: { temperature: undefined, hook: () => 1, stop: new Date(0), user: "ü" },
    },
    undefined,
  ],
];

describe.each([
  ["openai", openaiStyle],
  ["anthropic", anthropicStyle],
])("%s bodyText", (_name, style) => {
  it.each(cases)("equals the object body: %s", (_case, over, extra) => {
    const request: ModelRequest = { model: "m", messages, tools: [], ...over };
    const text = style.bodyText(request, extra);
    expect(JSON.parse(text)).toEqual(
      JSON.parse(JSON.stringify({ ...style.body(request), ...extra })),
    );
  });

  it("is the same on a second turn (cached tool JSON) and follows a replaced description", () => {
    const search = tool("search");
    const request: ModelRequest = { model: "m", messages, tools: [search] };
    const first = style.bodyText(request);
    expect(style.bodyText(request)).toBe(first);
    search.description = "new words";
    expect(style.bodyText(request)).toContain("new words");
    expect(JSON.parse(style.bodyText(request))).toEqual(style.body(request));
  });
});

it("one tool object serializes in each style's own shape", () => {
  const search = tool("search");
  const request: ModelRequest = { model: "m", messages, tools: [search] };
  const openaiTools = JSON.parse(openaiStyle.bodyText(request)).tools;
  const anthropicTools = JSON.parse(anthropicStyle.bodyText(request)).tools;
  expect(openaiTools[0]).toHaveProperty("function.name", "search");
  expect(anthropicTools[0]).toHaveProperty("input_schema");
});
