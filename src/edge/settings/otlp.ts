/**
 * The OTLP exporter's settings from the standard variables: `OTEL_EXPORTER_OTLP_ENDPOINT`
 * (a base URL: traces go to `<endpoint>/v1/traces`) and `OTEL_EXPORTER_OTLP_HEADERS`
 * (`key=value` pairs, comma-separated, each part URL-decoded, as the OpenTelemetry SDK
 * environment spec says). No endpoint: nothing is exported.
 */

export interface OtlpSettings {
  /** Where `POST`s go: the endpoint with `/v1/traces` appended. */
  url: string;
  headers: Record<string, string>;
}

export class OtlpConfigError extends Error {
  override readonly name = "OtlpConfigError";
}

/** Read by `settings(env).otlp`. */
export function parseOtlpSettings(env: {
  OTEL_EXPORTER_OTLP_ENDPOINT?: unknown;
  OTEL_EXPORTER_OTLP_HEADERS?: unknown;
}): OtlpSettings | undefined {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (typeof endpoint !== "string" || endpoint.trim() === "") {
    return undefined;
  }
  let base: URL;
  try {
    base = new URL(endpoint.trim());
  } catch {
    throw new OtlpConfigError(
      `OTEL_EXPORTER_OTLP_ENDPOINT is not a URL: ${JSON.stringify(endpoint.slice(0, 200))}`,
    );
  }
  if (base.protocol !== "https:" && base.protocol !== "http:") {
    throw new OtlpConfigError("OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL");
  }
  const raw = env.OTEL_EXPORTER_OTLP_HEADERS;
  return {
    url: tracesUrl(base),
    headers: typeof raw === "string" ? parseOtlpHeaders(raw) : {},
  };
}

/** `https://collector:4318` → `https://collector:4318/v1/traces`; a base path is kept. */
export function tracesUrl(base: URL): string {
  const url = new URL(base.href);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/v1/traces`;
  return url.href;
}

/**
 * `api-key=abc,x-team=a%20b` → `{ "api-key": "abc", "x-team": "a b" }`. A part without `=`,
 * an empty name or a name `Headers` refuses is a config error that names the part's
 * position (never its value: it is often a credential).
 */
export function parseOtlpHeaders(raw: string): Record<string, string> {
  const headers: Record<string, string> = {};
  const parts = raw.split(",");
  parts.forEach((part, index) => {
    if (part.trim() === "") {
      return;
    }
    const eq = part.indexOf("=");
    const name = eq > 0 ? decode(part.slice(0, eq)).trim() : "";
    if (!name) {
      throw new OtlpConfigError(`OTEL_EXPORTER_OTLP_HEADERS: entry ${index + 1} is not key=value`);
    }
    const value = decode(part.slice(eq + 1)).trim();
    try {
      new Headers({ [name]: value });
    } catch {
      throw new OtlpConfigError(
        `OTEL_EXPORTER_OTLP_HEADERS: entry ${index + 1} is not a valid header`,
      );
    }
    headers[name.toLowerCase()] = value;
  });
  return headers;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // a stray `%` is taken literally rather than refused
  }
}
