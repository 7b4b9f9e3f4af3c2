/**
 * Why a run ended `failed`, as the run view and its final `error` event say it:
 * `{ code, message }` (DESIGN §4's error shape), so a client branches on the code rather
 * than on message text. The code is the most specific thing the driver knows:
 *
 * - `value_too_large`: a model reply, tool output or arguments past 32 MiB (the message
 *   names the value, its size and the limit; durable/storage/large/values.ts's error
 *   carries the code, taken by the rule for an error's own code below);
 * - `config_error`: a missing model, binding or secret, a bad agent registry;
 * - `provider_error`: the model endpoint failed (HTTP error, network, malformed stream);
 * - `run_aborted`: the run's own timeout or signal stopped it;
 * - an error's own snake_case `code` (the kernel's `ResumeError`, `AgentRuntimeError`);
 * - `driver_failed` for anything else (the code the error sink's log line carries too).
 */
import { ProviderError, RunAbortedError, errorMessage } from "../core/errors";
import { AgentConfigError } from "../core/agents/registry";
import { ConfigError } from "./config-error";
import type { RunError } from "./protocol";

/** A code of our own spelling (not a platform's `ECONNRESET`). */
const OWN_CODE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

export function runError(error: unknown): RunError {
  return { code: codeOf(error), message: errorMessage(error) };
}

function codeOf(error: unknown): string {
  if (error instanceof ConfigError || error instanceof AgentConfigError) {
    return "config_error";
  }
  if (error instanceof ProviderError) {
    return "provider_error";
  }
  if (error instanceof RunAbortedError) {
    return "run_aborted";
  }
  const own = (error as { code?: unknown } | null)?.code;
  return typeof own === "string" && OWN_CODE.test(own) ? own : "driver_failed";
}
