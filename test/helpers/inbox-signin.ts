/** Signs an approver in to /inbox through a sign-in link: the session cookie to send. */
import { SELF } from "cloudflare:test";
import { api, BASE } from "./edge";

export async function inboxCookie(approver: string): Promise<string> {
  const created = await api("/v1/approvers/links", {
    method: "POST",
    body: JSON.stringify({ approver }),
  });
  const { url } = await created.json<{ url: string }>();
  const response = await SELF.fetch(`${BASE}${new URL(url).pathname}`, { redirect: "manual" });
  return (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
}

export function inboxGet(path: string, cookie: string): Promise<Response> {
  return SELF.fetch(`${BASE}${path}`, { headers: { cookie } });
}
