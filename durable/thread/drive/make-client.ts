/**
 * The kernel client a drive runs with: the agent's model (the configured endpoint, else its
 * demo model) and the drive's persistence, budgets and tracing wired into its options.
 */
import { ConfigError } from "../../../src/edge/config-error";
import type { RunEvent } from "../../../src/core/events";
import type { TracedClientOptions } from "../../../src/core/tracing/index";
import { createClient, createInProcessClient, type Client } from "../../../src/core/client";
import type { AgentDefinition } from "../../../src/edge/agent";
import { edgeMetrics } from "../../../src/edge/metrics";
import { refusalText } from "../../../src/edge/approvals/refusal";
import type { checkpointer } from "./checkpoint";
import type { DriverDeps } from "./driver-deps";
import { agentHooks } from "../../agents/child-client";
import type { runLimitBefore } from "../../agents/run-tree";

export interface ClientSetup {
  afterCancel: boolean;
  maxTurns: number | undefined;
  limitBefore: ReturnType<typeof runLimitBefore>; // the tree's budgets (an agent with a team)
  persister: ReturnType<typeof checkpointer>;
  signal: AbortSignal;
  /** `tracer` and `tracing`, or nothing (./tracing.ts). */
  traced: TracedClientOptions;
}

export function makeClient(deps: DriverDeps, agent: AgentDefinition, setup: ClientSetup): Client {
  const { afterCancel, maxTurns, persister, signal } = setup;
  // No systemPrompt here: it is the thread's first stored message (see RunStore.insertRun).
  const common = {
    ...setup.traced,
    maxTurns: maxTurns ?? agent.maxTurns ?? 10,
    ...(agent.maxToolOutputBytes === undefined
      ? {}
      : { maxToolOutputBytes: agent.maxToolOutputBytes }),
    limitBefore: setup.limitBefore,
    // Text deltas reach the event log (and live SSE listeners) as the model produces them.
    streaming: true,
    refusalText,
    onCheckpoint: persister.turn,
    // Each call's result is stored as it completes (exactly once per completed call).
    onCallCheckpoint: persister.call,
    onEvent: (event: RunEvent) => {
      // After a cancel, `done` is the last event: an interrupted driver's stragglers are not logged
      // (unless it is applying the decision recorded before the cancel).
      if (!afterCancel && signal.aborted) {
        return;
      }
      persister.event(event);
    },
    onMetric: (event: Parameters<typeof edgeMetrics.record>[0]) => edgeMetrics.record(event),
    ...(agent.compaction ? { hooks: agentHooks(agent) } : {}),
  };
  const llm = deps.config.llm;
  if (llm) {
    return createClient({
      ...common,
      baseUrl: llm.baseUrl,
      style: llm.style,
      model: agent.model ?? llm.model,
      apiKey: llm.apiKey,
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
    });
  }
  if (!agent.demoModel) {
    throw new ConfigError(
      `no model: set LLM_BASE_URL/LLM_STYLE/LLM_MODEL, or give agent ${agent.name} a demoModel`,
    );
  }
  return createInProcessClient({
    ...common,
    model: agent.model ?? "demo",
    generate: agent.demoModel,
  });
}
