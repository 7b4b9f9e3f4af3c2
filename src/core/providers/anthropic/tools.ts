import type { Tool } from "../../types";

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

export function toAnthropicTool(t: Tool): AnthropicTool {
  return { name: t.name, description: t.description, input_schema: t.inputSchema };
}

export function toAnthropicTools(tools: Tool[]): AnthropicTool[] {
  return tools.map(toAnthropicTool);
}
