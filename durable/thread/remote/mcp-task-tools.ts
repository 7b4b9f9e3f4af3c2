/**
 * The tools a thread object polls and cancels an MCP server's task with (remote/remote-tasks.ts):
 * the run's agent's MCP servers, connected as the run's driver connects them (the run's
 * sign-in tokens, the injected fetch, the run's trace context on every request) and closed
 * after the poll. A connection per poll costs `server/discover` and `tools/list` besides
 * `tasks/get`: the polls back off (up to 30 s), and nothing waits in memory between them.
 */
import { createToolkit } from "../../../src/core/toolkit";
import type { AgentDefinition } from "../../../src/edge/agent";
import type { RunRow } from "../../storage/run-store";
import { runOAuth } from "../../tokens/run-oauth";
import type { ThreadContext } from "../context";

export function mcpTaskTools(t: ThreadContext) {
  return async (run: RunRow, agent: AgentDefinition) => {
    if (agent.mcp === undefined) {
      return { tools: [], close: async () => {} };
    }
    const toolkit = await createToolkit({
      env: t.env,
      ...runOAuth(t.env, run, agent.mcp),
      ...(t.options.fetch ? { fetch: t.options.fetch } : {}),
      ...(run.trace?.traceparent ? { traceparent: run.trace.traceparent } : {}),
    });
    return { tools: toolkit.tools(), close: () => toolkit.close() };
  };
}
