/** What a `toolnexus-edge` command may touch (src/cli/main.ts): injectable, so tests give their own. */
export interface CliIo {
  env: Record<string, string | undefined>;
  cwd: string;
  out(text: string): void;
  err(text: string): void;
  fetch: typeof fetch;
}
