/**
 * What a queue message is, from its body alone. A producer binding does not tell its
 * queue's name, so when wrangler.toml names a queue that `createEdge({ queues })` was not
 * told about, the consumer still knows what to do with each message: the bodies say what
 * they are (docs/architecture.md, "Queues"). The mismatch itself is a configuration error,
 * reported once per queue to the error sink and once on each run it touches.
 */
import { ConfigError } from "../settings";
import type { ErrorInfo } from "../error-sink";

/** Runs remembered as already told; past this the set starts over (a run may be told twice). */
const RUNS_REMEMBERED = 10_000;

/** `resume`: a thread to drive; `notify`: a notification or a Slack sync; `unknown`: neither. */
export type MessageKind = "resume" | "notify" | "unknown";

export function messageKind(body: unknown): MessageKind {
  if (typeof body !== "object" || body === null) {
    return "unknown";
  }
  const fields = body as Record<string, unknown>;
  if (typeof fields.threadId !== "string" || typeof fields.runId !== "string") {
    return "unknown";
  }
  // A notify body (callback or Slack) names the request; a resume body names only the run.
  return typeof fields.requestId === "string" ? "notify" : "resume";
}

/** The message telling the operator which names to line up (no secrets in it). */
export function unknownQueueMessage(queue: string, expected: readonly string[]): string {
  return `queue ${JSON.stringify(queue)} is not one of this edge's queues (${expected.join(", ")}): set createEdge({ queues }) to the names in wrangler.toml; its messages are handled by what their bodies say meanwhile`;
}

/**
 * Reports a queue-name mismatch: to the sink the first time each queue shows up, to a
 * run's events the first time each run is touched through it (per isolate: a restart
 * reports again, once).
 */
export function mismatchReporter(
  report: (error: unknown, info: ErrorInfo) => void,
  onRun: (threadId: string, runId: string, message: string) => Promise<void>,
) {
  const queuesSeen = new Set<string>();
  const runsSeen = new Set<string>();
  return async (queue: string, message: string, run?: { threadId: string; runId: string }) => {
    if (!queuesSeen.has(queue)) {
      queuesSeen.add(queue);
      report(new ConfigError(message), { source: "queue", recoverable: false });
    }
    if (run && !runsSeen.has(run.runId)) {
      if (runsSeen.size >= RUNS_REMEMBERED) {
        runsSeen.clear();
      }
      runsSeen.add(run.runId);
      await onRun(run.threadId, run.runId, message);
    }
  };
}
