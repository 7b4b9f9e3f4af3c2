/**
 * Where the service reports errors it handles itself (a failed driver, a notification
 * that did not get through, a queue message that failed, an unexpected 500): one
 * `onError` an application can route to its own logging or alerting.
 */
import { errorMessage } from "../core/errors";
import { logLine } from "./log-line";

export interface ErrorInfo {
  /** The part of the service that caught the error. */
  source: "http" | "queue" | "driver" | "notify" | "inbox" | "slack" | "telemetry" | "receipts";
  runId?: string;
  threadId?: string;
  requestId?: string;
  /** The run's trace id (32 hex digits), where the reporter knows it. */
  traceId?: string;
  /**
   * The code the run failed with (run-error.ts: `value_too_large`, `config_error`, …), when
   * the report is the failure that ended a run; the log line's code. Absent: the source's
   * code (`driver_failed`, `notify_retry`, … see `errorCode`).
   */
  code?: string;
  /**
   * True when the service retries on its own (a notification is redelivered, a driver is
   * retried by the queue or the watchdog alarm); false when the error ended something
   * (a run failed, a notification was given up, a request got a 500).
   */
  recoverable: boolean;
}

/** Receives every error the service swallows or logs; it must not throw (a throw is logged and ignored). */
export type ErrorSink = (error: Error, info: ErrorInfo) => void;

/**
 * The default: one JSON object per line (log-line.ts) with the ids that are known, so a log
 * search finds a run's errors by its run, thread, request or trace id. Retried errors are
 * `warn` with the cause's message; the others `error` with the stack.
 */
export const logErrors: ErrorSink = (error, info) => {
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  const line = logLine({
    level: info.recoverable ? "warn" : "error",
    code: info.code ?? errorCode(info),
    message: error.message,
    source: info.source,
    ...(info.runId ? { runId: info.runId } : {}),
    ...(info.threadId ? { threadId: info.threadId } : {}),
    ...(info.requestId ? { requestId: info.requestId } : {}),
    ...(info.traceId ? { traceId: info.traceId } : {}),
    extra: {
      error: error.name,
      ...(cause ? { cause } : {}),
      ...(!info.recoverable && error.stack ? { stack: error.stack } : {}),
    },
  });
  if (info.recoverable) {
    console.warn(line);
  } else {
    console.error(line);
  }
};

/** `driver_retry`, `notify_failed`, `telemetry_retry`, …: the part of the service and whether it retries (for a report without its own `code`). */
export function errorCode(info: Pick<ErrorInfo, "source" | "recoverable">): string {
  return `${info.source}_${info.recoverable ? "retry" : "failed"}`;
}

/** A sink that never throws into the code reporting to it. */
export function errorSink(sink: ErrorSink = logErrors): (error: unknown, info: ErrorInfo) => void {
  return (error, info) => {
    const reported = error instanceof Error ? error : new Error(errorMessage(error));
    try {
      sink(reported, info);
    } catch (thrown) {
      // One JSON line like every other, with the ids of the error the sink was given.
      console.error(
        logLine({
          level: "error",
          code: "error_sink_failed",
          message: `toolnexus-edge: the onError sink threw: ${errorMessage(thrown)}`,
          source: info.source,
          ...(info.runId ? { runId: info.runId } : {}),
          ...(info.threadId ? { threadId: info.threadId } : {}),
          ...(info.requestId ? { requestId: info.requestId } : {}),
          ...(info.traceId ? { traceId: info.traceId } : {}),
          extra: { reported: reported.message },
        }),
      );
    }
  };
}
