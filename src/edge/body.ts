import type { Context } from "hono";
import type * as z from "zod";
import { ApiError } from "./http-errors";
import { issuesOf } from "./schemas";

/** Reads the raw body with a size limit: 413 before anything is parsed. */
export async function readRawBody(c: Context, limit: number): Promise<string> {
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > limit) {
    throw new ApiError(413, "body_too_large", `body is larger than ${limit} bytes`);
  }
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  if (bytes.byteLength > limit) {
    throw new ApiError(413, "body_too_large", `body is larger than ${limit} bytes`);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new ApiError(400, "invalid_body", "body is not valid UTF-8");
  }
}

export function parseBody<T extends z.ZodType>(schema: T, raw: string): z.infer<T> {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new ApiError(400, "invalid_json", "body is not valid JSON");
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new ApiError(
      400,
      "invalid_body",
      "body does not match the schema",
      issuesOf(parsed.error),
    );
  }
  return parsed.data;
}
