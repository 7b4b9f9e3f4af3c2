/**
 * A shadow policy's disagreement, sent to the list at GET /v1/policy/disagreements (the
 * receipts store's object) after the call, never holding the call up: kept alive with
 * `waitUntil`, and a failed send is reported (the run's `policy_shadow` event keeps it).
 */
import type { DisagreementEntry } from "../../src/edge/policy/run-tools";
import type { ErrorInfo } from "../../src/edge/error-sink";
import { receiptStub } from "../../src/edge/receipts/rpc";

export interface KeepDeps {
  env: object;
  report(error: unknown, info: ErrorInfo): void;
  waitUntil(promise: Promise<unknown>): void;
}

export function keepDisagreement(deps: KeepDeps, entry: DisagreementEntry): void {
  const sent = (async () => {
    try {
      await receiptStub(deps.env).addDisagreement(entry);
    } catch (error) {
      deps.report(error, {
        source: "driver",
        runId: entry.runId,
        threadId: entry.threadId,
        recoverable: false,
      });
    }
  })();
  deps.waitUntil(sent);
}
