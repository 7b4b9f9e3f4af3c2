/**
 * What every server-rendered page shares (the approval page, the inbox, the message pages):
 * the skeleton with its inline CSS, the headers, escaping, and how times and JSON are shown.
 * No script anywhere: pages render without it.
 */

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.4rem}dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem}
dt{color:#555}dd{margin:0;word-break:break-all}
pre{background:#f4f4f4;padding:.75rem;overflow:auto;white-space:pre-wrap;word-break:break-word}
label{display:block;margin-top:.75rem;font-weight:600}
input,textarea{width:100%;box-sizing:border-box;font:inherit;padding:.4rem}
.hint{font-weight:400;color:#555}.actions{margin-top:1rem;display:flex;gap:.75rem}
button{font:inherit;padding:.5rem 1.25rem;border-radius:.3rem;border:1px solid #888;cursor:pointer}
.approve{background:#1b6e2e;color:#fff;border-color:#1b6e2e}
.ok{color:#1b6e2e}.error{color:#a61b1b}`;

/**
 * Headers for both pages: no caching (they hold a bearer token in the URL), no referrer
 * leak of that URL, no framing (clickjacking an Approve button), nothing but inline CSS.
 */
export function pageHeaders(): Record<string, string> {
  return {
    "content-type": "text/html; charset=utf-8",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy":
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
  };
}

/** The page skeleton every server-rendered page shares (inline CSS only, no script). */
export function layout(title: string, body: string, extraStyle = ""): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${esc(title)}</title>
<style>${STYLE}${extraStyle}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

export /** "2026-11-30 20:10:00 UTC (in 14 minutes)", computed at render. */
function utcAndRelative(iso: string, now: number): string {
  const at = Date.parse(iso);
  if (!Number.isFinite(at)) {
    return iso;
  }
  const utc = new Date(at)
    .toISOString()
    .replace(/\.\d{3}Z$/, "")
    .replace("T", " ");
  return `${utc} UTC (${relative(at, now)})`;
}

/** `<time>` with the UTC instant and how far it is from the render. */
export function time(at: number, now: number): string {
  const utc = new Date(at)
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z")
    .replace("T", " ");
  return `<time datetime="${esc(new Date(at).toISOString())}">${esc(utc.replace("Z", " UTC"))} (${esc(relative(at, now))})</time>`;
}

/** "in 14 minutes", "3 hours ago", "just now". */
export function relative(at: number, now: number): string {
  const seconds = Math.round((at - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) {
    return "just now";
  }
  const units: Array<[number, string]> = [
    [86_400, "day"],
    [3600, "hour"],
    [60, "minute"],
  ];
  const [size, unit] = units.find(([size]) => abs >= size) ?? [60, "minute"];
  const n = Math.round(abs / size);
  const phrase = `${n} ${unit}${n === 1 ? "" : "s"}`;
  return seconds > 0 ? `in ${phrase}` : `${phrase} ago`;
}

export function prettyJson(value: unknown): string {
  if (value === undefined) {
    return "(no arguments)";
  }
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value); // cycles or BigInt: still show something rather than fail the page
  }
}

/**
 * "Edit arguments" fields: one JSON text input per editable key (named `arg:<key>`),
 * prefilled with the current value, so left as they are they change nothing. `idPrefix`
 * keeps ids unique when a page shows several requests.
 */
export function argEditFields(args: unknown, keys: readonly string[], idPrefix: string): string {
  const values = args as Record<string, unknown>;
  return keys
    .map(
      (key, i) => `<label for="${esc(idPrefix)}-${i}">${esc(key)}</label>
<input type="text" id="${esc(idPrefix)}-${i}" name="arg:${esc(key)}" value="${esc(JSON.stringify(values[key]) ?? "")}">`,
    )
    .join("\n");
}

/** Escapes text for both element content and double- or single-quoted attributes. */
export function esc(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}
