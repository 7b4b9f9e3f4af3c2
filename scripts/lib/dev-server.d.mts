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
  persistTo?: string;
}): string[];
export function startDevServer(options?: {
  timeoutMs?: number;
  log?: (line: string) => void;
  cwd?: string;
  vars?: Record<string, string>;
  config?: string;
  script?: string;
  persistTo?: string;
}): Promise<{
  url: string;
  apiToken: string;
  webhookSecrets: string[];
  notifySecrets: string[];
  output: () => string;
  tail: (lines?: number) => string;
  stop: () => Promise<void>;
}>;
