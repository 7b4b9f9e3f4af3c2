// Types for the TypeScript tests that import dev-server.mjs (test/scripts).
export const RUNTIME_ERROR: RegExp;
export const TEST_VARS: Record<string, string>;
export function freePort(): Promise<number>;
export function devServerArgs(options: {
  port: number;
  inspectorPort: number;
  stateDir: string;
  envFile: string;
  config?: string;
  script?: string;
}): string[];
export function startDevServer(options?: {
  timeoutMs?: number;
  log?: (line: string) => void;
  cwd?: string;
  vars?: Record<string, string>;
  /** Kept at stop(): a later server on it resumes the same local state (a restart). */
  stateDir?: string;
  config?: string;
  script?: string;
  /** Listen on this port (a restarted server keeps its URL). */
  port?: number;
}): Promise<{
  url: string;
  port: number;
  apiToken: string;
  webhookSecrets: string[];
  notifySecrets: string[];
  output: () => string;
  tail: (lines?: number) => string;
  stop: () => Promise<void>;
  /** SIGKILL to wrangler and workerd: no shutdown, the state kept as it was. */
  crash: () => Promise<void>;
}>;
