/** The `/events` vocabulary as the OpenAPI document describes it (docs/http-api.md is the long form). */
export const EVENTS = `Server-Sent Events. Each event has an \`id\` (replay with Last-Event-ID), an \`event\` type and JSON \`data\`:
text {delta}; tool_call {id, name, args}; tool_result {id, name, output, isError, truncated?} (output: what the model was sent; truncated {total, shown}
in UTF-8 bytes when that was less than the whole, which GET /v1/runs/{runId}/tool-calls/{callId}/output serves); pending {request, id} (id: the suspended tool call);
superseded {requestId, by, reason} (a newer deploy asked the call again as request by);
resumed {requestId, decision, channel} or {reason}; task_polled {requestId, taskId, state, statusText?} (a remote task the run waits on,
an MCP task of protocol 2026-07-28 or an A2A task, was polled); expiring {requestId, expiresAt?} (a rule's warnBefore: the request expires soon);
policy_shadow {tool, callId, live, shadow} (the shadow policy would have decided otherwise); done {status, text?, usage?, turns?}; error {code, message}
(the run failed: code value_too_large, config_error, provider_error, run_aborted, driver_failed, …) or {message, requestId?, code?, recoverable: true} (the run goes on: a retried driver, a
notification not delivered, an approver group not defined, a queue name createEdge({ queues }) lacks: code config_error).
An undo (POST /v1/runs/{runId}/undo) appends after done: undo {reason, requestedBy, calls}; compensating {callId, tool}
(a step begins); compensation {callId, tool, status, output?, error?} (a step's outcome); compensated {reason, requestedBy,
compensations} (the run is compensated). The stream closes after done, compensated or an
error without recoverable: true.`;
