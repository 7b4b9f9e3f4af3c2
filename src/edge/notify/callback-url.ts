/**
 * Which `callbackUrl`s the worker will POST to. Without an allow-list entry a callback must
 * be `https` to a public host: no loopback, private, link-local, CGNAT, multicast or
 * reserved address in any spelling, no single-label or local-only name, no credentials in
 * the URL. `CALLBACK_ALLOW` (space-separated) lists exceptions: a host (any scheme, any
 * port; IPv6 in brackets) or an exact origin. Checked when a run is created and again
 * before every delivery. A public name may still resolve to a private address: on Cloudflare
 * a Worker's fetch cannot reach private networks, and redirects are never followed.
 */

/** Parsed `CALLBACK_ALLOW`: canonical host names and exact origins. */
export interface CallbackAllow {
  hosts: string[];
  origins: string[];
}

export type CallbackCheck = { ok: true; url: URL } | { ok: false; reason: string };

const LOCAL_SUFFIXES = ["localhost", "local", "internal", "localdomain", "home.arpa", "lan"];

/**
 * Parses `CALLBACK_ALLOW`. Throws a plain `Error` naming a bad entry (the caller turns it
 * into a configuration error).
 *
 * @example parseCallbackAllow("127.0.0.1 localhost [::1] https://hooks.example.com:8443")
 */
export function parseCallbackAllow(value: string | undefined): CallbackAllow {
  const allow: CallbackAllow = { hosts: [], origins: [] };
  for (const entry of (value ?? "").split(/\s+/).filter(Boolean)) {
    if (entry.includes("://")) {
      const url = tryUrl(entry);
      if (!url || !isHttp(url) || url.origin !== entry.toLowerCase().replace(/\/$/, "")) {
        throw new Error(`${JSON.stringify(entry)} is not an origin (scheme://host[:port])`);
      }
      allow.origins.push(url.origin);
    } else {
      const url = tryUrl(`http://${entry}/`);
      if (!url || url.host !== entry.toLowerCase() || url.port !== "") {
        throw new Error(
          `${JSON.stringify(entry)} is not a host name or address (no port; IPv6 in brackets)`,
        );
      }
      allow.hosts.push(url.hostname);
    }
  }
  return allow;
}

/**
 * Decides whether the worker may POST notifications to `value`; the reason, when not,
 * says what is wrong in words a caller can act on.
 *
 * @example checkCallbackUrl("https://127.0.0.1/x", { hosts: [], origins: [] }) // { ok: false, reason: "…loopback…" }
 */
export function checkCallbackUrl(value: string, allow: CallbackAllow): CallbackCheck {
  // Before the URL parser normalizes it away: whitespace, backslashes, "http:///x".
  if (/[\s\\]/.test(value) || hasControlCharacter(value)) {
    return { ok: false, reason: "must not contain whitespace, control characters or backslashes" };
  }
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(value)?.[1];
  const url = tryUrl(value);
  if (!url || authority === undefined || !isHttp(url)) {
    return { ok: false, reason: "must be an absolute http(s) URL" };
  }
  if (authority === "" || url.hostname === "") {
    return { ok: false, reason: "has an empty host" };
  }
  if (authority.includes("@") || url.username !== "" || url.password !== "") {
    return { ok: false, reason: "must not contain credentials (user:password@)" };
  }
  const host = url.hostname;
  // The parser turns 0x7f.1, 2130706433 and 0177.0.0.1 into 127.0.0.1; only the usual
  // dotted-decimal spelling is accepted, whatever address it stands for, allowed or not.
  const written = authority.replace(/:\d*$/, "").toLowerCase().replace(/\.$/, "");
  if (ipv4(host) && written !== host) {
    return {
      ok: false,
      reason: `host is written ${JSON.stringify(written)}: write IPv4 addresses as four decimal numbers`,
    };
  }
  if (allow.origins.includes(url.origin) || allow.hosts.includes(host)) {
    return { ok: true, url };
  }
  if (url.protocol !== "https:") {
    return { ok: false, reason: `must use https (or list ${host} in CALLBACK_ALLOW)` };
  }
  const problem = hostProblem(host);
  return problem
    ? { ok: false, reason: `host ${host} ${problem} (list it in CALLBACK_ALLOW to allow it)` }
    : { ok: true, url };
}

/** Why `host` (canonical, from the URL parser) is not a public destination, or undefined. */
function hostProblem(host: string): string | undefined {
  if (host.startsWith("[")) {
    const groups = ipv6Groups(host.slice(1, -1));
    return groups ? ipv6Problem(groups) : "is not a valid IPv6 address";
  }
  const v4 = ipv4(host);
  if (v4) {
    return ipv4Problem(v4);
  }
  const name = host.replace(/\.$/, "");
  if (!name.includes(".")) {
    return "is not a public host name (a single label)";
  }
  if (LOCAL_SUFFIXES.some((suffix) => name === suffix || name.endsWith(`.${suffix}`))) {
    return "is a local-only name";
  }
  return undefined;
}

function ipv4(host: string): number[] | undefined {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return match ? match.slice(1).map(Number) : undefined;
}

/** Special-purpose IPv4 ranges (RFC 6890 and friends) that are never a public receiver. */
function ipv4Problem([a, b, c]: number[]): string | undefined {
  if (a === undefined || b === undefined || c === undefined) {
    return "is not an IPv4 address";
  }
  if (a === 0) {
    return "is an unspecified (0.0.0.0/8) address";
  }
  if (a === 127) {
    return "is a loopback address";
  }
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) {
    return "is a private address";
  }
  if (a === 169 && b === 254) {
    return "is a link-local address (cloud metadata lives there)";
  }
  if (a === 100 && b >= 64 && b <= 127) {
    return "is a shared (CGNAT, 100.64.0.0/10) address";
  }
  if (
    (a === 192 && b === 0 && (c === 0 || c === 2)) ||
    (a === 198 && (b === 18 || b === 19)) ||
    (a === 198 && b === 51 && c === 100) ||
    (a === 203 && b === 0 && c === 113)
  ) {
    return "is a reserved (protocol, documentation or benchmark) address";
  }
  if (a >= 224) {
    return "is a multicast, reserved or broadcast address";
  }
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address as the URL parser writes it (compressed, hex). */
function ipv6Groups(text: string): number[] | undefined {
  const halves = text.split("::");
  if (halves.length > 2) {
    return undefined;
  }
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  const head = parse(halves[0] ?? "");
  const tail = halves.length === 2 ? parse(halves[1] ?? "") : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const groups = [...head, ...new Array<number>(Math.max(fill, 0)).fill(0), ...tail];
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : undefined;
}

function ipv6Problem(g: number[]): string | undefined {
  const [g0 = 0, g1 = 0, , , , g5 = 0, g6 = 0, g7 = 0] = g;
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(7) && g7 <= 1) {
    return g7 === 0 ? "is the unspecified address" : "is a loopback address";
  }
  if (zeroUpTo(5) && g5 === 0xffff) {
    return "is an IPv4-mapped address";
  }
  if (zeroUpTo(6)) {
    return "is an IPv4-compatible address";
  }
  if ((g0 & 0xfe00) === 0xfc00) {
    return "is a unique local (fc00::/7) address";
  }
  if ((g0 & 0xffc0) === 0xfe80 || (g0 & 0xffc0) === 0xfec0) {
    return "is a link-local or site-local address";
  }
  if ((g0 & 0xff00) === 0xff00) {
    return "is a multicast address";
  }
  if (g0 === 0x2001 && g1 === 0x0db8) {
    return "is a documentation address";
  }
  if (g0 === 0x64 && g1 === 0xff9b) {
    const embedded = ipv4Problem([g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff]);
    return embedded ? `embeds (NAT64) an IPv4 address that ${embedded}` : undefined;
  }
  if (g0 === 0x2002) {
    const [, a = 0, b = 0] = g;
    const embedded = ipv4Problem([a >> 8, a & 0xff, b >> 8, b & 0xff]);
    return embedded ? `embeds (6to4) an IPv4 address that ${embedded}` : undefined;
  }
  if (g0 === 0x100 && g.slice(1, 4).every((x) => x === 0)) {
    return "is a discard (100::/64) address";
  }
  return undefined;
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) {
      return true;
    }
  }
  return false;
}

function tryUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

function isHttp(url: URL): boolean {
  return url.protocol === "https:" || url.protocol === "http:";
}
