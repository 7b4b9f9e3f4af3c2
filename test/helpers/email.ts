/**
 * The fake mailbox of the workers-email project (test/fixtures/fake-mailbox-worker.js), and a
 * small reader for the messages it kept: headers (RFC 2047 words decoded), the text and HTML
 * parts of a multipart/alternative body (base64 decoded), the links in the text.
 */
const FAKE = "http://mail.test";

export interface SentMail {
  from: string;
  to: string;
  raw: string;
}

export interface ParsedMail {
  /** Lower-cased names; a repeated header keeps its last value. */
  headers: Map<string, string>;
  subject: string;
  contentType: string;
  text: string;
  html: string;
  links: { approve: string; decline: string };
}

export async function resetMail(): Promise<void> {
  await (await fetch(`${FAKE}/_reset`)).text();
}

export async function failMail(times: number): Promise<void> {
  await (await fetch(`${FAKE}/_fail?times=${times}`)).text();
}

export async function sentMail(): Promise<Array<SentMail & { mail: ParsedMail }>> {
  const sent = (await (await fetch(`${FAKE}/_sent`)).json()) as SentMail[];
  return sent.map((m) => ({ ...m, mail: parseMail(m.raw) }));
}

/** Emails about one request (its id is in every email's text). */
export async function mailFor(requestId: string) {
  return (await sentMail()).filter((m) => m.mail.text.includes(`Request: ${requestId}`));
}

export function parseMail(raw: string): ParsedMail {
  const [head = "", ...rest] = raw.split("\r\n\r\n");
  const headers = parseHeaders(head);
  const contentType = headers.get("content-type") ?? "";
  const boundary = /boundary="([^"]+)"/.exec(contentType)?.[1];
  if (!boundary) {
    throw new Error("not multipart");
  }
  const parts = rest
    .join("\r\n\r\n")
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((part) => {
      const [partHead = "", ...body] = part.replace(/^\r\n/, "").split("\r\n\r\n");
      const partHeaders = parseHeaders(partHead);
      const encoded = body.join("\r\n\r\n").replace(/\s+/g, "");
      const bytes = Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
      return { type: partHeaders.get("content-type") ?? "", body: new TextDecoder().decode(bytes) };
    });
  const text = parts.find((p) => p.type.startsWith("text/plain"))?.body ?? "";
  const html = parts.find((p) => p.type.startsWith("text/html"))?.body ?? "";
  const link = (word: string) => new RegExp(`^${word}: (\\S+)$`, "m").exec(text)?.[1] ?? "";
  return {
    headers,
    subject: decodeWords(headers.get("subject") ?? ""),
    contentType,
    text,
    html,
    links: { approve: link("Approve"), decline: link("Decline") },
  };
}

function parseHeaders(head: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]/g, " ").split("\r\n")) {
    const colon = line.indexOf(":");
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?UTF-8\?B\?([^?]*)\?=/gi, (_, b64: string) =>
      new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))),
    );
}
