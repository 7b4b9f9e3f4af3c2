/**
 * Several policies at once (an agent's own `policy` and the edge's `AUTHZEN_URL`): each is
 * asked, concurrently, and the strictest answer wins — deny over ask over allow, and of two
 * asks the one with the higher quorum. One that cannot answer makes the whole unavailable, so
 * the caller falls back to the in-code rule and records it (docs/policy.md).
 */
import type { PolicyAnswer, ToolPolicy } from "./types";

const RANK = { allow: 0, ask: 1, deny: 2 } as const;

export function allOf(policies: readonly ToolPolicy[]): ToolPolicy | undefined {
  const [first, ...rest] = policies;
  if (!first || rest.length === 0) {
    return first;
  }
  return {
    id: policies.map((p) => p.id).join("+"),
    version: policies.map((p) => p.version).join("+"),
    source: first.source,
    async evaluate(evaluation, options) {
      const answers = await Promise.all(policies.map((p) => p.evaluate(evaluation, options)));
      return answers.reduce(strictest);
    },
  };
}

function strictest(a: PolicyAnswer, b: PolicyAnswer): PolicyAnswer {
  if (RANK[a.decision] !== RANK[b.decision]) {
    return RANK[a.decision] > RANK[b.decision] ? a : b;
  }
  if (a.decision === "ask" && b.decision === "ask") {
    return (b.ask?.quorum ?? 1) > (a.ask?.quorum ?? 1) ? b : a;
  }
  return a;
}
