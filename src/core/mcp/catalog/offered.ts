/**
 * Which of a server's listed tools the model is offered: the config's allow/drop list,
 * minus tools that cannot work here — malformed definitions (one bad tool must not
 * sink the server) and tools with `execution.taskSupport: "required"` (they answer
 * every plain call with -32601; this client does not run MCP tasks). Each one left out
 * is reported in `mcpStatus()` with why.
 */
import { keepTool } from "../config";
import type { McpToolDefinition } from "../tools";

export const TASK_ONLY =
  'requires MCP task augmentation (execution.taskSupport "required"), which this client does not run';

export function offeredTools(
  listed: { tools: McpToolDefinition[]; malformed: Array<{ tool: string; problem: string }> },
  filter: Record<string, boolean> | undefined,
): { offered: McpToolDefinition[]; skipped: Array<{ tool: string; reason: string }> } {
  const skipped = listed.malformed.map((m) => ({
    tool: m.tool,
    reason: `malformed: ${m.problem}`,
  }));
  const offered: McpToolDefinition[] = [];
  for (const definition of listed.tools) {
    if (!keepTool(filter, definition.name)) {
      continue;
    }
    const execution = (definition as { execution?: { taskSupport?: unknown } }).execution;
    if (execution?.taskSupport === "required") {
      skipped.push({ tool: definition.name, reason: TASK_ONLY });
      continue;
    }
    offered.push(definition);
  }
  return { offered, skipped };
}
