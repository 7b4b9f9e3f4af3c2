/**
 * Request bodies: read at most a limit (a chunked body without Content-Length included),
 * decode strictly as UTF-8, refuse JSON nested deeper than {@link MAX_JSON_DEPTH}, and only
 * then parse and validate. JSON routes use Hono's `bodyLimit` + {@link strictJson} +
 * `zValidator`; the signed webhook reads its raw bytes itself ({@link readBoundedBytes})
 * because the signature covers those exact bytes and must be checked before decoding.
 */
import type { Context, MiddlewareHandler } from "hono";
import type * as z from "zod";
import { drainBody, drainStream, MAX_DRAIN_BYTES } from "./body-drain";
import { ApiError } from "./errors";
import { issuesOf } from "./schemas";

/** Deepest nesting of objects/arrays accepted in a JSON body (the body itself is level 1). */
export const MAX_JSON_DEPTH = 64;

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

const tooLarge = (limit: number) =>
  new ApiError(413, "body_too_large", `body is larger than ${limit} bytes`);

/**
 * Like Hono's `bodyLimit`: `413 body_too_large` in the API's error shape (or what
 * `onTooLarge` answers, for HTML forms) once the body passes `maxBytes`, a stream included;
 * the body read so far is what the next handlers read. Unlike it, the refused body's rest is
 * drained first, so the 413 gets through `wrangler dev`'s proxy (see body-drain.ts).
 *
 * @example app.post("/v1/runs", limitBody(256 * 1024), strictJson(), zValidator(…), handler)
 */
export function limitBody(
  maxBytes: number,
  onTooLarge?: (c: Context) => Response | Promise<Response>,
): MiddlewareHandler {
  return async (c, next) => {
    if (!c.req.raw.body) {
      return next();
    }
    let bytes: Uint8Array;
    try {
      bytes = await readBoundedBytes(c, maxBytes);
    } catch (error) {
      if (onTooLarge && error instanceof ApiError && error.status === 413) {
        return onTooLarge(c);
      }
      throw error;
    }
    c.req.raw = new Request(c.req.raw, { body: bytes });
    await next();
  };
}

/**
 * For JSON routes, after {@link limitBody}: `400 invalid_json` when empty, `415` unless the
 * body is declared JSON (`content-type: application/json` or `…+json`), `400
 * invalid_body` for invalid UTF-8 or nesting deeper than {@link MAX_JSON_DEPTH}, `400
 * invalid_json` for bad syntax. The validator that follows reads the checked text.
 */
export function strictJson(): MiddlewareHandler {
  return async (c, next) => {
    const raw = c.req.raw;
    const bytes = new Uint8Array(await raw.arrayBuffer());
    if (bytes.byteLength === 0) {
      throw new ApiError(400, "invalid_json", "body is empty: expected a JSON object");
    }
    requireJsonType(c.req.header("content-type"));
    const text = decodeUtf8(bytes);
    checkJson(text);
    // What the validator reads next: the checked text (as bodyLimit does with its buffer).
    c.req.raw = new Request(raw, { body: text });
    await next();
  };
}

/**
 * `415 unsupported_media_type` unless `contentType` declares JSON (`application/json` or
 * `…+json`, any parameters). A browser can send `text/plain`, a form or `multipart` cross-site
 * without a preflight, never JSON: refusing the rest keeps cross-site forms out of JSON routes.
 */
export function requireJsonType(contentType: string | undefined): void {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (!/^application\/([\w.-]+\+)?json$/.test(type)) {
    throw new ApiError(415, "unsupported_media_type", {
      message: "send the body as JSON with content-type: application/json",
      issues: [
        { path: "content-type", message: `expected application/json, got ${type || "none"}` },
      ],
    });
  }
}

/** The `zValidator` hook: a schema mismatch is `400 invalid_body` listing the issues. */
export function invalidBody(
  result: { success: true } | { success: false; error: Parameters<typeof issuesOf>[0] },
): void {
  if (!result.success) {
    throw new ApiError(400, "invalid_body", {
      message: "body does not match the schema",
      issues: issuesOf(result.error),
    });
  }
}

/**
 * The raw body, read chunk by chunk and refused as soon as it passes `limit` (413), so a
 * chunked body without Content-Length is never kept whole (its rest is drained, not kept:
 * see body-drain.ts). For routes that must see the exact bytes (signed webhooks).
 */
export async function readBoundedBytes(c: Context, limit: number): Promise<Uint8Array> {
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > limit) {
    if (declared <= MAX_DRAIN_BYTES) {
      await drainStream(c.req.raw.body);
    }
    throw tooLarge(limit);
  }
  const stream = c.req.raw.body;
  if (!stream) {
    return new Uint8Array(0);
  }
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      break;
    }
    size += value.byteLength;
    if (size > limit) {
      await drainBody(reader);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** {@link readBoundedBytes}, then strict UTF-8: for forms read by hand (the inbox's). */
export async function readRawBody(c: Context, limit: number): Promise<string> {
  return decodeUtf8(await readBoundedBytes(c, limit));
}

/** Strict UTF-8 (no replacement characters): `400 invalid_body` otherwise. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new ApiError(400, "invalid_body", "body is not valid UTF-8");
  }
}

/** Depth, then syntax, then the schema: for bodies read by hand (the signed webhook). */
export function parseBody<T extends z.ZodType>(schema: T, text: string): z.infer<T> {
  const parsed = schema.safeParse(checkJson(text));
  if (!parsed.success) {
    invalidBody(parsed);
  }
  return parsed.data as z.infer<T>;
}

function checkJson(text: string): unknown {
  if (jsonDepth(text) > MAX_JSON_DEPTH) {
    throw new ApiError(400, "invalid_body", {
      message: `JSON is nested deeper than ${MAX_JSON_DEPTH} levels`,
      issues: [{ path: "(root)", message: `nested deeper than ${MAX_JSON_DEPTH} levels` }],
    });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, "invalid_json", "body is not valid JSON");
  }
}

/**
 * The deepest nesting of `{`/`[` in JSON text, found in one pass without recursion (brackets
 * inside strings do not count), so no input can overflow the stack here — or later, once
 * it is known to be shallow.
 */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) {
        i++; // skip the escaped character
      } else if (code === 0x22) {
        inString = false;
      }
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x7b || code === 0x5b) {
      depth++;
      deepest = Math.max(deepest, depth);
    } else if (code === 0x7d || code === 0x5d) {
      depth--;
    }
  }
  return deepest;
}
