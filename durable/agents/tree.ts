/**
 * What the sub-agent modules share for one drive of one run: the driver's dependencies,
 * the handle table, the run, the drive's abort signal. Built by the driver per unit of work
 * (nothing here outlives it: the tree lives in storage, see handle-store.ts).
 */
import type { Tool } from "../../src/core/types";
import type { AgentDefinition } from "../../src/edge/agent";
import type { DriverDeps } from "../thread/drive/driver-deps";
import type { RunRow } from "../storage/run-store";
import type { HandleStore } from "../storage/handle-store";
import { childPathOf } from "../../src/edge/agents/asked-by";
import type { Admission } from "../../src/core/agents/limits/admission";
import type { TreeLedger } from "./ledger";

export { askedByOf, childPathOf } from "../../src/edge/agents/asked-by";

export interface TreeContext {
  deps: DriverDeps;
  handles: HandleStore;
  run: RunRow;
  signal: AbortSignal;
  /** Each parent's `maxConcurrent` gate (SPEC §7D gate 2), for the children this drive runs. */
  concurrency: Map<string, Slots>;
  /** The tree's spend and shape, read once per drive and kept up to date (ledger.ts). */
  ledger(): TreeLedger;
  /** Model calls under a token or turn pool start only once it can pay (issue 37). */
  admission: Admission;
  /**
   * The `task` tools a caller gets (team-tool.ts), handed in where the tree is built so a
   * child's step and the task tool, which call each other, do not import each other.
   */
  teamTools(caller: Caller): Tool[];
}

/** Runs `work` once its parent has a free slot for a running child (durable/agents/budget.ts). */
export type Slots = <T>(work: () => Promise<T>) => Promise<T>;

/** One level of the tree as a `task` tool sees its caller: its handle and the agents above it. */
export interface Caller {
  handle: string;
  agent: AgentDefinition;
  depth: number;
  /** The caller's ancestors' agents, nearest first (for budgets and `waitFor`). */
  above: AgentDefinition[];
}

/** The run's own agent is the tree's top handle: `root/<agent>.1` (the kernel's spelling). */
export const rootHandleOf = (run: Pick<RunRow, "agent">) => `root/${run.agent}.1`;

/** The handle a request's `data.path` names (segments, or an older run's string), if a sub-agent's. */
export function pathOf(
  request: { data?: Record<string, unknown> } | undefined,
): string | undefined {
  return childPathOf(request?.data?.path);
}
