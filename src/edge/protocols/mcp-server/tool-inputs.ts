/**
 * The tools /mcp lists beside plain tools, in every protocol revision: each agent a tool
 * taking `{ prompt, threadId? }`, and `get_run` to read a run later. No SDK here: the
 * 2026-07-28 server (./modern) lists them too.
 */
export const GET_RUN_TOOL = "get_run";

export const AGENT_INPUT = {
  type: "object" as const,
  properties: {
    prompt: { type: "string", description: "What to ask the agent" },
    threadId: {
      type: "string",
      description: "Continue this conversation (a thread id from an earlier answer)",
    },
  },
  required: ["prompt"],
};

export const GET_RUN_INPUT = {
  type: "object" as const,
  properties: { runId: { type: "string", description: "The run id a pending result named" } },
  required: ["runId"],
};

export const GET_RUN_DESCRIPTION =
  "A run's state and, once it is done, its answer (for a call that returned pending).";
