/**
 * Remote MCP servers as a toolkit tool source (docs/architecture.md §2, §3 rule 5).
 *
 * `loadMcp` connects every enabled server concurrently. One failing or hanging server
 * is isolated: its status is `failed` with the reason and the others load. Local
 * (stdio) entries are reported as failed, never a crash. `createToolkit({ mcp })`
 * calls this for you.
 *
 * Elicitation: the client advertises the `elicitation` capability (form + url) and
 * bridges each `elicitation/create` onto a `Request` (see ./elicitation for the mappings
 * and ./bridge for who answers: `onElicitation`, else `waitFor`, else the calling loop's
 * `waitFor`, else the call suspends on the request).
 *
 * @example
 * const source = await loadMcp({
 *   config: { mcpServers: { docs: { url: "https://docs.example.com/mcp", headers: { authorization: "Bearer ${DOCS_TOKEN}" } } } },
 *   env, waitFor: (request) => askSomeone(request),
 * });
 * source.status(); // { docs: { status: "connected", tools: ["docs_search"], transport: "streamable-http" } }
 */
import type { Tool, WaitFor } from "../types";
import type { EnvLike } from "../env";
import { errorMessage } from "../errors";
import { elicitationHandler, type ElicitationHandler } from "./bridge";
import { CallRegistry } from "./calls";
import { normalizeMcpConfig, type McpServerConfig } from "./config";
import { connectServer, type McpConnection, type McpTransportKind } from "./transport/connect";
import { withDeadline } from "./deadline";
import { listAllTools, mcpTool } from "./tools";
import { authorizationRequiredIn, type AuthorizationRequired } from "./oauth/challenge";
import { discover } from "./oauth/discover";
import { OAuthSession, type OAuthSignInLink, type OAuthStateMaker } from "./oauth/session";
import { signInTool } from "./oauth/sign-in-tool";
import { signedInTool } from "./oauth/signed-in-tool";
import { DEFAULT_SUBJECT, memoryTokenStore, type TokenStore } from "./oauth/store";
import { mcpToolName } from "./config";
import { offeredTools } from "./catalog/offered";
import { unreachableReason } from "./reasons";
import { toolNames } from "./catalog/tool-names";

export interface LoadMcpOptions {
  /** `{ mcpServers | servers | mcp: { NAME: { url, headers?, enabled?, disabled?, timeout?, tools? } } }`. */
  config: unknown;
  /** Where `${ENV}` in headers is looked up (then `process.env` where one exists). */
  env?: EnvLike;
  /** Answers elicitations in process (used when there is no `onElicitation`; else the caller's loop does). */
  waitFor?: WaitFor;
  /** Answers elicitations per call; takes precedence over `waitFor`. See ./bridge. */
  onElicitation?: ElicitationHandler;
  /** URL elicitations' requests carry `data: { server, tool, … }` (./elicitation.ts); off by default. */
  attributeElicitations?: boolean;
  /** The fetch the transports use (default: the global fetch). */
  fetch?: typeof fetch;
  /** Where OAuth tokens are kept, per server and subject (default: in memory). */
  tokenStore?: TokenStore;
  /** Whose tokens (default "default"); the edge uses the run's `requestedBy`, else the thread. */
  subject?: string;
  /** Makes each sign-in's `state` (default: random). */
  oauthState?: OAuthStateMaker;
  /** The link a sign-in request shows (default: the authorization URL). */
  oauthSignInLink?: OAuthSignInLink;
  /** The run's W3C `traceparent`: every request outside a tool call carries it in `_meta`. */
  traceparent?: string;
  /** Adds tools a server contributes later (after a sign-in) to the toolkit. */
  register?: (tools: Tool[]) => void;
}

export interface McpServerStatus {
  status: "connected" | "disabled" | "failed" | "needs_authorization";
  reason?: string;
  /** Toolkit names of the tools this server contributed. */
  tools: string[];
  transport?: McpTransportKind;
  /** The authorization server found for a server that `needs_authorization`. */
  authorizationServer?: string;
  /** Toolkit name → the server's tool name, for tools renamed to fit 64 characters or to stay unique. */
  renamed?: Record<string, string>;
  /** Tools the server listed that are not offered, and why (malformed, task-only). */
  skipped?: Array<{ tool: string; reason: string }>;
}

export interface McpSource {
  tools(): Tool[];
  /**
   * Tools not offered to the model that still finish a call it made before: a connected
   * server with `oauth` answers a re-executed `<server>_sign_in` (the sign-in completed, and
   * then the process died before the call's result was kept). See ./oauth/signed-in-tool.ts.
   */
  answerOnlyTools?(): Tool[];
  status(): Record<string, McpServerStatus>;
  /** Disconnects every server (terminating streamable HTTP sessions). */
  close(): Promise<void>;
}

export const LOCAL_UNSUPPORTED = "local (stdio) servers are not supported at the edge";

interface Loaded {
  name: string;
  state: McpServerStatus;
  tools: Tool[];
  answerOnly?: Tool[];
  connection?: McpConnection;
}

/** Connects the configured servers. Throws a `TypeError` only for a malformed config. */
export async function loadMcp(options: LoadMcpOptions): Promise<McpSource> {
  const configs = normalizeMcpConfig(options.config);
  const handler = elicitationHandler(options);
  // One store for the whole load, so servers share it (and the default is per toolkit).
  options = { ...options, tokenStore: options.tokenStore ?? memoryTokenStore() };
  const loaded = await Promise.all(configs.map((config) => loadServer(config, options, handler)));
  return {
    tools: () => loaded.flatMap((server) => server.tools),
    answerOnlyTools: () => loaded.flatMap((server) => server.answerOnly ?? []),
    status: () =>
      Object.fromEntries(
        loaded.map((server) => [server.name, { ...server.state, tools: [...server.state.tools] }]),
      ),
    async close() {
      await Promise.allSettled(loaded.map((server) => server.connection?.close()));
    },
  };
}

async function loadServer(
  config: McpServerConfig,
  options: LoadMcpOptions,
  handler: ElicitationHandler,
): Promise<Loaded> {
  const name = config.name;
  if (!config.enabled) {
    return { name, state: { status: "disabled", tools: [] }, tools: [] };
  }
  if (config.type === "local") {
    return failed(name, LOCAL_UNSUPPORTED);
  }

  const calls = new CallRegistry();
  const session = config.oauth
    ? new OAuthSession({
        server: name,
        serverUrl: config.url,
        config: config.oauth,
        store: options.tokenStore ?? memoryTokenStore(),
        subject: options.subject ?? DEFAULT_SUBJECT,
        fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
        ...(options.oauthState ? { makeState: options.oauthState } : {}),
        ...(options.oauthSignInLink ? { signInLink: options.oauthSignInLink } : {}),
      })
    : undefined;
  const server: Loaded = { name, state: { status: "connected", tools: [] }, tools: [] };
  const connect = async () => {
    const connection = await connectServer(config, {
      env: options.env,
      fetch: options.fetch,
      elicitation: handler,
      ...(options.attributeElicitations ? { attributeElicitations: true } : {}),
      calls,
      ...(session ? { bearer: session } : {}),
      ...(options.traceparent ? { traceparent: options.traceparent } : {}),
    });
    calls.oneAtATime = connection.transport === "sse";
    try {
      const client = connection.client;
      const listed = await withDeadline("tools/list", config.timeout, (signal) =>
        listAllTools(client, signal),
      );
      const { offered, skipped } = offeredTools(listed, config.tools);
      const names = toolNames(
        name,
        offered.map((d) => d.name),
      );
      const renamed: Record<string, string> = {};
      const tools = offered.map((definition) => {
        const toolkitName = names.get(definition.name) as string;
        if (toolkitName !== mcpToolName(name, definition.name)) {
          renamed[toolkitName] = definition.name;
        }
        return mcpTool(definition, {
          server: name,
          client,
          calls,
          timeout: config.timeout,
          name: toolkitName,
          ...(session ? { auth: session } : {}),
          ...(options.attributeElicitations ? { attributeElicitations: true } : {}),
        });
      });
      server.connection = connection;
      server.tools = tools;
      server.state = {
        status: "connected",
        tools: tools.map((t) => t.name),
        transport: connection.transport,
        ...(Object.keys(renamed).length > 0 ? { renamed } : {}),
        ...(skipped.length > 0 ? { skipped } : {}),
      };
      return tools;
    } catch (error) {
      await connection.close();
      throw error;
    }
  };
  try {
    const tools = await connect();
    if (session) {
      server.answerOnly = [signedInTool(mcpToolName(name, "sign_in"), session.server, tools)];
    }
    return server;
  } catch (error) {
    const refused = authorizationRequiredIn(error);
    if (refused) {
      return needsAuthorization(server, refused, { config, options, session, connect });
    }
    return failed(name, unreachableReason(config.url, error) ?? errorMessage(error));
  }
}

/** A server that answered 401: with `oauth`, a sign-in tool; without, a status saying what it wants. */
async function needsAuthorization(
  server: Loaded,
  refused: AuthorizationRequired,
  parts: {
    config: Extract<McpServerConfig, { type: "remote" }>;
    options: LoadMcpOptions;
    session: OAuthSession | undefined;
    connect: () => Promise<Tool[]>;
  },
): Promise<Loaded> {
  const { config, options, session, connect } = parts;
  if (!session) {
    let found: string | undefined;
    let why = "";
    try {
      found = (await discover(config.url, refused.challenge, options.fetch ?? globalThis.fetch))
        .issuer;
    } catch (error) {
      why = ` (no usable authorization server: ${errorMessage(error)})`;
    }
    server.state = {
      status: "needs_authorization",
      reason: `${config.url} answered HTTP ${refused.challenge.status}: it needs sign-in; give the entry "oauth"${why}`,
      tools: [],
      ...(found ? { authorizationServer: found } : {}),
    };
    return server;
  }
  const tool = signInTool({
    name: mcpToolName(server.name, "sign_in"),
    session,
    challenge: refused.challenge,
    async connect() {
      const tools = await connect();
      options.register?.(tools);
      return tools.map((t) => t.name);
    },
  });
  server.tools = [tool];
  server.state = {
    status: "needs_authorization",
    reason: `${config.url} needs sign-in: call ${tool.name}`,
    tools: [tool.name],
  };
  return server;
}

function failed(name: string, reason: string): Loaded {
  return { name, state: { status: "failed", reason, tools: [] }, tools: [] };
}

export {
  parseMcpConfig,
  normalizeMcpConfig,
  sanitizeName,
  mcpToolName,
  DEFAULT_MCP_TIMEOUT_MS,
} from "./config";
export type { McpServerConfig } from "./config";
export { requestFromElicitation, resultFromAnswer, elicitationNote } from "./elicitation";
export type { ElicitationParams, ElicitationOrigin, ElicitationOutcome } from "./elicitation";
export { suspendCall, isSuspendCall } from "./bridge";
export type {
  ElicitationHandler,
  ElicitationContext,
  ElicitationReply,
  SuspendCall,
} from "./bridge";
export { fromCallResult } from "./tools";
