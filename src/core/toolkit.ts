import type { Context, Tool, ToolResult, WaitFor } from "./types";
import type { EnvLike } from "./env";
import { errorMessage } from "./errors";
import { toOpenAITools } from "./providers/openai/tools";
import { toAnthropicTools } from "./providers/anthropic/tools";

/** A remote tool source (MCP) plugs in through this seam; see src/core/mcp. */
export interface ToolSource {
  tools(): Tool[];
  close(): Promise<void>;
}
export type ToolSourceLoader = (options: {
  config: unknown;
  env?: EnvLike;
  waitFor?: WaitFor;
}) => Promise<ToolSource>;

export interface ToolkitOptions {
  tools?: Tool[];
  /** Alias of `tools`. */
  extraTools?: Tool[];
  /** Remote MCP servers; needs `loadMcp` (from the MCP module) to connect. */
  mcp?: unknown;
  mcpConfig?: unknown;
  loadMcp?: ToolSourceLoader;
  waitFor?: WaitFor;
  env?: EnvLike;
  /** Accepted and ignored: there are no filesystem built-ins at the edge. */
  builtins?: unknown;
  /** Where duplicate-name warnings go; default console.warn. */
  warn?: (message: string) => void;
}

export interface Toolkit {
  tools(): Tool[];
  get(name: string): Tool | undefined;
  register(...tools: Tool[]): void;
  execute(name: string, args: unknown, ctx?: Context): Promise<ToolResult>;
  toOpenAI(): ReturnType<typeof toOpenAITools>;
  toAnthropic(): ReturnType<typeof toAnthropicTools>;
  toGemini(): [{ functionDeclarations: Array<{ name: string; description: string; parameters: unknown }> }];
  close(): Promise<void>;
  readonly env?: EnvLike;
}

/**
 * A named set of tools with the three provider schema shapes. Duplicate names keep
 * the first and warn. Async because remote servers connect first.
 * @example const toolkit = await createToolkit({ tools: [add, requireApproval(refund)] });
 */
export async function createToolkit(options: ToolkitOptions = {}): Promise<Toolkit> {
  const byName = new Map<string, Tool>();
  const sources: ToolSource[] = [];
  const warn = options.warn ?? ((m: string) => console.warn(m));
  const env = options.env;

  const register = (...tools: Tool[]): void => {
    for (const tool of tools) {
      if (byName.has(tool.name)) {
        warn(`toolkit: duplicate tool name "${tool.name}" (from ${tool.source}); keeping the first`);
        continue;
      }
      byName.set(tool.name, tool);
    }
  };
  register(...(options.tools ?? []), ...(options.extraTools ?? []));

  const mcpConfig = options.mcp ?? options.mcpConfig;
  if (mcpConfig !== undefined) {
    if (!options.loadMcp) throw new TypeError("createToolkit: `mcp` given without `loadMcp`");
    const source = await options.loadMcp({ config: mcpConfig, env, waitFor: options.waitFor });
    sources.push(source);
    register(...source.tools());
  }

  const list = () => [...byName.values()];
  return {
    env,
    tools: list,
    get: (name) => byName.get(name),
    register,
    async execute(name, args, ctx = {}) {
      const tool = byName.get(name);
      if (!tool) return { output: `unknown tool "${name}"; available: ${[...byName.keys()].join(", ") || "none"}`, isError: true };
      try {
        return await tool.execute(args, { ...ctx, env: ctx.env ?? env });
      } catch (error) {
        return { output: `${name} failed: ${errorMessage(error)}`, isError: true };
      }
    },
    toOpenAI: () => toOpenAITools(list()),
    toAnthropic: () => toAnthropicTools(list()),
    toGemini: () => [
      { functionDeclarations: list().map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema })) },
    ],
    async close() {
      await Promise.allSettled(sources.map((s) => s.close()));
    },
  };
}
