/**
 * `<server>_sign_in` for a server that is signed in already: not offered to the model (it has
 * the server's real tools), only there to finish a sign-in call made before. That happens when
 * the sign-in completed (the tokens are stored) and the process died before the call's result
 * was kept: the run resumes, the server connects with the stored token, and the call is
 * executed again with its answer. Without this it would meet "Unknown tool" and the model would
 * be told the sign-in failed when it had succeeded (found by bench/fault-schedule.mjs).
 */
import type { Tool } from "../../types";

export function signedInTool(name: string, server: string, tools: Tool[]): Tool {
  const names = tools.map((t) => t.name).join(", ") || "none";
  return {
    name,
    description: `Sign in to the MCP server "${server}" (signed in already).`,
    inputSchema: { type: "object", properties: {} },
    source: `mcp:${server}`,
    execute: async () => ({
      output: `signed in to ${server}; its tools are now available: ${names}`,
      isError: false,
    }),
  };
}
