/** What a drive gives the policy layer (src/edge/policy/run-tools.ts): its run, its event log, its groups. */
import type { AgentDefinition } from "../../src/edge/agent";
import type { RunPolicyInput } from "../../src/edge/policy/run-tools";
import type { RunRow } from "../storage/run-store";
import type { DriverDeps } from "../thread/drive/driver-deps";

export function runPolicy(
  deps: DriverDeps,
  { agent, run }: { agent: AgentDefinition; run: RunRow },
): RunPolicyInput {
  const directory = deps.directory?.();
  return {
    agent,
    run,
    env: deps.env,
    ...(directory ? { groupExists: (group: string) => directory.groups.has(group) } : {}),
    record: (type, data) => deps.record(run.runId, type, data),
    report: (error) =>
      deps.report?.(error, {
        source: "driver",
        runId: run.runId,
        threadId: run.threadId,
        recoverable: false,
      }),
    ...(deps.keepDisagreement ? { keepDisagreement: deps.keepDisagreement } : {}),
  };
}
