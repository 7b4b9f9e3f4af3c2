/**
 * The MCP server side of one session on the SDK's JSON-RPC layer (`Protocol`): the
 * initialize handshake, the capability checks, and `tools/call` results checked against
 * the MCP schema, written out as the SDK's `Server` does them for what our server uses.
 *
 * Why not the SDK's `Server`: its module imports the SDK's ajv validator statically, even
 * when another validator is passed in, so the worker carried ajv, ajv-formats and fast-uri
 * (≈ 140 KiB minified, ≈ 44 KiB gzipped) for a validator it never called (our server sends
 * `elicitation/create` itself and reads the reply with call-agent's own checks). The MCP
 * client (src/core/mcp/client.ts) is built the same way for the same reason.
 */
import { Protocol, type ProtocolOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  assertClientRequestTaskCapability,
  assertToolsCallTaskCapability,
} from "@modelcontextprotocol/sdk/experimental/tasks/helpers.js";
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  CreateTaskResultSchema,
  ErrorCode,
  InitializedNotificationSchema,
  InitializeRequestSchema,
  LATEST_PROTOCOL_VERSION,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolRequest,
  type CallToolResult,
  type ClientCapabilities,
  type Implementation,
  type InitializeResult,
  type ServerCapabilities,
  type ServerNotification,
  type ServerRequest,
  type ServerResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { MODERN_CAPABILITIES, MODERN_VERSION } from "./modern/wire";

export type ServerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export class SessionProtocolServer extends Protocol<
  ServerRequest,
  ServerNotification,
  ServerResult
> {
  // Plain fields, not #private: Protocol's constructor calls the capability checks below
  // (for its own ping and task handlers) before a subclass's private fields exist.
  private readonly capabilities: ServerCapabilities;
  private client: ClientCapabilities | undefined;
  /** The revision `initialize` settled on (2026-07-28 requests are answered by ./modern). */
  protocolVersion: string | undefined;

  constructor(
    private readonly info: Implementation,
    options: ProtocolOptions & { capabilities: ServerCapabilities },
  ) {
    super(options);
    this.capabilities = options.capabilities;
    this.setRequestHandler(InitializeRequestSchema, (request): InitializeResult => {
      const requested = request.params.protocolVersion;
      this.client = request.params.capabilities;
      this.protocolVersion =
        requested === MODERN_VERSION || SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
          ? requested
          : LATEST_PROTOCOL_VERSION;
      return {
        protocolVersion: this.protocolVersion,
        // 2026-07-28 has no session tasks: its tasks are the extension's (./modern/tasks).
        capabilities:
          this.protocolVersion === MODERN_VERSION ? MODERN_CAPABILITIES : this.capabilities,
        serverInfo: this.info,
      };
    });
    this.setNotificationHandler(InitializedNotificationSchema, () => {});
  }

  /** The client's capabilities, once it initialized. */
  getClientCapabilities(): ClientCapabilities | undefined {
    return this.client;
  }

  /**
   * Answers `tools/call`; the result is checked against the MCP schema (a task's
   * `CreateTaskResult` when the call asked for a task), as the SDK's `Server` checks it.
   */
  onCallTool(
    handler: (request: CallToolRequest, extra: ServerExtra) => Promise<CallToolResult>,
  ): void {
    this.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const result = await handler(request, extra);
      const schema = request.params.task ? CreateTaskResultSchema : CallToolResultSchema;
      const checked = schema.safeParse(result);
      if (!checked.success) {
        const what = request.params.task ? "task creation" : "tools/call";
        throw new McpError(
          ErrorCode.InvalidParams,
          `Invalid ${what} result: ${checked.error.message}`,
        );
      }
      return checked.data as ServerResult;
    });
  }

  protected assertCapabilityForMethod(method: ServerRequest["method"]): void {
    const needs: Partial<Record<string, keyof ClientCapabilities>> = {
      "sampling/createMessage": "sampling",
      "elicitation/create": "elicitation",
      "roots/list": "roots",
    };
    const capability = needs[method];
    if (capability && !this.client?.[capability]) {
      throw new Error(`Client does not support ${capability} (required for ${method})`);
    }
  }

  protected assertNotificationCapability(method: ServerNotification["method"]): void {
    if (method === "notifications/tools/list_changed" && !this.capabilities.tools) {
      throw new Error(
        `Server does not support notifying of tool list changes (required for ${method})`,
      );
    }
    if (method === "notifications/elicitation/complete" && !this.client?.elicitation?.url) {
      throw new Error(`Client does not support URL elicitation (required for ${method})`);
    }
  }

  protected assertRequestHandlerCapability(method: string): void {
    // Called from Protocol's constructor too, before `capabilities` is set.
    if (!this.capabilities) {
      return;
    }
    if ((method === "tools/call" || method === "tools/list") && !this.capabilities.tools) {
      throw new Error(`Server does not support tools (required for ${method})`);
    }
    if (method.startsWith("tasks/") && !this.capabilities.tasks) {
      throw new Error(`Server does not support tasks capability (required for ${method})`);
    }
  }

  protected assertTaskCapability(method: string): void {
    assertClientRequestTaskCapability(this.client?.tasks?.requests, method, "Client");
  }

  protected assertTaskHandlerCapability(method: string): void {
    if (!this.capabilities) {
      return;
    }
    assertToolsCallTaskCapability(this.capabilities.tasks?.requests, method, "Server");
  }
}
