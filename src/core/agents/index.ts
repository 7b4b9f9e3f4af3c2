/**
 * Agents that delegate (SPEC §7D): definitions, the runtime with its six host verbs and two
 * views, the `task` tool, hierarchical budgets, the three backpressure gates, suspension
 * escalation with inline and durable resume, and the JSON snapshot a host persists.
 */
export { agent, type Agent } from "./agent";
export {
  createAgentRuntime,
  AgentRuntimeError,
  type AgentRuntime,
  type AgentRuntimeOptions,
  type HandleRef,
  type WaitOptions,
} from "./runtime";
export { AgentConfigError } from "./registry";
export { systemClock, virtualClock, type Clock, type VirtualClock } from "./limits/clock";
export type { AgentModelBackend } from "./model";
export type { TransitionEvent } from "./core";
export type { RuntimeSnapshot } from "./tree/snapshot";
export type { HandleRecord, HaltedTurn, Spent } from "./tree/handle";
export { AGENT_STATUSES } from "./types";
export type {
  AgentDef,
  AgentResult,
  AgentStatus,
  Budget,
  BudgetLimit,
  CloseReason,
  HandleInfo,
  HandleState,
  HandleView,
  InboxItem,
  PostResult,
  WakeResult,
} from "./types";
