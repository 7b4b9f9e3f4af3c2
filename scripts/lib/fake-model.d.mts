// Types for the TypeScript tests that import fake-model.mjs (test/scripts).
export interface ScriptedReply {
  text: string;
  toolCalls: Array<{ id: string; name: string; args: Record<string, unknown> }>;
}
export function scriptedReply(style: "openai" | "anthropic", body: unknown): ScriptedReply;
export function styleOfPath(pathname: string): "openai" | "anthropic" | undefined;
export function startFakeModel(options?: {
  port?: number;
  host?: string;
  log?: (line: string) => void;
  /** Each reply waits this long first (a slow model). */
  delayMs?: number;
}): Promise<{ url: string; port: number; close(): Promise<void> }>;
