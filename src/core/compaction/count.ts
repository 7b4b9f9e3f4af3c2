/**
 * The default token estimate of §7F: for each message, ceil(length of its JSON / 4), summed.
 * An estimator, not a tokenizer: a host that needs exact counts passes its own `countTokens`.
 */
export function estimateTokens(messages: readonly unknown[]): number {
  let total = 0;
  for (const message of messages) {
    total += Math.ceil((JSON.stringify(message) ?? "").length / 4);
  }
  return total;
}
