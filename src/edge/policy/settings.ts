/**
 * The policy decision point from the environment (docs/configuration.md, "Approval policy"):
 * `AUTHZEN_URL` (+ `AUTHZEN_TOKEN`, sent as a Bearer token) is asked about every tool call
 * within `AUTHZEN_TIMEOUT_MS` (default 1500); `AUTHZEN_SHADOW_URL` is evaluated beside it in
 * shadow mode, never deciding. Read by `settings(env).policy`.
 */
import { authzenPolicy, DEFAULT_PDP_TIMEOUT_MS } from "../../core/policy/authzen";
import type { ToolPolicy } from "../../core/policy/types";
import { ConfigError } from "../config-error";

export interface PolicyEnv {
  AUTHZEN_URL?: string;
  AUTHZEN_TOKEN?: string;
  AUTHZEN_TIMEOUT_MS?: string;
  AUTHZEN_SHADOW_URL?: string;
}

export interface PolicySettings {
  /** The PDP that tightens the in-code rules; undefined without `AUTHZEN_URL`. */
  live?: ToolPolicy;
  /** The PDP evaluated in shadow mode; undefined without `AUTHZEN_SHADOW_URL`. */
  shadow?: ToolPolicy;
  /** Bound of every evaluation, live and shadow. */
  timeoutMs: number;
}

export function parsePolicySettings(env: PolicyEnv, fetcher?: typeof fetch): PolicySettings {
  const timeoutMs = parseTimeout(env.AUTHZEN_TIMEOUT_MS);
  const token = text(env.AUTHZEN_TOKEN);
  const live = pdpUrl(env.AUTHZEN_URL, "AUTHZEN_URL");
  const shadow = pdpUrl(env.AUTHZEN_SHADOW_URL, "AUTHZEN_SHADOW_URL");
  const common = { timeoutMs, ...(token ? { token } : {}), ...(fetcher ? { fetch: fetcher } : {}) };
  return {
    timeoutMs,
    ...(live ? { live: authzenPolicy({ url: live, ...common }) } : {}),
    ...(shadow ? { shadow: authzenPolicy({ url: shadow, id: "authzen-shadow", ...common }) } : {}),
  };
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

function pdpUrl(value: unknown, name: string): string | undefined {
  const url = text(value);
  if (url === undefined) {
    return undefined;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`${name} is not a URL: ${JSON.stringify(url.slice(0, 200))}`);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new ConfigError(`${name} must be an http(s) URL`);
  }
  return parsed.href;
}

function parseTimeout(value: unknown): number {
  const raw = text(value);
  if (raw === undefined) {
    return DEFAULT_PDP_TIMEOUT_MS;
  }
  const ms = Number(raw);
  if (!(Number.isSafeInteger(ms) && ms > 0 && ms <= 60_000)) {
    throw new ConfigError(
      `AUTHZEN_TIMEOUT_MS must be whole milliseconds from 1 to 60000, got ${JSON.stringify(raw)}`,
    );
  }
  return ms;
}
