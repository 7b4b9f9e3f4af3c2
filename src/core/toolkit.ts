import type { Context, Tool, ToolResult, WaitFor } from "./types";
import type { EnvLike } from "./env";
import type { ElicitationHandler } from "./mcp/bridge";
import type { McpServerStatus } from "./mcp";
import type { OAuthSignInLink, OAuthStateMaker } from "./mcp/oauth/session";
import type { TokenStore } from "./mcp/oauth/store";
import { type A2AAgent, type AgentOptions, agent } from "./a2a/agent";
import { agentsFromConfig } from "./a2a/config";
import { errorMessage } from "./errors";
import { builtinTools } from "./tools/question";
import { toOpenAITools } from "./providers/openai/tools";
import { toAnthropicTools } from "./providers/anthropic/tools";

/** A remote tool source (MCP, see src/core/mcp); `loadMcp` in the options swaps it (tests). */
export interface ToolSource {
  tools(): Tool[];
  close(): Promise<void>;
  /** Per-server status, for `toolkit.mcpStatus()`. */
  status?(): Record<string, McpServerStatus>;
  /** Tools that are executed but never listed: they finish calls made before (see McpSource). */
  answerOnlyTools?(): Tool[];
}
export type ToolSourceLoader = (options: {
  config: unknown;
  env?: EnvLike;
  waitFor?: WaitFor;
  onElicitation?: ElicitationHandler;
  attributeElicitations?: boolean;
  fetch?: typeof fetch;
  tokenStore?: TokenStore;
  subject?: string;
  oauthState?: OAuthStateMaker;
  oauthSignInLink?: OAuthSignInLink;
  register?: (tools: Tool[]) => void;
  traceparent?: string;
}) => Promise<ToolSource>;

export interface ToolkitOptions {
  tools?: Tool[];
  /** Alias of `tools`. */
  extraTools?: Tool[];
  /**
   * Remote MCP servers in the common shape: `{ mcpServers | servers | mcp: { NAME: { url,
   * headers?, enabled?, disabled?, timeout?, tools? } } }`. Connected before the toolkit
   * is returned; a server that fails is reported by `mcpStatus()`, never thrown.
   */
  mcp?: unknown;
  /** Alias of `mcp`. */
  mcpConfig?: unknown;
  /**
   * Remote A2A agents (SPEC §7A): `agent({ card })` objects, or a config `agents` block
   * (`{ agents: { NAME: { card | url, headers?, enabled?, disabled?, timeout?, pollEvery? } } }`,
   * see src/core/a2a/config.ts). One tool per skill, resolved before the toolkit returns.
   */
  agents?: A2AAgent[] | Record<string, unknown>;
  /** Replaces the MCP loader (default: the SDK-based one in src/core/mcp). */
  loadMcp?: ToolSourceLoader;
  /**
   * Answers MCP elicitations in process. Without it (or `onElicitation`) the calling loop's
   * `waitFor` answers them (its stream emits `pending`), and with none the call suspends.
   */
  waitFor?: WaitFor;
  /**
   * Answers MCP elicitations per call, with the call's context; takes precedence over
   * `waitFor`. May return `suspendCall(request)` to suspend the call durably (the edge).
   */
  onElicitation?: ElicitationHandler;
  /**
   * A URL elicitation's request (and a URL-required error's) carries `data: { server, tool,
   * … }` beyond the SPEC's `{ id, kind, prompt, url }`. Off by default (issue 40); the edge
   * sets it: its approvers, receipts and version checks name the tool.
   */
  attributeElicitations?: boolean;
  /**
   * The W3C `traceparent` of the run this toolkit serves, when it is traced and known before
   * the toolkit connects (the edge's resumed drives): MCP requests made outside a tool call
   * (`server/discover`, `initialize`, `tools/list`) carry it in `_meta`. A call's own requests
   * carry the call's `ctx.traceparent`.
   */
  traceparent?: string;
  /** Handed to every call as `ctx.suspendAfterMs` (see Context): the edge sets it. */
  suspendAfterMs?: number;
  /** The fetch MCP transports use (default: the global fetch). */
  fetch?: typeof fetch;
  /**
   * Where MCP servers' OAuth tokens (and sign-ins in progress) are kept, by server and
   * subject; default in memory. A fresh process finishes a halted sign-in only with a
   * store that outlives the first (the edge's TokenObject).
   */
  tokenStore?: TokenStore;
  /** Whose tokens these are (default "default"). */
  subject?: string;
  /** Makes each OAuth sign-in's `state` (default: 32 random bytes; the edge signs one). */
  oauthState?: OAuthStateMaker;
  /**
   * The link a sign-in request shows (`Request.url`), default the authorization URL itself.
   * The edge hands out its own link, which binds the browser before it goes on (issue 37).
   */
  oauthSignInLink?: OAuthSignInLink;
  env?: EnvLike;
  /**
   * Built-in tools by name, opt-in: `["question"]` adds the SPEC's `question` tool (the
   * model asks the user; suspends with `kind: "question"`). There are no filesystem or
   * shell built-ins at the edge: other names and shapes are accepted and ignored.
   */
  builtins?: unknown;
  /** Where duplicate-name warnings go; default console.warn. */
  warn?: (message: string) => void;
}

export interface Toolkit {
  tools(): Tool[];
  get(name: string): Tool | undefined;
  register(...tools: Tool[]): void;
  /** Resolves one more A2A agent (an `agent()` or a card URL) and registers its tools; returns their names. */
  addAgent(agentOrCard: A2AAgent | string, options?: Omit<AgentOptions, "card">): Promise<string[]>;
  execute(name: string, args: unknown, ctx?: Context): Promise<ToolResult>;
  toOpenAI(): ReturnType<typeof toOpenAITools>;
  toAnthropic(): ReturnType<typeof toAnthropicTools>;
  toGemini(): [
    { functionDeclarations: Array<{ name: string; description: string; parameters: unknown }> },
  ];
  /** Per MCP server: `connected | disabled | failed` (with the reason) and its tool names. */
  mcpStatus(): Record<string, McpServerStatus>;
  /** Disconnects every MCP server. */
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
  /** Executable, never listed: they finish calls made before (McpSource.answerOnlyTools). */
  const answerOnly = new Map<string, Tool>();
  const sources: ToolSource[] = [];
  const warn = options.warn ?? ((m: string) => console.warn(m));
  const env = options.env;

  const register = (...tools: Tool[]): void => {
    for (const tool of tools) {
      if (byName.has(tool.name)) {
        warn(
          `toolkit: duplicate tool name "${tool.name}" (from ${tool.source}); keeping the first`,
        );
        continue;
      }
      byName.set(tool.name, tool);
    }
  };
  register(
    ...(options.tools ?? []),
    ...(options.extraTools ?? []),
    ...builtinTools(options.builtins),
  );

  const mcpConfig = options.mcp ?? options.mcpConfig;
  if (mcpConfig !== undefined) {
    // Loaded on demand: the SDK stays out of startup for toolkits without MCP.
    const load = options.loadMcp ?? (await import("./mcp")).loadMcp;
    const source = await load({
      config: mcpConfig,
      env,
      waitFor: options.waitFor,
      onElicitation: options.onElicitation,
      ...(options.attributeElicitations ? { attributeElicitations: true } : {}),
      fetch: options.fetch,
      ...(options.tokenStore ? { tokenStore: options.tokenStore } : {}),
      ...(options.subject ? { subject: options.subject } : {}),
      ...(options.oauthState ? { oauthState: options.oauthState } : {}),
      ...(options.oauthSignInLink ? { oauthSignInLink: options.oauthSignInLink } : {}),
      register: (tools) => register(...tools),
      ...(options.traceparent ? { traceparent: options.traceparent } : {}),
    });
    sources.push(source);
    register(...source.tools());
    for (const tool of source.answerOnlyTools?.() ?? []) {
      answerOnly.set(tool.name, tool);
    }
  }

  const remotes =
    options.agents === undefined
      ? []
      : Array.isArray(options.agents)
        ? options.agents
        : agentsFromConfig(options.agents, {
            ...(options.fetch ? { fetch: options.fetch } : {}),
            ...(env ? { env } : {}),
          });
  for (const remote of remotes) {
    // A failing agent is isolated: logged, no tools, never fatal (like an MCP server).
    try {
      register(...(await remote.tools()));
    } catch (error) {
      warn(`toolkit: A2A agent ${remote.card} failed: ${errorMessage(error)}`);
    }
  }

  const list = () => [...byName.values()];
  return {
    env,
    tools: list,
    get: (name) => byName.get(name) ?? answerOnly.get(name),
    register,
    async addAgent(agentOrCard, agentOptions = {}) {
      const remote =
        typeof agentOrCard === "string"
          ? agent({
              ...(options.fetch ? { fetch: options.fetch } : {}),
              ...(env ? { env } : {}),
              ...agentOptions,
              card: agentOrCard,
            })
          : agentOrCard;
      const tools = await remote.tools();
      register(...tools);
      return tools.map((tool) => tool.name);
    },
    async execute(name, args, ctx = {}) {
      const tool = byName.get(name) ?? answerOnly.get(name);
      if (!tool) {
        return {
          // The first line is the loop's standard text, the same in every toolnexus port.
          output: `Unknown tool: ${name}\navailable: ${[...byName.keys()].join(", ") || "none"}`,
          isError: true,
        };
      }
      const withEnv = ctx.env !== undefined || env === undefined ? ctx : { ...ctx, env };
      const full =
        options.suspendAfterMs === undefined || withEnv.suspendAfterMs !== undefined
          ? withEnv
          : { ...withEnv, suspendAfterMs: options.suspendAfterMs };
      try {
        return await tool.execute(args, full);
      } catch (error) {
        return { output: `${name} failed: ${errorMessage(error)}`, isError: true };
      }
    },
    toOpenAI: () => toOpenAITools(list()),
    toAnthropic: () => toAnthropicTools(list()),
    toGemini: () => [
      {
        functionDeclarations: list().map((t) => ({
          name: t.name,
          description: t.description,
          parameters: t.inputSchema,
        })),
      },
    ],
    mcpStatus: () => Object.assign({}, ...sources.map((s) => s.status?.() ?? {})),
    async close() {
      await Promise.allSettled(sources.map((s) => s.close()));
    },
  };
}
