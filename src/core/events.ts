import type { Request, RunResult, ToolResult, Usage } from "./types";

/** What `stream()` yields and what the edge appends to a run's event log. */
export type RunEvent =
  | { type: "text"; delta: string }
  | { type: "tool_call"; id: string; name: string; args: unknown }
  | {
      type: "tool_result";
      id: string;
      name: string;
      /** What the model was sent (cut, with a closing line, when `truncated` is set). */
      output: string;
      isError: boolean;
      metadata?: ToolResult["metadata"];
      /** The whole output was `total` UTF-8 bytes, of which the model was sent the first `shown`. */
      truncated?: { total: number; shown: number };
    }
  /** `id` is the suspended tool call's (absent only for a request no call raised). */
  | { type: "pending"; request: Request; id?: string }
  | { type: "usage"; usage: Usage }
  | { type: "done"; result: RunResult };

export type Emit = (event: RunEvent) => void;
