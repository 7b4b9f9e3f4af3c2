export { agent, DEFAULT_A2A_POLL_MS, DEFAULT_A2A_TIMEOUT_MS } from "./agent";
export type { A2AAgent, AgentOptions } from "./agent";
export { readCard, readTask, normalizeState } from "./wire";
export type { RemoteTask, RemoteState, ResolvedCard } from "./wire";
export { agentsFromConfig, cardUrlOf, parseAgentsConfig } from "./config";
export type { A2AAgentConfig } from "./config";
export {
  attachPoller,
  isRemoteTaskRequest,
  REMOTE_TASK_KIND,
  remoteTaskAnswer,
  remoteTaskData,
  remoteTaskPoller,
} from "./remote-task";
export type { RemoteTaskData, RemoteTaskOutcome } from "./remote-task";
