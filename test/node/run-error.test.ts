/**
 * A failed run's `error` is DESIGN §4's `{ code, message }` (src/edge/run-error.ts):
 * the code is the most specific thing the driver knows, a run stored before codes reads back
 * with `driver_failed`, and the AG-UI and A2A answers carry the code beside the message.
 */
import { EventType } from "@ag-ui/core";
import { describe, expect, it } from "vitest";
import { ProviderError, ResumeError, RunAbortedError } from "../../src/core/errors";
import { ConfigError } from "../../src/edge/config-error";
import type { RunView } from "../../src/edge/protocol";
import { AgUiTranslator } from "../../src/edge/protocols/ag-ui/events";
import { toTask } from "../../src/edge/protocols/a2a/task";
import { runError } from "../../src/edge/run-error";
import { decodeRunError } from "../../durable/storage/decode";
import { ValueTooLargeError } from "../../durable/storage/large/values";

describe("a failed run's error code", () => {
  it("names the cause the driver knows; anything else is driver_failed", () => {
    const tooLarge = new ValueTooLargeError("the output of tool read_file", 33_554_433);
    expect(runError(tooLarge)).toEqual({
      code: "value_too_large",
      message:
        "the output of tool read_file is 33554433 bytes, over the limit of 33554432 bytes (32 MiB)",
    });
    expect(runError(new ConfigError("no model")).code).toBe("config_error");
    expect(runError(new ProviderError("HTTP 500", 500)).code).toBe("provider_error");
    expect(runError(new RunAbortedError("timed out")).code).toBe("run_aborted");
    expect(runError(new ResumeError("no", "answer_mismatch")).code).toBe("answer_mismatch");
    expect(runError(new Error("CRM_TOKEN is not set"))).toEqual({
      code: "driver_failed",
      message: "CRM_TOKEN is not set",
    });
    // A platform's code is not ours to pass on.
    const reset = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    expect(runError(reset).code).toBe("driver_failed");
  });

  it("reads a run stored before codes (its message alone) as driver_failed", () => {
    expect(decodeRunError('{"code":"value_too_large","message":"m"}')).toEqual({
      code: "value_too_large",
      message: "m",
    });
    expect(decodeRunError("CRM_TOKEN is not set")).toEqual({
      code: "driver_failed",
      message: "CRM_TOKEN is not set",
    });
    expect(decodeRunError("{not json")).toEqual({ code: "driver_failed", message: "{not json" });
  });
});

describe("the code on the protocols' answers", () => {
  const error = { code: "value_too_large", message: "the model's reply is 40000000 bytes, …" };

  it("AG-UI: RUN_ERROR carries the code", () => {
    const t = new AgUiTranslator({ threadId: "t1", runId: "r1" });
    expect(t.event({ id: 1, type: "error", data: error })).toEqual([
      { type: EventType.RUN_ERROR, ...error },
    ]);
  });

  it("A2A: a failed task's message says the code and the message", () => {
    const view = {
      runId: "r1",
      threadId: "t1",
      status: "failed",
      pending: null,
      error,
      limit: null,
    } as unknown as RunView;
    const task = toTask(view);
    expect(task.status.state).toBe("failed");
    expect(task.status.message?.parts).toEqual([
      { kind: "text", text: `value_too_large: ${error.message}` },
    ]);
  });
});
