/**
 * The one reader of the worker's environment (docs/architecture.md §1). `settings(env)`
 * parses each part the first time it is asked for and keeps it for that environment object
 * (workerd hands every request of an isolate the same `env`), so every variable is parsed
 * once per env and every call site gets typed settings instead of re-deriving them. The
 * parsers sit beside this file, one per concern; nothing else reads a variable.
 *
 * Parts are lazy on purpose: Slack's, Access's or OAuth's variables are checked only where
 * they are used, so a worker without Slack never fails on them. A part that throws is not
 * kept: the next use throws the same `ConfigError` again until the configuration is fixed.
 * A kept part remembers the values it was parsed from and is parsed again if one changed
 * (an env object is fixed in production; tests and `wrangler dev` reloads may edit one).
 *
 * @example settings(env).config.apiToken; settings(env).approvers(options.approverGroups)
 */
import {
  type ApproverDirectory,
  type ApproverGroupsInit,
  parseApproverDirectory,
} from "../approvals/groups";
import { type ReceiptKey, receiptKeys } from "../receipts/receipt-keys";
import { type AccessSettings, parseAccessSettings } from "./access";
import { type EdgeConfig, type EdgeEnv, parseConfig } from "./core";
import { parseCorsOrigins } from "./cors";
import { type OAuthSettings, parseOAuthSettings } from "./oauth";
import { type OtlpSettings, parseOtlpSettings } from "./otlp";
import { parseSlackSettings, type SlackSettings } from "./slack";
import { type EmailSettings, parseEmailSettings } from "./email";
import { parseTeamsSettings, type TeamsSettings } from "./teams";
import { parsePolicySettings, type PolicySettings } from "../policy/settings";

export * from "./core";
export type { AccessEnv, AccessSettings } from "./access";
export type { CorsEnv } from "./cors";
export type { OAuthEnv, OAuthSettings } from "./oauth";
export type { OtlpSettings } from "./otlp";
export type { SlackEnv, SlackSettings } from "./slack";
export type { EmailEnv, EmailSettings } from "./email";
export type { TeamsEnv, TeamsSettings } from "./teams";

export interface EdgeSettings {
  /** The required part: API token, webhook and notify secrets, bindings, the LLM. */
  readonly config: EdgeConfig;
  /** Undefined when Slack is off (neither variable set). */
  readonly slack: SlackSettings | undefined;
  /** Undefined when email is off (neither `EMAIL` nor `EMAIL_FROM`); half of it throws. */
  readonly email: EmailSettings | undefined;
  /** Undefined when Teams is off (neither `TEAMS_APP_ID` nor `TEAMS_APP_PASSWORD`); half of it throws. */
  readonly teams: TeamsSettings | undefined;
  /** Undefined when Cloudflare Access is not used. */
  readonly access: AccessSettings | undefined;
  /** `CORS_ORIGINS`: empty when unset. */
  readonly corsOrigins: ReadonlySet<string>;
  /** Undefined without `OTEL_EXPORTER_OTLP_ENDPOINT`; throws `OtlpConfigError` when malformed. */
  readonly otlp: OtlpSettings | undefined;
  /** `MCP_TOKENS` and `MCP_TOKEN_KEY`; throws when either is missing (only agents with `oauth` ask). */
  readonly oauth: OAuthSettings;
  /** `RECEIPT_KEY`'s keys, the signing one first; rejects when unset or malformed. */
  receiptKeys(): Promise<ReceiptKey[]>;
  /** The approver directory: `APPROVER_GROUPS` merged with the code's groups (the code wins). */
  approvers(code?: ApproverGroupsInit): ApproverDirectory;
  /** `AUTHZEN_*`: the policy decision point and its shadow (src/edge/policy/settings.ts). */
  readonly policy: PolicySettings;
}

const read = new WeakMap<object, EdgeSettings>();

/** The settings of this environment object, parsed part by part on first use. */
export function settings(env: EdgeEnv): EdgeSettings {
  let found = read.get(env);
  if (!found) {
    found = readerOf(env);
    read.set(env, found);
  }
  return found;
}

/** The variables and bindings each part is parsed from. */
const INPUTS = {
  config: [
    "API_TOKEN",
    "WEBHOOK_SECRET",
    "NOTIFY_SECRET",
    "CALLBACK_ALLOW",
    "PUBLIC_URL",
    "LLM_BASE_URL",
    "LLM_STYLE",
    "LLM_MODEL",
    "LLM_API_KEY",
    "THREADS",
    "RESUME_QUEUE",
    "NOTIFY_QUEUE",
  ],
  slack: ["SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_API_URL"],
  email: ["EMAIL", "EMAIL_FROM"],
  teams: ["TEAMS_APP_ID", "TEAMS_APP_PASSWORD", "TEAMS_OPENID_URL", "TEAMS_SERVICE_URL_ALLOW"],
  access: ["ACCESS_TEAM_DOMAIN", "ACCESS_AUD"],
  cors: ["CORS_ORIGINS"],
  otlp: ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS"],
  oauth: ["MCP_TOKENS", "MCP_TOKEN_KEY"],
  policy: ["AUTHZEN_URL", "AUTHZEN_TOKEN", "AUTHZEN_TIMEOUT_MS", "AUTHZEN_SHADOW_URL"],
} as const satisfies Record<string, readonly (keyof EdgeEnv)[]>;

function readerOf(env: EdgeEnv): EdgeSettings {
  const parts = new Map<keyof typeof INPUTS, { from: unknown[]; value: unknown }>();
  const once = <T>(name: keyof typeof INPUTS, parse: () => T): T => {
    const from = INPUTS[name].map((key) => env[key]);
    const kept = parts.get(name);
    if (kept?.from.every((value, i) => value === from[i])) {
      return kept.value as T;
    }
    const value = parse();
    parts.set(name, { from, value });
    return value;
  };
  const directories = new WeakMap<object, { text: unknown; directory: ApproverDirectory }>();
  const noCode = {};
  return {
    get config() {
      return once("config", () => parseConfig(env));
    },
    get slack() {
      return once("slack", () => parseSlackSettings(env));
    },
    get email() {
      return once("email", () => parseEmailSettings(env));
    },
    get teams() {
      return once("teams", () => parseTeamsSettings(env));
    },
    get access() {
      return once("access", () => parseAccessSettings(env));
    },
    get corsOrigins() {
      return once("cors", () => parseCorsOrigins(env));
    },
    get otlp() {
      return once("otlp", () => parseOtlpSettings(env));
    },
    get oauth() {
      return once("oauth", () => parseOAuthSettings(env));
    },
    get policy() {
      return once("policy", () => parsePolicySettings(env));
    },
    receiptKeys: () => receiptKeys(env.RECEIPT_KEY),
    approvers(code) {
      const key = code ?? noCode;
      const kept = directories.get(key);
      if (kept && kept.text === env.APPROVER_GROUPS) {
        return kept.directory;
      }
      const directory = parseApproverDirectory(env, code);
      directories.set(key, { text: env.APPROVER_GROUPS, directory });
      return directory;
    },
  };
}

/** Shorthand for `settings(env).config`: the required part, checked. */
export function readConfig(env: EdgeEnv): EdgeConfig {
  return settings(env).config;
}
