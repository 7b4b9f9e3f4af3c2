/**
 * The config-file `agents` block (SPEC §7A, the mirror of `mcpServers`):
 * `{ agents: { NAME: { card | url, headers?, enabled?, disabled?, timeout?, pollEvery? } } }`.
 * The key only identifies the entry (the tools are named after the fetched card's `name`).
 * `card` is the Agent Card URL; `url` is the agent's base URL, whose card is at
 * `<url>/.well-known/agent-card.json` (a `url` that already ends in `.json` is the card).
 * `enabled` / `disabled` follow MCP's precedence: an entry is on unless `enabled: false` or
 * `disabled: true`. A bad entry is a programming error: a `TypeError` naming it and the field.
 */
import * as z from "zod";
import type { EnvLike } from "../env";
import { type A2AAgent, agent, DEFAULT_A2A_POLL_MS, DEFAULT_A2A_TIMEOUT_MS } from "./agent";

export interface A2AAgentConfig {
  name: string;
  /** The Agent Card URL. */
  card: string;
  /** Values may contain `${ENV}`; expanded per request, never logged. */
  headers: Record<string, string>;
  enabled: boolean;
  timeout: number;
  pollEvery: number;
}

const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

// Unknown keys are tolerated: the same file often configures other clients too.
const EntrySchema = z.looseObject({
  card: httpUrl.optional(),
  url: httpUrl.optional(),
  headers: z.record(z.string(), z.string({ error: "header values must be strings" })).optional(),
  enabled: z.boolean().optional(),
  disabled: z.boolean().optional(),
  timeout: z.number().int().positive().optional(),
  pollEvery: z.number().int().positive().optional(),
});

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The card of an agent given by its base URL. */
export function cardUrlOf(url: string): string {
  const parsed = new URL(url);
  if (parsed.pathname.endsWith(".json")) {
    return parsed.toString();
  }
  parsed.pathname = `${parsed.pathname.replace(/\/+$/, "")}/.well-known/agent-card.json`;
  return parsed.toString();
}

/**
 * One entry per agent, in declaration order (disabled ones included, `enabled: false`).
 * Accepts the whole config object (`{ agents: {…} }`) or the block itself.
 * @example
 * parseAgentsConfig({ agents: { billing: { url: "https://billing.example.com", headers: { authorization: "Bearer ${BILLING_TOKEN}" } } } });
 * // [{ name: "billing", card: "https://billing.example.com/.well-known/agent-card.json", headers: {…}, enabled: true, timeout: 300000, pollEvery: 1000 }]
 */
export function parseAgentsConfig(config: unknown): A2AAgentConfig[] {
  if (!isPlainObject(config)) {
    throw new TypeError("agents config: must be an object of agents");
  }
  const block = "agents" in config ? config.agents : config;
  if (!isPlainObject(block)) {
    throw new TypeError("agents config: agents must be an object of agents");
  }
  return Object.entries(block).map(([name, raw]) => parseEntry(name, raw));
}

function parseEntry(name: string, raw: unknown): A2AAgentConfig {
  const where = `A2A agent "${name}"`;
  if (!isPlainObject(raw)) {
    throw new TypeError(`${where}: must be an object`);
  }
  const parsed = EntrySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.map(String).join(".") || "(entry)";
    throw new TypeError(`${where}: ${field}: ${issue?.message ?? "invalid entry"}`);
  }
  const entry = parsed.data;
  if (entry.card !== undefined && entry.url !== undefined) {
    throw new TypeError(`${where}: give card or url, not both`);
  }
  const card =
    entry.card ?? (entry.url === undefined ? undefined : cardUrlOf(entry.url)) ?? undefined;
  if (card === undefined) {
    throw new TypeError(`${where}: card: required (the Agent Card URL), or url (the agent's base)`);
  }
  return {
    name,
    card,
    headers: entry.headers ?? {},
    enabled: entry.enabled !== false && entry.disabled !== true,
    timeout: entry.timeout ?? DEFAULT_A2A_TIMEOUT_MS,
    pollEvery: entry.pollEvery ?? DEFAULT_A2A_POLL_MS,
  };
}

/** The enabled entries of an `agents` block as agents for `createToolkit({ agents })`. */
export function agentsFromConfig(
  config: unknown,
  options: { fetch?: typeof fetch; env?: EnvLike } = {},
): A2AAgent[] {
  return parseAgentsConfig(config)
    .filter((entry) => entry.enabled)
    .map((entry) =>
      agent({
        card: entry.card,
        headers: entry.headers,
        timeout: entry.timeout,
        pollEvery: entry.pollEvery,
        ...(options.fetch ? { fetch: options.fetch } : {}),
        ...(options.env ? { env: options.env } : {}),
      }),
    );
}
