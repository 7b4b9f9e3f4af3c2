/**
 * The client: `createClient` (over the wire, openai or anthropic style) and
 * `createInProcessClient` (a local `generate` function). Both share one loop; they
 * differ only in how one model turn is produced (and whether it can be streamed).
 * This module is where the rest of the code imports them from; the pieces live beside it:
 * `options.ts` (the public shapes), `wire.ts`, `in-process.ts`,
 * `build.ts` (the shared entry points), `loop-config.ts` and
 * `run-support.ts`.
 */
export type { Client, CommonClientOptions, RunOptions, StreamOptions } from "./options";
export { createClient, type ClientOptions } from "./wire";
export {
  createInProcessClient,
  type GeneratedMessage,
  type InProcessClientOptions,
} from "./in-process";
