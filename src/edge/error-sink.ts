/**
 * Where the service reports errors it handles itself (a failed driver, a notification
 * that did not get through, a queue message that failed, an unexpected 500): one
 * `onError` an application can route to its own logging or alerting.
 */
import { errorMessage } from "../core/errors";

export interface ErrorInfo {
  /** The part of the service that caught the error. */
  source: "http" | "queue" | "driver" | "notify" | "inbox" | "slack" | "receipts";
  runId?: string;
  threadId?: string;
  requestId?: string;
  /**
   * True when the service retries on its own (a notification is redelivered, a driver is
   * retried by the queue or the watchdog alarm); false when the error ended something
   * (a run failed, a notification was given up, a request got a 500).
   */
  recoverable: boolean;
}

/** Receives every error the service swallows or logs; it must not throw (a throw is logged and ignored). */
export type ErrorSink = (error: Error, info: ErrorInfo) => void;

/** The default: logs as the service always has, with the run and thread it belongs to. */
export const logErrors: ErrorSink = (error, info) => {
  const ids = [info.threadId && `thread=${info.threadId}`, info.runId && `run=${info.runId}`]
    .concat(info.requestId ? `request=${info.requestId}` : [])
    .filter(Boolean)
    .join(" ");
  const label = `toolnexus-edge ${info.source}${ids ? ` ${ids}` : ""}`;
  if (info.recoverable) {
    // Retried on its own: one line, no stack.
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    console.warn(`${label} (will retry): ${error.message}${cause}`);
  } else {
    console.error(label, error);
  }
};

/** A sink that never throws into the code reporting to it. */
export function errorSink(sink: ErrorSink = logErrors): (error: unknown, info: ErrorInfo) => void {
  return (error, info) => {
    const reported = error instanceof Error ? error : new Error(errorMessage(error));
    try {
      sink(reported, info);
    } catch (thrown) {
      console.error("toolnexus-edge: the onError sink threw", thrown);
    }
  };
}
