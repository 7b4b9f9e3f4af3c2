/**
 * `${NAME}` expansion for headers and URLs. Values come from the environment the
 * caller hands down (Workers bindings) and fall back to `process.env` where one
 * exists (Node) — read through globalThis, never imported, so the kernel stays
 * runtime-agnostic. Expanded values are never logged or echoed in errors.
 */
/**
 * Any object of bindings (a Workers `env`, a plain map): read by name. `object`, not a
 * record type, so a typed environment interface is one without casting it.
 */
export type EnvLike = object;

export function lookupEnv(name: string, env?: EnvLike): string | undefined {
  const own = (env as Record<string, unknown> | undefined)?.[name];
  if (typeof own === "string") {
    return own;
  }
  const processEnv = (globalThis as { process?: { env?: Record<string, string | undefined> } })
    .process?.env;
  return processEnv?.[name];
}

/** Replaces `${NAME}` with its value; an unset variable is an error naming it (not its value). */
export function expandEnv(template: string, env?: EnvLike): string {
  return template.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const value = lookupEnv(name, env);
    if (value === undefined) {
      throw new Error(`environment variable ${name} is not set`);
    }
    return value;
  });
}
