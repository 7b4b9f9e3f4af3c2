/**
 * MCP server configuration in the common shape (Claude Desktop, Cursor, VS Code,
 * OpenCode): `{ mcpServers | servers | mcp: { NAME: { url, headers?, … } } }`.
 * A bad entry is a programming error: it throws a `TypeError` naming the server and
 * the field. An entry that is valid but cannot run here (a local/stdio server) is not
 * an error: it is reported as a failed server by the loader.
 */
import * as z from "zod";
import { type McpOAuthConfig, OAuthConfigSchema } from "./oauth/config";

export const DEFAULT_MCP_TIMEOUT_MS = 30_000;

/** How a remote server is reached: streamable HTTP with SSE fallback, or SSE only. */
export type McpTransportMode = "auto" | "sse";

export type McpServerConfig =
  | {
      name: string;
      type: "remote";
      transport: McpTransportMode;
      url: string;
      /** Values may contain `${ENV}`; expanded when the server connects, never logged. */
      headers: Record<string, string>;
      enabled: boolean;
      timeout: number;
      /** name → keep? keyed on the server's original tool names. */
      tools?: Record<string, boolean>;
      /** The server needs sign-in (OAuth 2.1, MCP authorization): see ./oauth. */
      oauth?: McpOAuthConfig;
    }
  | { name: string; type: "local"; enabled: boolean; timeout: number };

const REMOTE_TYPES: Record<string, McpTransportMode> = {
  remote: "auto",
  http: "auto",
  "streamable-http": "auto",
  streamableHttp: "auto",
  sse: "sse",
};
const LOCAL_TYPES = new Set(["local", "stdio"]);

const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

// Unknown keys are tolerated: the same file often configures other clients too.
const EntrySchema = z.looseObject({
  type: z.string().optional(),
  url: httpUrl.optional(),
  command: z.union([z.string(), z.array(z.string())]).optional(),
  headers: z.record(z.string(), z.string({ error: "header values must be strings" })).optional(),
  enabled: z.boolean().optional(),
  disabled: z.boolean().optional(),
  timeout: z.number().int().positive().optional(),
  tools: z.record(z.string(), z.boolean({ error: "must map tool names to true/false" })).optional(),
  oauth: OAuthConfigSchema.optional(),
});

/**
 * The raw server map of a config, as the SPEC's `parseMcpConfig` returns it: the value of
 * `mcpServers`, `servers` or `mcp`, or the object itself when it is a bare map of servers.
 * Entries are returned as written (not checked: {@link normalizeMcpConfig} does that).
 * @example
 * parseMcpConfig({ mcpServers: { github: { url: "https://api.example.com/mcp" } } });
 * // { github: { url: "https://api.example.com/mcp" } }
 */
export function parseMcpConfig(config: unknown): Record<string, unknown> {
  return serverMap(config);
}

/**
 * Checks a config and normalizes it into one entry per server, in declaration order.
 * @example
 * normalizeMcpConfig({ mcpServers: { github: { url: "https://api.example.com/mcp", headers: { authorization: "Bearer ${GH_TOKEN}" } } } });
 * // [{ name: "github", type: "remote", transport: "auto", url: "…", headers: {…}, enabled: true, timeout: 30000 }]
 */
export function normalizeMcpConfig(config: unknown): McpServerConfig[] {
  const servers = serverMap(config);
  return Object.entries(servers).map(([name, raw]) => parseEntry(name, raw));
}

function serverMap(config: unknown): Record<string, unknown> {
  if (!isPlainObject(config)) {
    throw new TypeError("mcp config: must be an object of servers");
  }
  const wrappers = (["mcpServers", "servers", "mcp"] as const).filter((key) => key in config);
  if (wrappers.length > 1) {
    throw new TypeError(
      `mcp config: use one of mcpServers, servers or mcp (found ${wrappers.join(", ")})`,
    );
  }
  const wrapper = wrappers[0];
  const map = wrapper === undefined ? config : config[wrapper];
  if (!isPlainObject(map)) {
    throw new TypeError(`mcp config: ${wrapper} must be an object of servers`);
  }
  return map;
}

function parseEntry(name: string, raw: unknown): McpServerConfig {
  const where = `mcp server "${name}"`;
  if (!isPlainObject(raw)) {
    throw new TypeError(`${where}: must be an object`);
  }
  const parsed = EntrySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (!issue) {
      throw new TypeError(`${where}: invalid entry`);
    }
    const field = issue.path.map(String).join(".") || "(entry)";
    throw new TypeError(`${where}: ${field}: ${issue.message}`);
  }
  const entry = parsed.data;
  const enabled = entry.enabled !== false && entry.disabled !== true;
  const timeout = entry.timeout ?? DEFAULT_MCP_TIMEOUT_MS;

  const type =
    entry.type ??
    (entry.url !== undefined ? "remote" : entry.command !== undefined ? "local" : undefined);
  if (type === undefined) {
    throw new TypeError(`${where}: url: required (or give a type)`);
  }
  if (LOCAL_TYPES.has(type) || (entry.command !== undefined && entry.url === undefined)) {
    return { name, type: "local", enabled, timeout };
  }
  const transport = REMOTE_TYPES[type];
  if (transport === undefined) {
    throw new TypeError(
      `${where}: type: unknown type ${JSON.stringify(type)} (expected remote, http, sse or local)`,
    );
  }
  if (entry.url === undefined) {
    throw new TypeError(`${where}: url: required for a ${type} server`);
  }
  const out: McpServerConfig = {
    name,
    type: "remote",
    transport,
    url: entry.url,
    headers: entry.headers ?? {},
    enabled,
    timeout,
  };
  if (entry.tools !== undefined) {
    out.tools = entry.tools;
  }
  if (entry.oauth !== undefined) {
    const { redirectUrl, clientId, clientSecret, clientMetadataUrl, scope } = entry.oauth;
    out.oauth = { redirectUrl, clientId, clientSecret, clientMetadataUrl, scope };
    for (const key of Object.keys(out.oauth) as Array<keyof McpOAuthConfig>) {
      if (out.oauth[key] === undefined) {
        delete out.oauth[key];
      }
    }
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `[^a-zA-Z0-9_-]` ⇒ `_`: the tool-name alphabet every provider accepts. */
export function sanitizeName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, "_");
}

/** The toolkit name of a server's tool: `sanitize(server)_sanitize(tool)`. */
export function mcpToolName(server: string, tool: string): string {
  return `${sanitizeName(server)}_${sanitizeName(tool)}`;
}

/**
 * The `tools` allow/drop list: with any `true` entry it is an allowlist (only those
 * load); otherwise `false` entries are dropped and the rest load.
 */
export function keepTool(filter: Record<string, boolean> | undefined, original: string): boolean {
  if (!filter) {
    return true;
  }
  const allowlist = Object.values(filter).some((v) => v);
  return allowlist ? filter[original] === true : filter[original] !== false;
}
