/**
 * The registry: every agent the runtime may spawn, by name — the definitions it was given
 * plus the transitive closure of their team graphs. Built once, checked once: a team that
 * names an undefined agent, two different agents under one name, or a cycle in the team
 * graph that no `maxDepth` bounds are configuration errors naming the agents.
 */
import type { AgentDef, Budget } from "./types";

export type TeamEntry = NonNullable<AgentDef["team"]>[number];

/** The config error of a bad registry; `names` lists the agents it is about. */
export class AgentConfigError extends Error {
  override readonly name = "AgentConfigError";
  constructor(
    message: string,
    readonly names: string[],
  ) {
    super(message);
  }
}

/** An `agent()` object, or a bare definition. */
export function defOf(entry: AgentDef | { def: AgentDef }): AgentDef {
  return "def" in entry && typeof entry.def === "object" ? entry.def : (entry as AgentDef);
}

export interface Registry {
  get(name: string): AgentDef | undefined;
  /** Names in sorted order (SPEC: name-sorted iteration wherever prose or traces are composed). */
  names(): string[];
  /** The definitions of `def`'s team, sorted by name. */
  team(def: AgentDef): AgentDef[];
  /** Adds a definition (and its team closure) after the checks above. */
  add(entry: AgentDef | { def: AgentDef }): AgentDef;
}

export function buildRegistry(
  entries: Array<AgentDef | { def: AgentDef }>,
  runtimeBudget: Budget | undefined,
): Registry {
  const byName = new Map<string, AgentDef>();

  const collect = (def: AgentDef, into: Map<string, AgentDef>) => {
    checkDef(def);
    const known = into.get(def.name) ?? byName.get(def.name);
    if (known && known !== def) {
      throw duplicateName(def.name);
    }
    if (into.has(def.name) || byName.get(def.name) === def) {
      return;
    }
    into.set(def.name, def);
    for (const member of def.team ?? []) {
      if (typeof member !== "string") {
        collect(defOf(member), into);
      }
    }
  };

  const add = (entry: AgentDef | { def: AgentDef }): AgentDef => {
    const def = defOf(entry);
    if (byName.get(def.name) === def) {
      return def;
    }
    const fresh = new Map<string, AgentDef>();
    collect(def, fresh);
    const merged = new Map([...byName, ...fresh]);
    checkTeams(merged);
    checkCycles(merged, runtimeBudget);
    for (const [name, value] of fresh) {
      byName.set(name, value);
    }
    return def;
  };

  const initial = new Map<string, AgentDef>();
  for (const entry of entries) {
    collect(defOf(entry), initial);
  }
  checkTeams(initial);
  checkCycles(initial, runtimeBudget);
  for (const [name, def] of initial) {
    byName.set(name, def);
  }

  return {
    get: (name) => byName.get(name),
    names: () => [...byName.keys()].sort(),
    team: (def) =>
      teamNames(def)
        .sort()
        .map((name) => byName.get(name) as AgentDef),
    add,
  };
}

/**
 * The registry's checks alone, for a host that keeps its own map of agents (the edge's
 * createEdge, whose teams are names): each definition, unique names, the teams, the cycles.
 */
export function checkAgents(defs: AgentDef[], runtimeBudget: Budget | undefined): void {
  const byName = new Map<string, AgentDef>();
  for (const def of defs) {
    checkDef(def);
    if (byName.has(def.name)) {
      throw duplicateName(def.name);
    }
    byName.set(def.name, def);
  }
  checkTeams(byName);
  checkCycles(byName, runtimeBudget);
}

function duplicateName(name: string): AgentConfigError {
  return new AgentConfigError(
    `two different agents are named "${name}"; agent names must be unique`,
    [name],
  );
}

export function teamNames(def: AgentDef): string[] {
  return (def.team ?? []).map((m) => (typeof m === "string" ? m : defOf(m).name));
}

function checkDef(def: AgentDef): void {
  if (!def || typeof def.name !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(def.name)) {
    throw new AgentConfigError(
      `agent name ${JSON.stringify(def?.name)} must be 1–64 letters, digits, "_" or "-" (it becomes a handle path segment)`,
      [String(def?.name)],
    );
  }
  if (typeof def.does !== "string") {
    throw new AgentConfigError(`agent "${def.name}" needs a "does" description`, [def.name]);
  }
}

function checkTeams(defs: Map<string, AgentDef>): void {
  const problems: string[] = [];
  const missing = new Set<string>();
  // Code-unit order, as names() sorts, not localeCompare: its first call builds an ICU
  // collator (tens of ms), and this runs when the worker starts (createEdge → checkTeams).
  for (const def of [...defs.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const unknown = teamNames(def).filter((name) => !defs.has(name));
    if (unknown.length) {
      problems.push(`the team of "${def.name}" names undefined agents: ${unknown.join(", ")}`);
      for (const name of unknown) {
        missing.add(name);
      }
    }
  }
  if (problems.length) {
    const defined = [...defs.keys()].sort().join(", ");
    throw new AgentConfigError(`${problems.join("; ")} (defined: ${defined})`, [...missing]);
  }
}

/** A cycle is allowed only when something bounds the recursion: a `maxDepth` on the cycle or at the root. */
function checkCycles(defs: Map<string, AgentDef>, runtimeBudget: Budget | undefined): void {
  if (runtimeBudget?.maxDepth !== undefined) {
    return;
  }
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (name: string): void => {
    state.set(name, "open");
    stack.push(name);
    for (const next of teamNames(defs.get(name) as AgentDef).sort()) {
      if (state.get(next) === "open") {
        const cycle = stack.slice(stack.indexOf(next));
        const bounded = cycle.some((n) => defs.get(n)?.budget?.maxDepth !== undefined);
        if (!bounded) {
          throw new AgentConfigError(
            `the team graph has a cycle (${[...cycle, next].join(" → ")}) and no maxDepth bounds it: set budget.maxDepth on one of ${cycle.join(", ")} or on the runtime`,
            cycle,
          );
        }
      } else if (!state.has(next)) {
        visit(next);
      }
    }
    stack.pop();
    state.set(name, "done");
  };
  for (const name of [...defs.keys()].sort()) {
    if (!state.has(name)) {
      visit(name);
    }
  }
}
