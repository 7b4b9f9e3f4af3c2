import type { Answer, Message, Tool, ToolResult } from "./types";
import type { ModelTurn } from "./providers/model";

/**
 * Hooks around each model call and each tool call. A hook may return nothing to
 * change nothing. `beforeTool` may short-circuit with a `result` — including a
 * pending one, which is how a policy guard suspends a tool; on the re-execution
 * after that request is answered, the hook sees the `answer`.
 */
export interface Hooks {
  beforeLLM?(info: {
    messages: Message[];
    tools: Tool[];
    model: string;
    turn: number;
  }):
    | { messages?: Message[]; tools?: Tool[] }
    | void
    | Promise<{ messages?: Message[]; tools?: Tool[] } | undefined>
    | Promise<void>;
  afterLLM?(info: { response: ModelTurn; model: string; turn: number }): void | Promise<void>;
  beforeTool?(info: {
    name: string;
    args: unknown;
    id: string;
    turn: number;
    answer?: Answer;
  }):
    | { result?: ToolResult; args?: unknown }
    | void
    | Promise<{ result?: ToolResult; args?: unknown } | undefined>
    | Promise<void>;
  afterTool?(info: {
    name: string;
    args: unknown;
    result: ToolResult;
    id: string;
    turn: number;
  }): { result?: ToolResult } | void | Promise<{ result?: ToolResult } | undefined> | Promise<void>;
}
