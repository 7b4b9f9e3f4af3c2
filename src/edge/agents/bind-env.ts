/**
 * An application's agent, as the edge's internals hold it. An agent's `tools` and
 * `approvalTimeout` may be functions of the application's `Env` (its `wrangler types`), while
 * the edge carries the environment as its own `EdgeEnv`. The composition root
 * (src/create-edge.ts) knows both: it hands each environment in at the entry points, and
 * `appEnv` gives the very object back typed as the application declared it, so no type is
 * asserted on the way.
 */
import type { AgentDefinition } from "../agent";
import type { EdgeEnv } from "../settings";

export function bindAgentEnv<Env extends EdgeEnv>(
  agent: AgentDefinition<Env>,
  appEnv: (env: unknown) => Env,
): AgentDefinition {
  const { tools, approvalTimeout, ...rest } = agent;
  return Object.freeze({
    ...rest,
    tools: typeof tools === "function" ? (env: unknown) => tools(appEnv(env)) : tools,
    ...(approvalTimeout === undefined
      ? {}
      : {
          approvalTimeout:
            typeof approvalTimeout === "function"
              ? (env: unknown) => approvalTimeout(appEnv(env))
              : approvalTimeout,
        }),
  });
}

/**
 * The environments the entry points were given, each typed as the application's `Env`: an
 * object the edge did not receive at an entry point is a bug, reported as such.
 */
export function envRegistry<Env extends EdgeEnv>(): {
  enter(env: Env): Env;
  appEnv(env: unknown): Env;
} {
  const entered = new WeakMap<object, Env>();
  return {
    enter(env) {
      entered.set(env, env);
      return env;
    },
    appEnv(env) {
      const known = typeof env === "object" && env !== null ? entered.get(env) : undefined;
      if (known === undefined) {
        throw new Error("an environment reached an agent without entering through createEdge");
      }
      return known;
    },
  };
}
