import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ConfigError } from "./config";

/** An error a client caused (or a configuration problem), shaped once in `onError`. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly issues?: Array<{ path: string; message: string }>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export function errorBody(
  code: string,
  message: string,
  issues?: Array<{ path: string; message: string }>,
) {
  return { error: { code, message, ...(issues ? { issues } : {}) } };
}

export function onError(error: Error, c: Context): Response {
  if (error instanceof ApiError) {
    return c.json(errorBody(error.code, error.message, error.issues), error.status, error.headers);
  }
  if (error instanceof ConfigError) {
    return c.json(errorBody("config_error", error.message), 500);
  }
  console.error("unhandled error", error);
  return c.json(errorBody("internal_error", "internal error"), 500);
}
