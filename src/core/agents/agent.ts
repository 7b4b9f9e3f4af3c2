/**
 * The level-1 surface (SPEC §7D): `agent(name, { does, … })` with `.run(prompt)` (one
 * delegation tree, start to settle) and `.asTool()` — the axiom's other direction: an agent
 * is a tool `{ name, description: does, inputSchema: { prompt } }` for a classic toolkit,
 * returning only its final text and `{ agent, turns, totalTokens }`. A suspending agent is a
 * suspending tool: its request (with `data.path`) is the tool's pending result, and the
 * re-execution with `ctx.answer` (same call id) resumes that same tree.
 */
import type { Tool, ToolResult } from "../types";
import { toTaskResult } from "./task-tool";
import { createAgentRuntime, type AgentRuntime, type AgentRuntimeOptions } from "./runtime";
import type { AgentDef, AgentResult, Budget } from "./types";
import { buildRegistry } from "./registry";

export interface Agent {
  readonly name: string;
  readonly def: AgentDef;
  /** Runs the agent (and its team) on `runtime`, or on a runtime built from these options. */
  run(
    prompt: string,
    options: AgentRuntimeOptions | { runtime: AgentRuntime; budget?: Budget },
  ): Promise<AgentResult>;
  /** This agent as a tool for `createToolkit`. */
  asTool(options: AgentRuntimeOptions | { runtime: AgentRuntime }): Tool;
  /** The registry it runs with: itself and the transitive closure of its team, sorted by name. */
  registry(): AgentDef[];
}

/**
 * @example
 * const refunds = agent("refunds", { does: "issues refunds", tools: [refund] });
 * const coordinator = agent("coordinator", { does: "handles support tickets", team: [refunds] });
 * const result = await coordinator.run("Refund order 42", { client: { generate }, model: "m" });
 */
export function agent(name: string, definition: Omit<AgentDef, "name">): Agent {
  const def: AgentDef = { ...definition, name };
  const runtimeOf = (options: AgentRuntimeOptions | { runtime: AgentRuntime }) =>
    "runtime" in options ? options.runtime : createAgentRuntime({ agents: [def], ...options });
  return {
    name,
    def,
    registry() {
      const registry = buildRegistry([def], undefined);
      return registry.names().flatMap((n) => registry.get(n) ?? []);
    },
    run(prompt, options) {
      const budget = "runtime" in options ? options.budget : undefined;
      return runtimeOf(options).run(def, prompt, budget ? { budget } : {});
    },
    asTool(options) {
      let runtime: AgentRuntime | undefined;
      // The handle each tool call started, by call id: the post-answer re-execution finds it.
      const byCall = new Map<string, string>();
      return {
        name,
        description: def.does,
        inputSchema: {
          type: "object",
          properties: { prompt: { type: "string", description: "The work to hand over" } },
          required: ["prompt"],
        },
        source: "agent",
        async execute(args, ctx = {}): Promise<ToolResult> {
          const prompt = (args as { prompt?: unknown } | undefined)?.prompt;
          if (typeof prompt !== "string") {
            return { output: `${name} needs { prompt } as a string`, isError: true };
          }
          runtime ??= runtimeOf(options);
          const known = ctx.callId === undefined ? undefined : byCall.get(ctx.callId);
          let result: AgentResult;
          if (known && ctx.answer) {
            result = await runtime.runWithAnswer({ answer: ctx.answer });
          } else {
            const handle = runtime.spawn(runtime.root, def);
            if (ctx.callId !== undefined) {
              byCall.set(ctx.callId, handle.id);
            }
            runtime.wake(handle, prompt);
            result = await runtime.wait(handle, { by: runtime.root });
          }
          if (result.status === "pending" && result.pending) {
            const request = result.pending;
            return {
              output: `pending: ${request.prompt}`,
              isError: true,
              metadata: { pending: request },
            };
          }
          await runtime.close(result.handle);
          if (ctx.callId !== undefined) {
            byCall.delete(ctx.callId);
          }
          const { output, isError, metadata } = toTaskResult(result);
          return {
            output,
            isError,
            metadata: { agent: name, turns: metadata?.turns, totalTokens: metadata?.totalTokens },
          };
        },
      };
    },
  };
}
