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
