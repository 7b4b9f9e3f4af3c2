/**
 * An agent's policies checked before the edge serves (configCheck): a policy that cannot be
 * read (a Cedar syntax error, named by line) or that may ask a group nobody defined is a
 * `500 config_error` on every request, not a surprise at the first call.
 */
import type { AgentDefinition } from "../agent";
import type { ApproverDirectory } from "../approvals/groups";
import { ConfigError } from "../config-error";

export async function checkAgentPolicies(
  agent: AgentDefinition,
  directory: ApproverDirectory,
): Promise<void> {
  for (const [what, policy] of [
    ["policy", agent.policy],
    ["shadowPolicy", agent.shadowPolicy],
  ] as const) {
    if (!policy?.check) {
      continue;
    }
    let groups: string[];
    try {
      ({ groups } = await policy.check());
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new ConfigError(`agent ${agent.name}: ${what}: ${message}`, { cause: error });
    }
    for (const group of groups) {
      if (!directory.groups.has(group)) {
        throw new ConfigError(
          `agent ${agent.name}: ${what} ${policy.id} asks group ${JSON.stringify(group)}, which is not defined (APPROVER_GROUPS)`,
        );
      }
    }
  }
}
