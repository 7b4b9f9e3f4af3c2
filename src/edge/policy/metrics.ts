/**
 * The policy's counters on `/metrics` (isolate memory, like every edge metric: scrape often
 * and aggregate): evaluations that fell back to the in-code rule, and shadow disagreements.
 */
const fallbacks = new Map<string, number>();
const disagreements = new Map<string, number>();

const bump = (counts: Map<string, number>, key: string) =>
  counts.set(key, (counts.get(key) ?? 0) + 1);

export const policyCounters = {
  /** The policy `policy` could not answer; the in-code rule applied. */
  fallback(policy: string): void {
    bump(fallbacks, policy);
  },
  /** The shadow policy disagreed with the live decision on a call of `tool`. */
  disagreement(tool: string): void {
    bump(disagreements, tool);
  },
};

/** Prometheus text for both counters (each family's HELP and TYPE even before its first count). */
export function policyMetrics(): string {
  const family = (
    { name, help, label }: { name: string; help: string; label: string },
    counts: Map<string, number>,
  ) => [
    `# HELP ${name} ${help}`,
    `# TYPE ${name} counter`,
    ...[...counts].map(([value, n]) => `${name}{${label}="${escapeLabel(value)}"} ${n}`),
  ];
  return [
    ...family(
      {
        name: "toolnexus_policy_fallbacks_total",
        help: "Tool calls the policy decision point could not answer (down, slow, malformed): the in-code rule applied.",
        label: "policy",
      },
      fallbacks,
    ),
    ...family(
      {
        name: "toolnexus_policy_disagreements_total",
        help: "Tool calls on which the shadow policy would have decided otherwise than the live one.",
        label: "tool",
      },
      disagreements,
    ),
    "",
  ].join("\n");
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}
