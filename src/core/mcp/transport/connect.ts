/**
 * Connecting to one remote MCP server: the official SDK's streamable HTTP transport
 * first, the legacy SSE transport (sse.ts) when the server answers the
 * streamable POST with a 4xx (the spec's backwards-compatibility rule). The client is ours over the SDK's protocol layer
 * (client.ts: the SDK's `Client` module brings ajv with it).
 */
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { expandEnv, type EnvLike } from "../../env";
import { errorMessage } from "../../errors";
import { elicitationResponder, type ElicitationHandler } from "../bridge";
import type { CallRegistry } from "../calls";
import { McpClient } from "../client";
import type { McpServerConfig } from "../config";
import { McpTimeoutError, NO_SDK_TIMEOUT, withDeadline } from "../deadline";
import { linkingFetch } from "./link";
import { withStandardHeaders } from "./standard-headers";
import { SseClientTransport } from "./sse";
import { authorizingFetch, type BearerSource } from "../oauth/challenge";

export type RemoteServerConfig = Extract<McpServerConfig, { type: "remote" }>;
export type McpTransportKind = "streamable-http" | "sse";

export interface McpConnection {
  client: McpClient;
  transport: McpTransportKind;
  close(): Promise<void>;
}

export interface ConnectOptions {
  env?: EnvLike;
  fetch?: typeof fetch;
  /** Answers elicitations; the client advertises both modes (form + url). */
  elicitation: ElicitationHandler;
  /** URL elicitations' requests carry server and tool in `data` (../elicitation.ts). */
  attributeElicitations?: boolean;
  calls: CallRegistry;
  /** The server's access tokens (entries with `oauth`); a 401 throws `AuthorizationRequired` either way. */
  bearer?: BearerSource;
  /** The run's `traceparent`, carried in `_meta` by requests made outside a tool call. */
  traceparent?: string;
}

const CLIENT_INFO = { name: "toolnexus-edge", version: "0.1.0" };

/** Connects and initializes; rejects with a reason safe to show (no header values). */
export async function connectServer(
  config: RemoteServerConfig,
  options: ConnectOptions,
): Promise<McpConnection> {
  const headers = expandHeaders(config.headers, options.env);
  const fetch = linkingFetch(
    authorizingFetch(
      options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      config.name,
      options.bearer,
    ),
    options.calls,
  );
  const url = new URL(config.url);
  const sse = () =>
    attempt(config, options, {
      kind: "sse",
      transport: new SseClientTransport(url, { fetch, headers }),
    });
  if (config.transport === "sse") {
    return sse();
  }

  try {
    return await attempt(config, options, {
      kind: "streamable-http",
      transport: new StreamableHTTPClientTransport(url, {
        fetch: withStandardHeaders(fetch),
        requestInit: { headers },
      }),
    });
  } catch (streamableError) {
    if (!(streamableError instanceof StreamableHTTPError && isClientError(streamableError.code))) {
      throw streamableError;
    }
    try {
      return await sse();
    } catch (sseError) {
      throw new Error(
        `streamable HTTP: ${describe(streamableError)}; SSE fallback: ${errorMessage(sseError)}`,
      );
    }
  }
}

function expandHeaders(
  headers: Record<string, string>,
  env: EnvLike | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, template] of Object.entries(headers)) {
    try {
      out[name] = expandEnv(template, env);
    } catch (error) {
      throw new Error(`headers.${name}: ${errorMessage(error)}`);
    }
  }
  return out;
}

function describe(error: StreamableHTTPError): string {
  return `HTTP ${error.code}: ${error.message.replace(/^Streamable HTTP error: /, "")}`;
}

const isClientError = (code: number | undefined) => code !== undefined && code >= 400 && code < 500;

async function attempt(
  config: RemoteServerConfig,
  options: ConnectOptions,
  {
    kind,
    transport,
  }: { kind: McpTransportKind; transport: StreamableHTTPClientTransport | SseClientTransport },
): Promise<McpConnection> {
  // 2026-07-28 is offered over streamable HTTP only: the SSE transport goes straight to initialize.
  const client = newClient(config.name, options, kind === "streamable-http");
  await initialize(client, transport, config.timeout);
  return {
    client,
    transport: kind,
    async close() {
      if (transport instanceof StreamableHTTPClientTransport) {
        await withDeadline("close", config.timeout, () => transport.terminateSession()).catch(
          () => {},
        );
      }
      await client.close().catch(() => {});
    },
  };
}

function newClient(server: string, options: ConnectOptions, negotiate: boolean): McpClient {
  const client = new McpClient(CLIENT_INFO, { elicitation: { form: {}, url: {} } }, negotiate);
  client.traceparent = options.traceparent;
  client.onElicitation(
    elicitationResponder(server, options.calls, {
      handler: options.elicitation,
      attributed: options.attributeElicitations === true,
    }),
  );
  return client;
}

/** `connect` (transport start) and `initialize` each get the full timeout. */
async function initialize(client: McpClient, transport: Transport, ms: number): Promise<void> {
  const start = transport.start.bind(transport);
  const initializing = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  transport.start = async () => {
    await withDeadline("connect", ms, () => start());
    timer = setTimeout(
      () => initializing.abort(new McpTimeoutError(`initialize timed out after ${ms} ms`)),
      ms,
    );
  };
  try {
    await client.connect(transport, { signal: initializing.signal, timeout: NO_SDK_TIMEOUT });
  } catch (error) {
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    throw initializing.signal.aborted ? initializing.signal.reason : error;
  } finally {
    clearTimeout(timer);
  }
}
