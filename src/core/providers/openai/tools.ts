import type { Tool } from "../../types";

export interface OpenAITool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export function toOpenAITool(t: Tool): OpenAITool {
  return {
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.inputSchema },
  };
}

export function toOpenAITools(tools: Tool[]): OpenAITool[] {
  return tools.map(toOpenAITool);
}
