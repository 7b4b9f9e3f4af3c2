/**
 * Who asked, for a request a sub-agent raised: its `data.path` (`root/coordinator.1/refunds.1`)
 * read as "refunds, for coordinator", the words the approval page, the inbox and Slack show.
 */

/**
 * A request's `data.path` as a child handle id (`root/a.1/b.2`), as opposed to a run's own top
 * handle (`root/a.1`). It is an array of segments (SPEC §7D addendum, issue 40); runs stored
 * before that carry one string, and read the same.
 */
export function childPathOf(path: unknown): string | undefined {
  const id =
    typeof path === "string"
      ? path
      : Array.isArray(path) && path.every((s) => typeof s === "string")
        ? path.join("/")
        : undefined;
  return id?.startsWith("root/") && id.split("/").length > 2 ? id : undefined;
}

/** "refunds, for coordinator", or undefined when the request is not a sub-agent's. */
export function askedByOf(dataPath: unknown): string | undefined {
  const path = childPathOf(dataPath);
  if (!path) {
    return undefined;
  }
  const names = path
    .split("/")
    .slice(1)
    .map((segment) => segment.replace(/\.\d+$/, ""));
  return `${names[names.length - 1]}, for ${names[names.length - 2]}`;
}

/**
 * The agent whose tool raised the request: the last handle of a sub-agent's `data.path`
 * (`root/desk.1/billing.1` → `billing`), else the run's own agent. A configuration error about
 * the request's rules names this one, the agent whose tool it is.
 */
export function askingAgentOf(request: { data?: unknown }, runAgent: string): string {
  const path = childPathOf((request.data as { path?: unknown } | undefined)?.path);
  if (!path) {
    return runAgent;
  }
  return (path.split("/").at(-1) ?? runAgent).replace(/\.\d+$/, "");
}
