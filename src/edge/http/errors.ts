import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ConfigError } from "../settings";
import type { ErrorInfo } from "../error-sink";
import type { DecisionOutcome } from "../protocol";
import { STATUS_OF } from "./status";
import { threadOf } from "./threads";

/** An error a client caused (or a configuration problem), shaped once in `onError`. */
export class ApiError extends Error {
  readonly issues?: Array<{ path: string; message: string }>;
  readonly headers?: Record<string, string>;
  /** Members of the body beside `error` (an `args_changed` answer's current arguments). */
  readonly extra?: Record<string, unknown>;

  /** `detail` is the message, or the message with the field issues, headers and extra members. */
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    detail: string | ApiErrorDetail,
  ) {
    const { message, issues, headers, extra } =
      typeof detail === "string" ? { message: detail } : detail;
    super(message);
    if (issues !== undefined) {
      this.issues = issues;
    }
    if (headers !== undefined) {
      this.headers = headers;
    }
    if (extra !== undefined) {
      this.extra = extra;
    }
  }
}

export interface ApiErrorDetail {
  message: string;
  issues?: Array<{ path: string; message: string }> | undefined;
  headers?: Record<string, string> | undefined;
  extra?: Record<string, unknown> | undefined;
}

/**
 * The error a refused decision answers with, whatever the channel: the ledger's code and
 * status, the issues of a bad edit or bad data, and for `args_changed` the arguments now up
 * for approval with their version (`{ error, args, argsHash }`), so the caller can review them.
 */
export function decisionError(outcome: Extract<DecisionOutcome, { ok: false }>): ApiError {
  return new ApiError(STATUS_OF[outcome.code], outcome.code, {
    message: outcome.message,
    issues: outcome.issues?.map((message) => ({
      path: outcome.code === "invalid_args" ? "args" : "data",
      message,
    })),
    extra: outcome.current
      ? { args: outcome.current.args, argsHash: outcome.current.argsHash }
      : undefined,
  });
}

export function errorBody(
  code: string,
  message: string,
  issues?: Array<{ path: string; message: string }>,
) {
  return { error: { code, message, ...(issues ? { issues } : {}) } };
}

const HTTP_CODES: Partial<Record<number, string>> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  408: "timeout",
  413: "body_too_large",
  415: "unsupported_media_type",
  429: "too_many_requests",
  503: "unavailable",
  504: "timeout",
};

/**
 * The app's `onError`: client errors and configuration problems keep their shape, a Hono
 * `HTTPException` (a built-in middleware's) keeps its status and response; anything else is
 * a 500 reported to the sink.
 */
export function errorHandler(report: (error: unknown, info: ErrorInfo) => void) {
  return (error: Error, c: Context): Response => {
    if (error instanceof ApiError) {
      return c.json(
        { ...errorBody(error.code, error.message, error.issues), ...error.extra },
        error.status,
        error.headers,
      );
    }
    if (error instanceof HTTPException) {
      // A built-in middleware's failure: its status, and its response when it made one.
      if (error.res) {
        return error.getResponse();
      }
      return c.json(
        errorBody(HTTP_CODES[error.status] ?? "http_error", error.message || "request failed"),
        error.status,
      );
    }
    if (error instanceof ConfigError) {
      return c.json(errorBody("config_error", error.message), 500);
    }
    report(error, { source: "http", ...runOfPath(c.req.path), recoverable: false });
    return c.json(errorBody("internal_error", "internal error"), 500);
  };
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** The run a request was about, from its path (`/v1/runs/:runId/…`), for the error report. */
function runOfPath(path: string): Pick<ErrorInfo, "runId" | "threadId"> {
  const segment = /^\/v1\/runs\/([^/]+)/.exec(path)?.[1];
  const runId = segment === undefined ? undefined : safeDecode(segment);
  const threadId = runId && threadOf(runId);
  return runId && threadId ? { runId, threadId } : {};
}
