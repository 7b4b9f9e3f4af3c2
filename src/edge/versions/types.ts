/**
 * What an agent may say about runs that meet a newer deploy of it (docs/versions.md). Its
 * own file, free of the agent definition, so
 * `agent.ts` can name these types without an import cycle.
 */
import type { Request } from "../../core/types";

/** What a migration function is told about a request suspended under another version. */
export interface VersionChangeContext {
  /** The version the request was suspended under; null for one suspended before versions were recorded. */
  from: string | null;
  /** The version now deployed. */
  to: string;
  /** The request as it was stored when the run suspended. */
  request: Request;
  /** The arguments up for decision: the stored ones, or an approver's edit. */
  args: Record<string, unknown>;
}

/** A migration's answer: resume as today, decline, or resume with other arguments. */
export type VersionChangeVerdict = "continue" | "decline" | { args: Record<string, unknown> };

/**
 * `"continue"` (the default) resumes when the suspended tool still exists and its current
 * input schema accepts the arguments; `"decline"` declines every request suspended under
 * another version; a function decides per request and may migrate the arguments.
 */
export type OnVersionChange =
  | "continue"
  | "decline"
  | ((ctx: VersionChangeContext) => VersionChangeVerdict | Promise<VersionChangeVerdict>);
