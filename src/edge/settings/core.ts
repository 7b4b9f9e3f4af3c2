/**
 * The worker's configuration, read from its environment and checked up front so a
 * misconfiguration fails with a message that names the variable.
 */
import { ConfigError } from "../config-error";
import { type CallbackAllow, parseCallbackAllow } from "../notify/callback-url";
import type { DriveMessage, NotifyMessage } from "../protocol";
import { checkKeySecret } from "../secret-key";
import type { SlackEnv } from "./slack";
import type { AccessEnv } from "./access";
import type { CorsEnv } from "./cors";
import type { OAuthEnv } from "./oauth";
import type { EmailEnv } from "./email";
import type { TeamsEnv } from "./teams";

/**
 * The worker's environment: what the edge itself reads, typed. It is a kernel `EnvLike`
 * (any object of bindings a tool reads by name), so it goes to tools and toolkits as it is.
 * Bindings are `unknown` on purpose: the application's own `Env` (from `wrangler types`) is
 * a generic of `createEdge<Env>()`, and the bindings are checked at run time (`readBindings`).
 */
export interface EdgeEnv extends SlackEnv, AccessEnv, CorsEnv, OAuthEnv, EmailEnv, TeamsEnv {
  API_TOKEN?: string;
  WEBHOOK_SECRET?: string;
  NOTIFY_SECRET?: string;
  CALLBACK_ALLOW?: string;
  PUBLIC_URL?: string;
  LLM_BASE_URL?: string;
  LLM_STYLE?: string;
  LLM_MODEL?: string;
  LLM_API_KEY?: string;
  /** JSON approver groups (src/edge/approvals/groups.ts); `createEdge({ approverGroups })` wins per group. */
  APPROVER_GROUPS?: string;
  /** Base64 of a 32-byte Ed25519 seed that signs decision receipts; several space-separated rotate. */
  RECEIPT_KEY?: string;
  /** OTLP/HTTP export of traces (docs/observability.md, "Traces and the run timeline"); unset, nothing is exported. */
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_HEADERS?: string;
  /** An AuthZEN 1.0 policy decision point asked about every tool call (docs/policy.md); issue 43. */
  AUTHZEN_URL?: string;
  AUTHZEN_TOKEN?: string;
  AUTHZEN_TIMEOUT_MS?: string;
  AUTHZEN_SHADOW_URL?: string;
  THREADS?: unknown;
  RESUME_QUEUE?: unknown;
  NOTIFY_QUEUE?: unknown;
}

/** The bindings the edge needs, checked. */
export interface EdgeBindings {
  threads: DurableObjectNamespace;
  resumeQueue: Queue<DriveMessage>;
  notifyQueue: Queue<NotifyMessage>;
}

export interface LlmConfig {
  baseUrl: string;
  style: "openai" | "anthropic";
  model: string;
  apiKey?: string;
}

export interface EdgeConfig {
  apiToken: string;
  /** One or more `whsec_` secrets (space-separated in the variable): the first signs, all verify. */
  webhookSecrets: [signing: string, ...verifying: string[]];
  /**
   * `NOTIFY_SECRET` values (space-separated): the first signs outbound notifications, the
   * rest are for receivers still verifying with an older one. Empty when unset: runs with a
   * `callbackUrl` are then refused (never signed with the decision key instead).
   */
  notifySecrets: string[];
  /** `CALLBACK_ALLOW`: hosts and origins a callbackUrl may name besides public https ones. */
  callbackAllow: CallbackAllow;
  publicUrl?: string;
  /** Undefined ⇒ the agents' built-in demo models. */
  llm?: LlmConfig;
  bindings: EdgeBindings;
}

export { ConfigError } from "../config-error";

/** Reads and checks the required variables and bindings (through `settings(env).config`). */
export function parseConfig(env: EdgeEnv): EdgeConfig {
  const apiToken = env.API_TOKEN?.trim();
  if (!apiToken) {
    throw new ConfigError(
      "API_TOKEN is not set: add it as a secret (`wrangler secret put API_TOKEN`) or in .dev.vars",
    );
  }
  const [signing, ...verifying] = readSecrets(env, "WEBHOOK_SECRET");
  if (!signing) {
    throw new ConfigError(
      "WEBHOOK_SECRET is not set: add a whsec_… secret (see .dev.vars.example)",
    );
  }
  const secrets: EdgeConfig["webhookSecrets"] = [signing, ...verifying];
  const notifySecrets = readSecrets(env, "NOTIFY_SECRET");
  if (notifySecrets.some((secret) => secrets.includes(secret))) {
    throw new ConfigError(
      "NOTIFY_SECRET must differ from every WEBHOOK_SECRET value: a receiver that verifies notifications must not be able to sign decisions",
    );
  }
  let callbackAllow: CallbackAllow;
  try {
    callbackAllow = parseCallbackAllow(env.CALLBACK_ALLOW);
  } catch (error) {
    throw new ConfigError(`CALLBACK_ALLOW is malformed: ${(error as Error).message}`);
  }
  let publicUrl: string | undefined;
  if (env.PUBLIC_URL) {
    if (!isUrl(env.PUBLIC_URL)) {
      throw new ConfigError(`PUBLIC_URL is not a URL: ${JSON.stringify(env.PUBLIC_URL)}`);
    }
    publicUrl = env.PUBLIC_URL.replace(/\/+$/, "");
  }
  const bindings = readBindings(env);
  return {
    bindings,
    apiToken,
    webhookSecrets: secrets,
    notifySecrets,
    callbackAllow,
    ...(publicUrl ? { publicUrl } : {}),
    ...(env.LLM_BASE_URL ? { llm: readLlm(env) } : {}),
  };
}

/** Space-separated `whsec_` values, each checked (secret-key.ts); empty when the variable is unset. */
function readSecrets(env: EdgeEnv, name: "WEBHOOK_SECRET" | "NOTIFY_SECRET"): string[] {
  const secrets = (env[name] ?? "").split(/\s+/).filter(Boolean);
  for (const secret of secrets) {
    const checked = checkKeySecret(name, secret);
    if (!checked.ok) {
      throw new ConfigError(checked.reason);
    }
  }
  return secrets;
}

/** The key that signs notifications; a run with a callbackUrl cannot be served without it. */
export function notifySigningSecret(config: EdgeConfig): string {
  const [secret] = config.notifySecrets;
  if (!secret) {
    throw new ConfigError(
      "NOTIFY_SECRET is not set: notifications to a callbackUrl are signed with it (whsec_…, see .dev.vars.example); it is never replaced by WEBHOOK_SECRET",
    );
  }
  return secret;
}

function readLlm(env: EdgeEnv): LlmConfig {
  const baseUrl = env.LLM_BASE_URL;
  if (!baseUrl) {
    throw new ConfigError("LLM_BASE_URL is not set");
  }
  if (!isUrl(baseUrl)) {
    throw new ConfigError(`LLM_BASE_URL is not a URL: ${JSON.stringify(baseUrl)}`);
  }
  const style = env.LLM_STYLE ?? "openai";
  if (style !== "openai" && style !== "anthropic") {
    throw new ConfigError(
      `LLM_STYLE must be "openai" or "anthropic", got ${JSON.stringify(style)}`,
    );
  }
  if (!env.LLM_MODEL) {
    throw new ConfigError("LLM_MODEL is not set (required with LLM_BASE_URL)");
  }
  return {
    baseUrl,
    style,
    model: env.LLM_MODEL,
    ...(env.LLM_API_KEY ? { apiKey: env.LLM_API_KEY } : {}),
  };
}

/** What wrangler.toml must declare for each binding (the queue names are `createEdge({ queues })`'s). */
const NEEDS = {
  THREADS:
    '[[durable_objects.bindings]] name = "THREADS", class_name = "ThreadObject" (the class your worker exports), and [[migrations]] with new_sqlite_classes = ["ThreadObject"]',
  RESUME_QUEUE:
    '[[queues.producers]] binding = "RESUME_QUEUE" and a [[queues.consumers]] entry for the same queue (createEdge({ queues: { resume } }), default "toolnexus-resume")',
  NOTIFY_QUEUE:
    '[[queues.producers]] binding = "NOTIFY_QUEUE" and a [[queues.consumers]] entry for the same queue (createEdge({ queues: { notify } }), default "toolnexus-notify")',
} as const;

/** Bindings of our own that are not typos of the ones above (checked where they are used). */
const OTHER_BINDINGS: ReadonlySet<string> = new Set([
  "INBOXES",
  "MCP_SESSIONS",
  "MCP_TOKENS",
  "RECEIPTS",
]);

// A service binding answers any property with an RPC method, so it is told apart by its `fetch`.
const isBinding = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as { fetch?: unknown }).fetch !== "function";

const isNamespace = (value: unknown): value is DurableObjectNamespace =>
  isBinding(value) && typeof value.idFromName === "function" && typeof value.get === "function";

const isQueue = (value: unknown): value is Queue =>
  isBinding(value) && typeof value.send === "function" && typeof value.sendBatch === "function";

/** Checks each binding; a missing or misnamed one names itself, what wrangler.toml needs, and a likely typo. */
function readBindings(env: EdgeEnv): EdgeBindings {
  const check = (name: keyof typeof NEEDS, kind: string, is: (value: unknown) => boolean) => {
    const value = (env as Record<string, unknown>)[name];
    if (is(value)) {
      return value;
    }
    const others = Object.keys(env).filter(
      (key) =>
        !(key in NEEDS) && !OTHER_BINDINGS.has(key) && is((env as Record<string, unknown>)[key]),
    );
    const hint = others.length
      ? `; found ${kind} binding ${others.map((key) => JSON.stringify(key)).join(", ")}: rename it to ${name}`
      : "";
    throw new ConfigError(
      `binding ${name} is ${value === undefined ? "missing" : `not a ${kind}`}: wrangler.toml needs ${NEEDS[name]}${hint}`,
    );
  };
  return {
    threads: check("THREADS", "Durable Object namespace", isNamespace) as DurableObjectNamespace,
    resumeQueue: check("RESUME_QUEUE", "queue", isQueue) as Queue<DriveMessage>,
    notifyQueue: check("NOTIFY_QUEUE", "queue", isQueue) as Queue<NotifyMessage>,
  };
}

function isUrl(text: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}
