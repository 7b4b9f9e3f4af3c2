/**
 * The kernel client a child handle runs with: the same model settings as the run's own
 * agent (LLM_* or the agent's demoModel), streaming into the run's event log with the
 * child's `handle` on every event, and a checkpoint per handle per turn.
 */
import { ConfigError } from "../../src/edge/config-error";
import { createClient, createInProcessClient, type Client } from "../../src/core/client";
import type { Hooks } from "../../src/core/hooks";
import type { RunEvent } from "../../src/core/events";
import { compactor } from "../../src/core/compaction";
import type { AgentDefinition } from "../../src/edge/agent";
import { edgeMetrics } from "../../src/edge/metrics";
import { refusalText } from "../../src/edge/approvals/refusal";
import type { RunState, CallCheckpoint, LimitBefore } from "../../src/core/loop/run-loop";
import type { TreeContext } from "./tree";

/** The agent's own hooks at the edge: its compactor (SPEC §7F), if it has one. */
export function agentHooks(agent: AgentDefinition): Hooks | undefined {
  return agent.compaction ? { beforeLLM: compactor(agent.compaction) } : undefined;
}

export interface ChildPersister {
  turn(state: RunState): void;
  call: CallCheckpoint;
  event(event: RunEvent): void;
}

export function childClient(
  tree: TreeContext,
  agent: AgentDefinition,
  limits: { maxTurns: number; limitBefore: LimitBefore; persister: ChildPersister },
): Client {
  const { persister } = limits;
  const hooks = agentHooks(agent);
  const common = {
    maxTurns: limits.maxTurns,
    ...(agent.maxToolOutputBytes === undefined
      ? {}
      : { maxToolOutputBytes: agent.maxToolOutputBytes }),
    limitBefore: limits.limitBefore,
    streaming: true,
    refusalText,
    onCheckpoint: persister.turn,
    onCallCheckpoint: persister.call,
    onEvent: (event: RunEvent) => {
      if (!tree.signal.aborted) {
        persister.event(event);
      }
    },
    onMetric: (event: Parameters<typeof edgeMetrics.record>[0]) => edgeMetrics.record(event),
    ...(hooks ? { hooks } : {}),
  };
  const llm = tree.deps.config.llm;
  if (llm) {
    return createClient({
      ...common,
      baseUrl: llm.baseUrl,
      style: llm.style,
      model: agent.model ?? llm.model,
      apiKey: llm.apiKey,
      ...(tree.deps.fetch ? { fetch: tree.deps.fetch } : {}),
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
