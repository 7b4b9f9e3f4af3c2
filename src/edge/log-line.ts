/**
 * Structured log lines: one JSON object per line, so a log search finds a run's lines by
 * `runId` or by the `traceId` of its trace (docs/observability.md, "Traces and the run timeline"). The error sink's default
 * writer (`logErrors`, src/edge/error-sink.ts) writes its lines with it, and so does the sink's
 * guard when a host's own sink throws; any host can call it for its own lines.
 */
import { traceIdOf } from "../core/tracing";

export type LogLevel = "debug" | "info" | "warn" | "error";

export interface LogFields {
  level: LogLevel;
  /** A stable, searchable code: `driver_failed`, `notify_retry`, `otlp_export_failed`, … */
  code: string;
  message: string;
  runId?: string;
  threadId?: string;
  requestId?: string;
  /** 32 hex digits; or give `traceparent` and the id is read from it. */
  traceId?: string;
  traceparent?: string;
  /** Where in the service (the error sink's `source`). */
  source?: string;
  /** Anything else worth a field; keys above win over these. */
  extra?: Record<string, unknown>;
}

/** Characters a message or an extra's string keeps; a log line is not a dump. */
export const MAX_FIELD_CHARS = 4096;

/**
 * One line of JSON (no newline inside, whatever the message holds): `ts`, `level`, `code`,
 * `message` and the ids that are known, nothing undefined.
 *
 * @example console.error(logLine({ level: "error", code: "driver_failed", message: e.message, runId, threadId }))
 */
export function logLine(fields: LogFields, now: number = Date.now()): string {
  const traceId = fields.traceId ?? traceIdOf(fields.traceparent);
  const line: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields.extra ?? {})) {
    line[key] = typeof value === "string" ? cut(value) : value;
  }
  Object.assign(line, {
    ts: new Date(now).toISOString(),
    level: fields.level,
    code: fields.code,
    message: cut(fields.message),
    ...(fields.source ? { source: fields.source } : {}),
    ...(fields.runId ? { runId: fields.runId } : {}),
    ...(fields.threadId ? { threadId: fields.threadId } : {}),
    ...(fields.requestId ? { requestId: fields.requestId } : {}),
    ...(traceId && /^[0-9a-f]{32}$/.test(traceId) ? { traceId } : {}),
  });
  try {
    // JSON.stringify escapes newlines inside strings: the line stays one line.
    return JSON.stringify(line);
  } catch {
    const { extra: _dropped, ...rest } = fields;
    return logLine(rest, now); // an extra that cannot be serialized (a cycle, a bigint) is dropped
  }
}

function cut(text: string): string {
  return text.length > MAX_FIELD_CHARS ? `${text.slice(0, MAX_FIELD_CHARS)}…` : text;
}
