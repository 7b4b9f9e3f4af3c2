/**
 * Microsoft Teams' variables (docs/configuration.md, "Email and Microsoft Teams"). `TEAMS_APP_ID` and
 * `TEAMS_APP_PASSWORD` both or neither: the id is the audience of incoming Bot Framework
 * tokens and the password gets the token that updates cards; one without the other could
 * only do half. Neither ⇒ Teams is off: no card is sent and `/teams/messages` answers 404.
 */
import { ConfigError } from "../config-error";

export const TEAMS_DEFAULT_OPENID_URL =
  "https://login.botframework.com/v1/.well-known/openidconfiguration";
/** Teams' own Bot Connector host, allowed when `TEAMS_SERVICE_URL_ALLOW` is unset. */
export const TEAMS_DEFAULT_SERVICE_HOSTS = ["smba.trafficmanager.net"];
/** Where a bot gets its token to call the Bot Connector (client credentials). */
export const TEAMS_TOKEN_URL =
  "https://login.microsoftonline.com/botframework.com/oauth2/v2.0/token";

export interface TeamsEnv {
  TEAMS_APP_ID?: string;
  TEAMS_APP_PASSWORD?: string;
  TEAMS_OPENID_URL?: string;
  TEAMS_SERVICE_URL_ALLOW?: string;
}

export interface TeamsSettings {
  appId: string;
  appPassword: string;
  openIdUrl: string;
  /** Hosts (lower-case, with a port when one was given) a Bot Connector call may go to. */
  serviceHosts: string[];
}

export function parseTeamsSettings(env: TeamsEnv): TeamsSettings | undefined {
  const appId = env.TEAMS_APP_ID?.trim();
  const appPassword = env.TEAMS_APP_PASSWORD?.trim();
  if (!appId && !appPassword) {
    return undefined;
  }
  if (!appId) {
    throw new ConfigError("TEAMS_APP_ID is not set (required with TEAMS_APP_PASSWORD)");
  }
  if (!appPassword) {
    throw new ConfigError("TEAMS_APP_PASSWORD is not set (required with TEAMS_APP_ID)");
  }
  const openIdUrl = env.TEAMS_OPENID_URL?.trim() || TEAMS_DEFAULT_OPENID_URL;
  if (!isUrl(openIdUrl) || !/^https?:$/.test(new URL(openIdUrl).protocol)) {
    throw new ConfigError(`TEAMS_OPENID_URL must be an http(s) URL: ${JSON.stringify(openIdUrl)}`);
  }
  const listed = (env.TEAMS_SERVICE_URL_ALLOW ?? "").split(/\s+/).filter(Boolean);
  return {
    appId,
    appPassword,
    openIdUrl,
    serviceHosts: (listed.length ? listed : TEAMS_DEFAULT_SERVICE_HOSTS).map((h) =>
      h.toLowerCase(),
    ),
  };
}

/** Whether a Bot Connector `serviceUrl` may be called: its host (or host:port) is allowed. */
export function serviceUrlAllowed(settings: TeamsSettings, serviceUrl: string): boolean {
  if (!isUrl(serviceUrl)) {
    return false;
  }
  const url = new URL(serviceUrl);
  const host = url.hostname.toLowerCase();
  return settings.serviceHosts.some(
    (allowed) => allowed === host || allowed === url.host.toLowerCase(),
  );
}

/** Whether `text` parses as a URL (URL.canParse is not in every runtime's types). */
export function isUrl(text: string): boolean {
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}
