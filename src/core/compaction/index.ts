/** Context compaction (SPEC §7F): a `beforeLLM` hook that keeps a long transcript under budget. */
export {
  compactor,
  compactMessages,
  SUMMARY_PREFIX,
  FLUSH_REMINDER,
  type CompactorOptions,
} from "./compactor";
export { estimateTokens } from "./count";
export { carriesToolResult, tailBoundaries, type CompactableMessage } from "./boundaries";
