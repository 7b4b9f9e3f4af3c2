/**
 * Edited arguments (docs/architecture.md §6): checked against the tool as the agent defines it
 * before the edit counts. The tool's input schema must accept them, the gate's policy
 * must not refuse them, and they must not need other approvers than the request has —
 * an approver may not edit $5,000 into $50,000 past a $10,000 policy, nor into an amount
 * that needs a second signature.
 */
import type { Request } from "../../src/core/types";
import { canonicalJson } from "../../src/core/schema/canonical-json";
import { validateArgs } from "../../src/core/schema";
import { approvalGate } from "../../src/core/tools/approval";
import { rulesOf } from "../../src/core/approvers/rules";
import { agentTools, type AgentDefinition } from "../../src/edge/agent";
import type { DecisionOutcome } from "../../src/edge/protocol";
import { toolOf } from "./votes";
import { type EditRun, editPolicyRefusal } from "./edit-policy";

type Refusal = Extract<DecisionOutcome, { ok: false }>;

/** Undefined when the edit may count; else the 400 to answer. */
export async function checkEdit(edit: {
  agent: AgentDefinition | undefined;
  env: unknown;
  request: Request;
  args: Record<string, unknown>;
  /** The run, for the agent's `policy` and `AUTHZEN_URL` to judge the edit (docs/policy.md). */
  run?: EditRun;
  groupExists?: (group: string) => boolean;
}): Promise<Refusal | undefined> {
  const { agent, env, request, args } = edit;
  const name = toolOf(request);
  const tool = agent && (await agentTools(agent, env)).find((t) => t.name === name);
  if (!tool) {
    // MCP tools are not in the agent's own list: their schemas live on a server.
    return refused("edit_refused", `the arguments of ${name} cannot be edited here`);
  }
  const unknown = keysOutside(tool.inputSchema, args);
  if (unknown.length > 0) {
    return {
      ok: false,
      code: "invalid_args",
      message: `args name keys the input schema of ${name} does not have: ${unknown.map((k) => JSON.stringify(k)).join(", ")}`,
      issues: unknown.map((k) => `${k}: not in the input schema`),
    };
  }
  const valid = validateArgs(tool.inputSchema, args);
  if (!valid.ok) {
    return {
      ok: false,
      code: "invalid_args",
      message: `args do not match the input schema of ${name}`,
      issues: valid.problems,
    };
  }
  const gate = approvalGate(tool);
  if (!gate) {
    return undefined;
  }
  if (agent && edit.run) {
    const byPolicy = await editPolicyRefusal({
      agent,
      env,
      tool: name,
      gate,
      request,
      args,
      run: edit.run,
      ...(edit.groupExists ? { groupExists: edit.groupExists } : {}),
    });
    if (byPolicy) {
      return refused("edit_refused", byPolicy);
    }
  }
  let rules: unknown;
  try {
    const answer = gate.policy(args, request);
    if (answer && !answer.ok) {
      return refused(
        "edit_refused",
        `the policy refuses the edited arguments: ${answer.reason ?? "declined"}`,
      );
    }
    rules = gate.rulesFor(args);
  } catch (error) {
    return refused(
      "edit_refused",
      `the edited arguments could not be checked: ${(error as Error).message}`,
    );
  }
  if (canonicalJson(rules ?? null) !== canonicalJson(rulesOf(request) ?? null)) {
    return refused(
      "edit_refused",
      `the edited arguments need other approvers (${JSON.stringify(rules ?? "none")}); ask for a new request instead`,
    );
  }
  return undefined;
}

/**
 * Keys an edit adds that the tool's schema does not declare. An approver edits the
 * arguments the tool takes; a schema that leaves extra keys open does not make an added
 * key (`approvers`, `constructor`) one of them.
 */
function keysOutside(schema: Record<string, unknown>, args: Record<string, unknown>): string[] {
  const properties = schema.properties;
  if (typeof properties !== "object" || properties === null) {
    return [];
  }
  return Object.keys(args).filter((k) => !Object.hasOwn(properties, k));
}

function refused(code: "edit_refused", message: string): Refusal {
  return { ok: false, code, message };
}
