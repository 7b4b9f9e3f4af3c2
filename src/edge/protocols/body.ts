/** A protocol body: at most `limit` bytes (413), strict UTF-8, JSON depth, then the schema (400). */
import type { Context } from "hono";
import type * as z from "zod";
import { decodeUtf8, parseBody, readBoundedBytes } from "../http/body";

export async function readProtocolBody<T extends z.ZodType>(
  c: Context,
  limit: number,
  schema: T,
): Promise<z.infer<T>> {
  return parseBody(schema, decodeUtf8(await readBoundedBytes(c, limit)));
}
