/**
 * The workers-teams project's fake Bot Framework and Bot Connector
 * (test/fixtures/fake-teams-worker.js), and Bot Framework tokens signed by the test's own key.
 */
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { SELF } from "cloudflare:test";
import { BASE } from "./edge";

const FAKE = "http://127.0.0.1:9";
export const TEAMS_APP_ID = "teams-app-id";
export const SERVICE_URL = "http://127.0.0.1:9/teams/";
export const CONVERSATION = "19:approvals@thread.tacv2";

export interface TeamsCall {
  method: string;
  url: string;
  authorization: string | null;
  body: any;
  /** A posted card: the activity id the fake answered. */
  answeredId?: string;
}

let signer: Promise<{ privateKey: CryptoKey; kid: string }> | undefined;

/** The test's signing key, its public half installed in the fake's JWKS (once per file). */
export function botKey() {
  signer ??= (async () => {
    const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
    const jwk: JWK = {
      ...(await exportJWK(publicKey)),
      kid: "test-bot-key",
      alg: "RS256",
      use: "sig",
    };
    await (
      await fetch(`${FAKE}/_keys`, { method: "POST", body: JSON.stringify({ keys: [jwk] }) })
    ).text();
    return { privateKey, kid: "test-bot-key" };
  })();
  return signer;
}

/** A Bot Framework token: valid unless told otherwise (another key, audience, expiry, serviceurl). */
export async function botToken(
  options: {
    audience?: string;
    expiresAt?: number;
    key?: CryptoKey;
    issuer?: string;
    serviceUrl?: string;
  } = {},
): Promise<string> {
  const { privateKey, kid } = await botKey();
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ serviceurl: options.serviceUrl ?? SERVICE_URL })
    .setProtectedHeader({ alg: "RS256", kid })
    .setIssuer(options.issuer ?? "https://api.botframework.com")
    .setAudience(options.audience ?? TEAMS_APP_ID)
    .setIssuedAt(now - 60)
    .setNotBefore(now - 60)
    .setExpirationTime(options.expiresAt ?? now + 600)
    .sign(options.key ?? privateKey);
}

/** A press of a card's button, as Teams posts it (`Action.Submit`: a message with `value`). */
export function buttonPress(
  value: Record<string, unknown>,
  from: { id: string; aadObjectId: string },
): Record<string, unknown> {
  return {
    type: "message",
    id: `activity-${crypto.randomUUID()}`,
    channelId: "msteams",
    serviceUrl: SERVICE_URL,
    from,
    conversation: { id: CONVERSATION },
    recipient: { id: `28:${TEAMS_APP_ID}` },
    value,
  };
}

export async function postActivity(activity: unknown, token: string | null): Promise<Response> {
  return SELF.fetch(`${BASE}/teams/messages`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(activity),
  });
}

export async function teamsCalls(): Promise<TeamsCall[]> {
  return (await (await fetch(`${FAKE}/_calls`)).json()) as TeamsCall[];
}

export async function resetTeams(): Promise<void> {
  await (await fetch(`${FAKE}/_reset`, { method: "POST" })).text();
}

/** The card's `Action.Submit` data for a button, from the activity that carried the card. */
export function buttonData(activity: any, title: "Approve" | "Decline"): Record<string, unknown> {
  const card = activity.attachments[0].content;
  return card.actions.find((a: { title: string }) => a.title === title).data;
}

/** What the card's TextBlocks and facts say, Markdown escapes removed, one line each. */
export function cardText(activity: any): string {
  const lines: string[] = [];
  for (const element of activity.attachments[0].content.body) {
    if (element.type === "TextBlock") {
      lines.push(element.text);
    } else if (element.type === "FactSet") {
      lines.push(
        ...element.facts.map((f: { title: string; value: string }) => `${f.title}: ${f.value}`),
      );
    }
  }
  return lines.join("\n").replace(/\\(.)/g, "$1");
}
