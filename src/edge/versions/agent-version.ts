/**
 * An agent's version: a hash over what changes its behaviour, so a run suspended under one
 * deploy can tell, when it resumes, that it meets another (docs/versions.md).
 *
 * In the hash: the system prompt, the agent's model, max turns, and each of its own tools as
 * `GET /v1/agents` describes it (name, description, input JSON Schema, the static parts of its
 * approval rule), in the order the model sees them. Remote tools are not: an MCP server's or an
 * A2A agent's schemas change without a deploy of ours, so only the servers the agent is
 * configured with (names and URLs) count. An agent that sets `version` is that string.
 */
import { canonicalJson } from "../../core/schema/canonical-json";
import { normalizeEdgeMcpConfig } from "../oauth/settings";
import { sha256 } from "../../core/schema/sha256";
import type { Tool } from "../../core/types";
import { agentTools, describeTool, type AgentDefinition } from "../agent";
import { toBase64Url } from "../approvals/base64url";

/** Everything the computed version covers, as plain JSON (the hash is over its canonical form). */
export interface VersionInputs {
  systemPrompt: string;
  model: string | null;
  maxTurns: number | null;
  tools: Array<ReturnType<typeof describeTool>>;
  /** Remote servers by configuration only: their tools are not in `tools`. */
  mcp: Array<{ name: string; url: string | null; enabled: boolean }>;
}

const encoder = new TextEncoder();

/**
 * The agent's `version` when it sets one, else the base64url SHA-256 of the canonical JSON of
 * {@link versionInputs} (43 characters). Async because tools may be built from `env`.
 * @example
 * const version = await agentVersion(support, env); // "pQ0r…" (stable across deploys of the same agent)
 */
export function agentVersion(agent: AgentDefinition, env: unknown): Promise<string> {
  if (agent.version !== undefined) {
    return Promise.resolve(agent.version);
  }
  // Asked at each start, suspension and decision (issue 46): one hash per agent and `env`
  // object, which a deploy replaces (a new isolate). A failure is not kept.
  if (typeof env !== "object" || env === null) {
    return computeVersion(agent, env);
  }
  let byEnv = versions.get(agent);
  if (!byEnv) {
    byEnv = new WeakMap();
    versions.set(agent, byEnv);
  }
  let version = byEnv.get(env);
  if (!version) {
    version = computeVersion(agent, env);
    byEnv.set(env, version);
    version.catch(() => byEnv.delete(env));
  }
  return version;
}

const versions = new WeakMap<AgentDefinition, WeakMap<object, Promise<string>>>();

async function computeVersion(agent: AgentDefinition, env: unknown): Promise<string> {
  return hashVersionInputs(await versionInputs(agent, env));
}

export function hashVersionInputs(inputs: VersionInputs): string {
  return toBase64Url(sha256(encoder.encode(canonicalJson(inputs))));
}

export async function versionInputs(agent: AgentDefinition, env: unknown): Promise<VersionInputs> {
  const tools = (await agentTools(agent, env)).filter((tool) => !isRemoteTool(tool));
  return {
    systemPrompt: agent.systemPrompt,
    model: agent.model ?? null,
    maxTurns: agent.maxTurns ?? null,
    tools: tools.map(describeTool),
    mcp: mcpServers(agent),
  };
}

/** A tool whose schema lives on another server: MCP (`mcp:<server>`) and A2A (`a2a`, `a2a:<agent>`). */
export function isRemoteTool(tool: Pick<Tool, "source">): boolean {
  return tool.source.startsWith("mcp:") || tool.source === "a2a" || tool.source.startsWith("a2a:");
}

/** The configured MCP servers, sorted by name (headers are left out: they carry secrets). */
export function mcpServers(agent: Pick<AgentDefinition, "mcp">): VersionInputs["mcp"] {
  if (agent.mcp === undefined) {
    return [];
  }
  return normalizeEdgeMcpConfig(agent.mcp)
    .map((server) => ({
      name: server.name,
      url: server.type === "remote" ? server.url : null,
      enabled: server.enabled,
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
