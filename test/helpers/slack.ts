/** The fake Slack Web API of the workers-slack project (test/fixtures/fake-slack-worker.js). */
export interface SlackCall {
  method: string;
  params: Record<string, any>;
  authorization: string | null;
  failed?: boolean;
}

const FAKE = "http://slack.test";

export async function resetSlack(): Promise<void> {
  await (await fetch(`${FAKE}/_reset`, { method: "POST" })).text();
}

export async function slackCalls(method?: string): Promise<SlackCall[]> {
  const calls = (await (await fetch(`${FAKE}/_calls`)).json()) as SlackCall[];
  return method ? calls.filter((c) => c.method === method) : calls;
}

export async function failSlack(method: string, times: number, error?: string): Promise<void> {
  const query = new URLSearchParams({ method, times: String(times), ...(error ? { error } : {}) });
  await (await fetch(`${FAKE}/_fail?${query}`, { method: "POST" })).text();
}

/** The signing secret the workers-slack project's worker is configured with (vitest.config.ts). */
export const SLACK_SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5";

/** Slack's request signature of `body` at `timestamp`: `v0=` + hex HMAC-SHA256 of `v0:<ts>:<body>`. */
export async function slackSignature(
  body: string,
  timestamp: number,
  secret = SLACK_SIGNING_SECRET,
): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign(
    "HMAC",
    key,
    new TextEncoder().encode(`v0:${timestamp}:${body}`),
  );
  return `v0=${[...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** The headers of an interaction Slack posts: form body, timestamp and signature (now, unless given). */
export async function slackSignedHeaders(
  body: string,
  timestamp = Math.floor(Date.now() / 1000),
): Promise<Record<string, string>> {
  return {
    "content-type": "application/x-www-form-urlencoded",
    "x-slack-request-timestamp": String(timestamp),
    "x-slack-signature": await slackSignature(body, timestamp),
  };
}
