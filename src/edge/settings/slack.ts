/**
 * Slack's variables. Both or neither: a bot token without the signing secret would post
 * buttons nobody can press, a signing secret without the token could not update a message.
 * Neither ⇒ Slack is off: nothing is posted and `/slack/interactions` answers 404.
 */
import { ConfigError } from "../config-error";

export const SLACK_DEFAULT_API_URL = "https://slack.com/api/";

export interface SlackEnv {
  SLACK_BOT_TOKEN?: string;
  SLACK_SIGNING_SECRET?: string;
  SLACK_API_URL?: string;
}

export interface SlackSettings {
  botToken: string;
  /** Space-separated in the variable, for rotation: any one verifies. */
  signingSecrets: string[];
  /** The Web API base, ending in `/` (tests point it at a fake). */
  apiUrl: string;
}

/** The Slack settings, or undefined when Slack is off (read by `settings(env).slack`). */
export function parseSlackSettings(env: SlackEnv): SlackSettings | undefined {
  const botToken = env.SLACK_BOT_TOKEN?.trim();
  const signingSecrets = (env.SLACK_SIGNING_SECRET ?? "").split(/\s+/).filter(Boolean);
  if (!botToken && signingSecrets.length === 0) {
    return undefined;
  }
  if (!botToken) {
    throw new ConfigError("SLACK_BOT_TOKEN is not set (required with SLACK_SIGNING_SECRET)");
  }
  if (signingSecrets.length === 0) {
    throw new ConfigError("SLACK_SIGNING_SECRET is not set (required with SLACK_BOT_TOKEN)");
  }
  const apiUrl = env.SLACK_API_URL?.trim() || SLACK_DEFAULT_API_URL;
  let parsed: URL;
  try {
    parsed = new URL(apiUrl);
  } catch {
    throw new ConfigError(`SLACK_API_URL is not a URL: ${JSON.stringify(apiUrl)}`);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new ConfigError(`SLACK_API_URL must be http(s): ${JSON.stringify(apiUrl)}`);
  }
  return { botToken, signingSecrets, apiUrl: apiUrl.endsWith("/") ? apiUrl : `${apiUrl}/` };
}
