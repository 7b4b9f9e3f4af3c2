/**
 * A transactional email as raw MIME (RFC 5322, RFC 2045–2047), written out by hand: the
 * message is always the same shape — a `multipart/alternative` of a plain-text and an HTML
 * part — so a MIME library would be a dependency for twenty lines. Both parts are UTF-8 in
 * base64 (any text, any line length, nothing for a relay to re-wrap), and a non-ASCII
 * subject is RFC 2047 encoded words.
 *
 * Header values come from our own settings and from a model's prompt: every one is
 * stripped of control characters first, so no value can start a header of its own.
 */

export interface MailParts {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Without angle brackets: `<local>@<domain>`. */
  messageId: string;
  /** A reminder threads under the first email (`In-Reply-To`, `References`). */
  inReplyTo?: string;
  date: Date;
}

const CRLF = "\r\n";
/**
 * Bytes of UTF-8 per encoded word: 39 bytes are 52 base64 characters, 64 with `=?UTF-8?B?…?=`,
 * so even the first word, after `Subject: `, keeps its line within RFC 5322's 78 characters.
 */
const WORD_BYTES = 39;
const encoder = new TextEncoder();

/** The whole message, CRLF line endings, ready for `new EmailMessage(from, to, raw)`. */
export function buildMime(mail: MailParts): string {
  const boundary = `=_toolnexus_${randomHex(12)}`;
  const headers = [
    `From: ${headerValue(mail.from)}`,
    `To: ${headerValue(mail.to)}`,
    `Subject: ${encodeSubject(headerValue(mail.subject))}`,
    `Date: ${rfc5322Date(mail.date)}`,
    `Message-ID: <${headerValue(mail.messageId)}>`,
    ...(mail.inReplyTo
      ? [
          `In-Reply-To: <${headerValue(mail.inReplyTo)}>`,
          `References: <${headerValue(mail.inReplyTo)}>`,
        ]
      : []),
    "MIME-Version: 1.0",
    // RFC 3834: no vacation replies or auto-forwards back at us.
    "Auto-Submitted: auto-generated",
    "X-Auto-Response-Suppress: All",
    `Content-Type: multipart/alternative;${CRLF} boundary="${boundary}"`,
  ];
  return [
    ...headers,
    "",
    part("text/plain", mail.text, boundary),
    part("text/html", mail.html, boundary),
    `--${boundary}--`,
    "",
  ].join(CRLF);
}

function part(type: string, body: string, boundary: string): string {
  return [
    `--${boundary}`,
    `Content-Type: ${type}; charset=utf-8`,
    "Content-Transfer-Encoding: base64",
    "",
    wrapBase64(base64(encoder.encode(body))),
  ].join(CRLF);
}

/** One line, no control characters (CR and LF included): nothing can start a new header. */
export function headerValue(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  return value.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
}

/** ASCII stays as it is; anything else becomes encoded words of at most 75 characters. */
export function encodeSubject(subject: string): string {
  if (/^[\x20-\x7e]*$/.test(subject)) {
    return subject;
  }
  const words: string[] = [];
  let chunk = "";
  for (const char of subject) {
    // A character never splits across words: each word decodes on its own (RFC 2047 §5).
    if (encoder.encode(chunk + char).length > WORD_BYTES) {
      words.push(chunk);
      chunk = "";
    }
    chunk += char;
  }
  if (chunk) {
    words.push(chunk);
  }
  return words.map((w) => `=?UTF-8?B?${base64(encoder.encode(w))}?=`).join(`${CRLF} `);
}

/** `Fri, 04 Dec 2026 15:13:48 +0000` (RFC 5322 §3.3). */
export function rfc5322Date(date: Date): string {
  return date.toUTCString().replace(/GMT$/, "+0000");
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** RFC 2045 §6.8: lines of at most 76 characters. */
function wrapBase64(encoded: string): string {
  return encoded.match(/.{1,76}/g)?.join(CRLF) ?? "";
}

function randomHex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}
