/**
 * The few Bot Connector calls Teams approvals make: post a card to a conversation, replace it
 * in place (`PUT {serviceUrl}/v3/conversations/{id}/activities/{activityId}`), and look up a
 * member (their UPN / email). Each with a token from the Bot Framework token endpoint
 * (client credentials: `TEAMS_APP_ID` / `TEAMS_APP_PASSWORD`), kept until shortly before it
 * expires. A `serviceUrl` outside `TEAMS_SERVICE_URL_ALLOW` is never called: it comes from
 * configuration or an activity, and a bot token must not go anywhere else.
 */
import { serviceUrlAllowed, TEAMS_TOKEN_URL, type TeamsSettings } from "../settings/teams";

export interface TeamsConnector {
  post(target: { serviceUrl: string; conversation: string }, activity: unknown): Promise<string>;
  update(
    target: { serviceUrl: string; conversation: string; activityId: string },
    activity: unknown,
  ): Promise<void>;
  member(
    target: { serviceUrl: string; conversation: string },
    userId: string,
  ): Promise<{ email?: string; userPrincipalName?: string } | undefined>;
}

export class TeamsApiError extends Error {
  override readonly name = "TeamsApiError";
}

/** Tokens per app id, kept per isolate. */
const tokens = new Map<string, { token: string; until: number }>();

async function botToken(settings: TeamsSettings, fetcher: typeof fetch): Promise<string> {
  const kept = tokens.get(settings.appId);
  if (kept && kept.until > Date.now()) {
    return kept.token;
  }
  const response = await fetcher(TEAMS_TOKEN_URL, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: settings.appId,
      client_secret: settings.appPassword,
      scope: "https://api.botframework.com/.default",
    }),
  });
  const body = (await response.json().catch(() => undefined)) as
    | { access_token?: unknown; expires_in?: unknown }
    | undefined;
  if (!response.ok || typeof body?.access_token !== "string") {
    throw new TeamsApiError(`Bot Framework token request failed: HTTP ${response.status}`);
  }
  const seconds = typeof body.expires_in === "number" ? body.expires_in : 3600;
  // Renewed five minutes early, so a call never starts with a token about to lapse.
  tokens.set(settings.appId, {
    token: body.access_token,
    until: Date.now() + (seconds - 300) * 1000,
  });
  return body.access_token;
}

export function teamsConnector(
  settings: TeamsSettings,
  fetcher: typeof fetch = fetch,
): TeamsConnector {
  const call = async (
    serviceUrl: string,
    path: string,
    init: { method: string; body?: unknown },
  ): Promise<unknown> => {
    if (!serviceUrlAllowed(settings, serviceUrl)) {
      throw new TeamsApiError(`serviceUrl ${serviceUrl} is not in TEAMS_SERVICE_URL_ALLOW`);
    }
    const base = serviceUrl.endsWith("/") ? serviceUrl : `${serviceUrl}/`;
    const response = await fetcher(`${base}${path}`, {
      method: init.method,
      headers: {
        authorization: `Bearer ${await botToken(settings, fetcher)}`,
        ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      redirect: "manual",
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new TeamsApiError(
        `Bot Connector ${init.method} ${path} failed: HTTP ${response.status}`,
      );
    }
    return response.json().catch(() => ({}));
  };
  const conversationPath = (conversation: string) =>
    `v3/conversations/${encodeURIComponent(conversation)}`;
  return {
    async post({ serviceUrl, conversation }, activity) {
      const result = (await call(serviceUrl, `${conversationPath(conversation)}/activities`, {
        method: "POST",
        body: activity,
      })) as { id?: unknown };
      if (typeof result.id !== "string") {
        throw new TeamsApiError("Bot Connector answered the post without an activity id");
      }
      return result.id;
    },
    async update({ serviceUrl, conversation, activityId }, activity) {
      await call(
        serviceUrl,
        `${conversationPath(conversation)}/activities/${encodeURIComponent(activityId)}`,
        { method: "PUT", body: { ...(activity as object), id: activityId } },
      );
    },
    async member({ serviceUrl, conversation }, userId) {
      try {
        const found = (await call(
          serviceUrl,
          `${conversationPath(conversation)}/members/${encodeURIComponent(userId)}`,
          { method: "GET" },
        )) as { email?: unknown; userPrincipalName?: unknown };
        return {
          ...(typeof found.email === "string" ? { email: found.email } : {}),
          ...(typeof found.userPrincipalName === "string"
            ? { userPrincipalName: found.userPrincipalName }
            : {}),
        };
      } catch {
        return undefined; // unknown: the vote is refused as not an approver, and recorded
      }
    },
  };
}
