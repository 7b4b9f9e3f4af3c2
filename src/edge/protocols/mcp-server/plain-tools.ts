/**
 * Plain tools on the MCP server (SPEC §7C): an agent's `mcpServerTools` names tools of its own
 * (`tools`, not its remote MCP servers) that /mcp lists verbatim beside the agent and runs
 * straight through `Tool.execute`, no run and no model. Unknown names are ignored, as §7C
 * has it. A tool with approval rules is never run this way (a direct call would skip its
 * approval): listing one is a configuration error naming it. A tool that suspends anyway
 * (asks a person) returns an error result pointing at the agent, which can wait durably.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isPending } from "../../../core/answers";
import { errorMessage } from "../../../core/errors";
import { approvalGate } from "../../../core/tools/approval";
import type { Tool } from "../../../core/types";
import { type AgentDefinition, agentTools } from "../../agent";
import { ConfigError } from "../../settings";

export interface PlainTool {
  agent: string;
  tool: Tool;
}

/** The exposed tools of every agent, first name wins; `taken` are names already listed (agents, get_run). */
export async function plainTools(
  agents: AgentDefinition[],
  env: unknown,
  taken: ReadonlySet<string>,
): Promise<PlainTool[]> {
  const out: PlainTool[] = [];
  const seen = new Set(taken);
  for (const agent of agents) {
    const wanted = new Set(agent.mcpServerTools ?? []);
    if (wanted.size === 0) {
      continue;
    }
    for (const tool of await agentTools(agent, env)) {
      if (!wanted.has(tool.name) || seen.has(tool.name)) {
        continue;
      }
      if (approvalGate(tool)) {
        throw new ConfigError(
          `agent ${JSON.stringify(agent.name)}: mcpServerTools lists ${JSON.stringify(tool.name)}, which has approval rules; a direct MCP call would skip them, so call it through the agent instead`,
        );
      }
      seen.add(tool.name);
      out.push({ agent: agent.name, tool });
    }
  }
  return out;
}

export async function callPlainTool(
  { agent, tool }: PlainTool,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<CallToolResult> {
  try {
    const result = await tool.execute(args, { signal });
    if (isPending(result)) {
      return {
        content: [
          {
            type: "text",
            text: `${tool.name} needs a person to answer before it can finish; call the ${agent} tool instead, which waits for the answer durably`,
          },
        ],
        isError: true,
      };
    }
    return { content: [{ type: "text", text: result.output }], isError: result.isError };
  } catch (error) {
    // SPEC §7C: an execute throw is an error result, never a crashed server.
    return { content: [{ type: "text", text: errorMessage(error) }], isError: true };
  }
}
