import type { InputSchema, Tool } from "../types";
import { toJsonSchema } from "../schema";
import { pending } from "../answers";

/**
 * A tool declared to the model but executed by the caller: calling it suspends
 * the run with a `tool_call` request whose `data` carries the name and arguments.
 * The caller runs it and resumes with `answerOutput(id, output)`.
 */
export function relayTool(name: string, description: string, schema?: InputSchema): Tool {
  return {
    name,
    description,
    inputSchema: toJsonSchema(schema ?? { type: "object", properties: {} }),
    source: "relay",
    async execute(args, ctx = {}) {
      if (ctx.answer?.ok) {
        const data = ctx.answer.data;
        return {
          output: typeof data === "string" ? data : JSON.stringify(data ?? null),
          isError: false,
        };
      }
      return pending({
        kind: "tool_call",
        prompt: `Run ${name} for the caller`,
        data: { name, arguments: (args ?? {}) as Record<string, unknown> },
      });
    },
  };
}
