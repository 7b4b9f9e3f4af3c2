/**
 * The MCP client the toolkit uses: the SDK's own JSON-RPC layer (`Protocol`) with the
 * four things we ask of a server — initialize, `tools/list`, `tools/call`, and answering
 * `elicitation/create` — written out as the SDK's `Client` does them. Per server it speaks
 * protocol revision 2026-07-28 when `server/discover` offers it (./modern/revision: no initialize, the
 * `_meta` envelope on every request, `input_required` results), else 2025-11-25 as before.
 *
 * Why not the SDK's `Client`: its module imports the SDK's ajv validator statically,
 * even when another validator is passed in, so every worker (ours and an adopter's)
 * carried ajv, ajv-formats and fast-uri (≈ 140 KiB minified) that Workers could not even
 * run (ajv compiles code at run time). Tool output schemas are checked here with the
 * kernel's own JSON-Schema validator (@cfworker/json-schema), as `Client` did with the
 * validator we gave it.
 */
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  InitializeResultSchema,
  LATEST_PROTOCOL_VERSION,
  McpError,
  ToolSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolRequest,
  type ClientCapabilities,
  type ClientNotification,
  type ClientRequest,
  type ClientResult,
  type ElicitRequest,
  type ElicitResult,
  type Implementation,
  type ListToolsRequest,
  type ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import type {
  RequestOptions,
  RequestHandlerExtra,
} from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { AnySchema, SchemaOutput } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import * as z from "zod";
import { argsValidator, type ValidateResult } from "../schema";
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  inputRequiredOf,
  MODERN_VERSION,
  offersModern,
  PROTOCOL_VERSION_META_KEY,
  TRACEPARENT_META_KEY,
  type InputRequired,
} from "./modern/revision";
import { type CreatedTask, createdTaskOf, TASKS_EXTENSION } from "./modern/task-wire";

type ToolDefinition = z.infer<typeof ToolSchema>;
// Each tool is checked on its own (see listTools): one malformed tool must not sink the page.
const LenientListToolsResult = z.looseObject({
  tools: z.array(z.unknown()),
  nextCursor: z.string().optional(),
});
// A 2026-07-28 reply is read as it came: its `resultType` says which shape it is.
const AnyResult = z.looseObject({});

export interface ListedTools {
  tools: ToolDefinition[];
  nextCursor?: string;
  /** Tools the server listed that do not fit the MCP schema: skipped, with why. */
  malformed: Array<{ tool: string; problem: string }>;
}

type Extra = RequestHandlerExtra<ClientRequest, ClientNotification>;
export type ElicitHandler = (
  params: ElicitRequest["params"],
  extra: Extra,
) => ElicitResult | Promise<ElicitResult>;

const noEndpoint = (error: StreamableHTTPError) => error.code === 404 || error.code === 405;

export class McpClient extends Protocol<ClientRequest, ClientNotification, ClientResult> {
  #server: ServerCapabilities | undefined;
  #version: string | undefined;
  readonly #outputChecks = new Map<string, (value: unknown) => ValidateResult>();
  /**
   * The run's W3C `traceparent`: every request carries it in `_meta.traceparent` (a request
   * that sets its own, a tool call's, keeps that one). Unset: requests carry none.
   */
  traceparent: string | undefined;

  /** `negotiate`: probe `server/discover` first (streamable HTTP; 2026-07-28 has no SSE transport). */
  constructor(
    private readonly info: Implementation,
    private readonly capabilities: ClientCapabilities,
    private readonly negotiate = false,
  ) {
    super();
  }

  /** The revision this server is spoken to in, once connected. */
  get protocolVersion(): string | undefined {
    return this.#version;
  }

  /**
   * Starts the transport and settles the revision: 2026-07-28 when `server/discover` offers it,
   * else the initialize handshake. Closes everything if it fails.
   */
  override async connect(transport: Transport, options?: RequestOptions): Promise<void> {
    await super.connect(transport);
    try {
      if (this.negotiate && (await this.#discover(transport, options))) {
        return;
      }
      const result = await this.request(
        {
          method: "initialize",
          params: {
            protocolVersion: LATEST_PROTOCOL_VERSION,
            capabilities: this.capabilities,
            clientInfo: this.info,
          },
        },
        InitializeResultSchema,
        options,
      );
      if (!SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
        throw new Error(`Server's protocol version is not supported: ${result.protocolVersion}`);
      }
      this.#server = result.capabilities;
      this.#version = result.protocolVersion;
      // HTTP transports send the negotiated version as a header on every later request.
      transport.setProtocolVersion?.(result.protocolVersion);
      await this.notification({ method: "notifications/initialized" });
    } catch (error) {
      void this.close();
      throw error;
    }
  }

  /**
   * The 2026-07-28 probe. Anything but a result offering the revision (an HTTP 4xx from a
   * server that wants `initialize` first, "method not found", another revision) means the
   * server is spoken to as before; only the caller's own abort or deadline fails the connect.
   */
  async #discover(transport: Transport, options?: RequestOptions): Promise<boolean> {
    transport.setProtocolVersion?.(MODERN_VERSION);
    try {
      const result = await this.request(
        { method: "server/discover", params: { _meta: this.#envelope() } } as never,
        AnyResult as never,
        options,
      );
      if (offersModern(result)) {
        this.#version = MODERN_VERSION;
        this.#server = ((result as { capabilities?: ServerCapabilities }).capabilities ??
          {}) as ServerCapabilities;
        return true;
      }
    } catch (error) {
      // 404/405: the endpoint takes no POST at all, and `initialize` would get the same answer;
      // the caller's SSE fallback (transport/connect.ts) needs to see it from the first POST.
      if (options?.signal?.aborted || (error instanceof StreamableHTTPError && noEndpoint(error))) {
        throw error;
      }
    }
    transport.setProtocolVersion?.("");
    return false;
  }

  /** The per-request `_meta` envelope of 2026-07-28 (the client takes tasks: ./modern/tasks). */
  #envelope(): Record<string, unknown> {
    return {
      [PROTOCOL_VERSION_META_KEY]: MODERN_VERSION,
      [CLIENT_INFO_META_KEY]: this.info,
      [CLIENT_CAPABILITIES_META_KEY]: {
        ...this.capabilities,
        extensions: { [TASKS_EXTENSION]: {} },
      },
    };
  }

  /** Under 2026-07-28 every request carries the envelope (keys the caller set win). */
  #withEnvelope<R extends { params?: object }>(request: R): R {
    if (this.#version !== MODERN_VERSION) {
      return request;
    }
    const params = (request.params ?? {}) as { _meta?: Record<string, unknown> };
    return { ...request, params: { ...params, _meta: { ...this.#envelope(), ...params._meta } } };
  }

  /** Every request goes out with the run's trace context (see `traceparent`). */
  override request<T extends AnySchema>(
    request: ClientRequest,
    resultSchema: T,
    options?: RequestOptions,
  ): Promise<SchemaOutput<T>> {
    return super.request(this.#traced(request), resultSchema, options);
  }

  #traced<R extends { params?: object }>(request: R): R {
    const params = (request.params ?? {}) as { _meta?: Record<string, unknown> };
    if (!this.traceparent || params._meta?.[TRACEPARENT_META_KEY]) {
      return request;
    }
    return {
      ...request,
      params: { ...params, _meta: { ...params._meta, [TRACEPARENT_META_KEY]: this.traceparent } },
    };
  }

  getServerCapabilities(): ServerCapabilities | undefined {
    return this.#server;
  }

  /** One page of the server's tools; remembers each tool's output schema for `callTool`. */
  async listTools(
    params: ListToolsRequest["params"],
    options?: RequestOptions,
  ): Promise<ListedTools> {
    const page = await this.request(
      this.#withEnvelope({ method: "tools/list" as const, ...(params ? { params } : {}) }),
      LenientListToolsResult as never,
      options,
    );
    const { tools: raw, nextCursor } = page as z.infer<typeof LenientListToolsResult>;
    const result: ListedTools = { tools: [], malformed: [] };
    if (nextCursor !== undefined) {
      result.nextCursor = nextCursor;
    }
    for (const [index, candidate] of raw.entries()) {
      const parsed = ToolSchema.safeParse(candidate);
      if (!parsed.success) {
        const name = (candidate as { name?: unknown } | null)?.name;
        const issue = parsed.error.issues[0];
        result.malformed.push({
          tool: typeof name === "string" ? name : `#${index}`,
          problem: issue ? `${issue.path.join(".") || "(tool)"}: ${issue.message}` : "invalid",
        });
        continue;
      }
      const tool = parsed.data;
      if (tool.outputSchema) {
        this.#outputChecks.set(tool.name, argsValidator(tool.outputSchema));
      } else {
        this.#outputChecks.delete(tool.name);
      }
      result.tools.push(tool);
    }
    return result;
  }

  /**
   * Calls a tool; a tool with an output schema must return structured content that matches it.
   * Under 2026-07-28 the server may answer `input_required` instead (returned as is); the retry
   * passes `inputResponses` and the `requestState` in `params`.
   */
  async callTool(
    params: CallToolRequest["params"] & { inputResponses?: unknown; requestState?: string },
    options?: RequestOptions,
  ): Promise<z.infer<typeof CallToolResultSchema> | InputRequired | CreatedTask> {
    if (this.#version === MODERN_VERSION) {
      const raw = await this.request(
        this.#withEnvelope({ method: "tools/call" as const, params }),
        AnyResult as never,
        options,
      );
      const asked = inputRequiredOf(raw);
      if (asked) {
        return asked;
      }
      const task = createdTaskOf(raw);
      if (task) {
        return task;
      }
      return this.#checked(params.name, CallToolResultSchema.parse(raw));
    }
    const result = await this.request(
      { method: "tools/call", params },
      CallToolResultSchema,
      options,
    );
    return this.#checked(params.name, result);
  }

  /**
   * A request of the tasks extension (`tasks/get`, `tasks/update`, `tasks/cancel`), under
   * 2026-07-28 with its envelope; `traceparent` is the calling run's (this client's when absent).
   */
  async taskRequest(
    method: "tasks/get" | "tasks/update" | "tasks/cancel",
    { params, traceparent }: { params: Record<string, unknown>; traceparent?: string },
    options?: RequestOptions,
  ): Promise<Record<string, unknown>> {
    const meta = traceparent ? { _meta: { [TRACEPARENT_META_KEY]: traceparent } } : {};
    return (await this.request(
      this.#withEnvelope({ method, params: { ...params, ...meta } }) as never,
      AnyResult as never,
      options,
    )) as Record<string, unknown>;
  }

  #checked(name: string, result: z.infer<typeof CallToolResultSchema>) {
    const params = { name };
    const check = this.#outputChecks.get(params.name);
    if (check && !result.isError) {
      if (!result.structuredContent) {
        throw new McpError(
          ErrorCode.InvalidRequest,
          `Tool ${params.name} has an output schema but did not return structured content`,
        );
      }
      const checked = check(result.structuredContent);
      if (!checked.ok) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Structured content does not match the tool's output schema: ${checked.problems.join("; ")}`,
        );
      }
    }
    return result;
  }

  /**
   * Answers `elicitation/create`; results are checked as the SDK's `Client` does. The
   * client advertises both modes whenever it answers (see transport/connect.ts), so any mode is taken.
   */
  onElicitation(handler: ElicitHandler): void {
    this.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      const params = { ...request.params, mode: request.params.mode ?? "form" };
      const result = ElicitResultSchema.safeParse(
        await handler(params as ElicitRequest["params"], extra),
      );
      if (!result.success) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Invalid elicitation result: ${result.error.message}`,
        );
      }
      return result.data;
    });
  }

  protected assertCapabilityForMethod(method: ClientRequest["method"]): void {
    if ((method === "tools/list" || method === "tools/call") && !this.#server?.tools) {
      throw new Error(`Server does not support tools (required for ${method})`);
    }
  }

  protected assertNotificationCapability(): void {}

  // Elicitation is the one request handled, and it is registered only with its capability (transport/connect.ts).
  protected assertRequestHandlerCapability(): void {}

  protected assertTaskCapability(): void {}

  protected assertTaskHandlerCapability(): void {}
}
