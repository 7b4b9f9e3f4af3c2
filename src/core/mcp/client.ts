/**
 * The MCP client the toolkit uses: the SDK's own JSON-RPC layer (`Protocol`) with the
 * four things we ask of a server — initialize, `tools/list`, `tools/call`, and answering
 * `elicitation/create` — written out as the SDK's `Client` does them.
 *
 * Why not the SDK's `Client`: its module imports the SDK's ajv validator statically,
 * even when another validator is passed in, so every worker (ours and an adopter's)
 * carried ajv, ajv-formats and fast-uri (≈ 140 KiB minified) that Workers could not even
 * run (ajv compiles code at run time). Tool output schemas are checked here with the
 * kernel's own JSON-Schema validator (@cfworker/json-schema), as `Client` did with the
 * validator we gave it.
 */
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
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
import * as z from "zod";
import { argsValidator, type ValidateResult } from "../schema";

type ToolDefinition = z.infer<typeof ToolSchema>;
// Each tool is checked on its own (see listTools): one malformed tool must not sink the page.
const LenientListToolsResult = z.looseObject({
  tools: z.array(z.unknown()),
  nextCursor: z.string().optional(),
});

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

export class McpClient extends Protocol<ClientRequest, ClientNotification, ClientResult> {
  #server: ServerCapabilities | undefined;
  readonly #outputChecks = new Map<string, (value: unknown) => ValidateResult>();

  constructor(
    private readonly info: Implementation,
    private readonly capabilities: ClientCapabilities,
  ) {
    super();
  }

  /** Starts the transport and runs the initialize handshake; closes everything if it fails. */
  override async connect(transport: Transport, options?: RequestOptions): Promise<void> {
    await super.connect(transport);
    try {
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
      // HTTP transports send the negotiated version as a header on every later request.
      transport.setProtocolVersion?.(result.protocolVersion);
      await this.notification({ method: "notifications/initialized" });
    } catch (error) {
      void this.close();
      throw error;
    }
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
      { method: "tools/list", ...(params ? { params } : {}) },
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

  /** Calls a tool; a tool with an output schema must return structured content that matches it. */
  async callTool(params: CallToolRequest["params"], options?: RequestOptions) {
    const result = await this.request(
      { method: "tools/call", params },
      CallToolResultSchema,
      options,
    );
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
