/**
 * What happens to a request suspended under one version of its agent when it is decided or
 * resumed under another (docs/versions.md). One pure
 * decision, so the ledger (a decision arriving) and the driver (a resume) agree by construction:
 * neither lets a tool run with arguments its current schema rejects.
 *
 * Under `"continue"` the rules stored with the request keep governing it; only migrated
 * arguments are put to the current gate again (policy and approver rules).
 */
import { canonicalJson } from "../../core/schema/canonical-json";
import { argsHash } from "../../core/approvers/args-hash";
import { quorumOf, rulesOf, type Rules } from "../../core/approvers/rules";
import { mcpToolName } from "../../core/mcp/config";
import { validateArgs } from "../../core/schema";
import { approvalGate } from "../../core/tools/approval";
import type { Request, Tool } from "../../core/types";
import type { AgentDefinition } from "../agent";
import { foldReason } from "../approvals/refusal";
import { mcpServers } from "./agent-version";
import type { OnVersionChange, VersionChangeVerdict } from "./types";

export interface VersionCheckInput {
  /** The agent as deployed now. */
  agent: Pick<AgentDefinition, "name" | "mcp" | "onVersionChange">;
  /** `agentVersion(agent, env)` now (the caller computes and may cache it). */
  currentVersion: string;
  /**
   * The tools as deployed now: `agentTools(agent, env)`, or the run's toolkit's tools (which
   * include connected MCP tools, so their schemas are checked too).
   */
  tools: readonly Tool[];
  /** The request as stored at suspension. */
  request: Request;
  /** The version recorded with the request; null for one suspended before versions existed. */
  requestVersion: string | null;
  /** The suspended call's tool. */
  tool: string;
  /** The arguments up for decision: the stored ones, or the approved edit. */
  args: Record<string, unknown>;
}

/** Fields every outcome but `same` carries: which versions met. */
interface Versions {
  from: string | null;
  to: string;
}

/**
 * What the ledger or driver does with the request:
 * - `same`: the version did not change; apply as always.
 * - `continue`: changed, compatible; resume with `args` as they are.
 * - `migrate`: resume with `args` (the migration's), whose version is `argsHash`; the answer
 *   carries them as `data.args`, and the receipt's `argsHash` is this one.
 * - `reask`: the rule for the migrated arguments needs someone the stored rule does not (another
 *   group or `anyOf`, a higher quorum, another escalation, or a rule where anyone could decide):
 *   the request is superseded, closed with `reason`, and the call asks `request` (the gate's
 *   request for `args`, under the next id, `data.supersedes` naming the old one) of the new
 *   rule's approvers. The approvers who decided under the old rule never stand for the new one.
 * - `decline`: decline the request with `reason` (it starts with `agent_changed: `); a
 *   decision arriving for it is answered `409 agent_changed`.
 */
export type VersionCheck =
  | { kind: "same" }
  | (Versions & { kind: "continue"; args: Record<string, unknown> })
  | (Versions & { kind: "migrate"; args: Record<string, unknown>; argsHash: string })
  | (Versions & {
      kind: "reask";
      args: Record<string, unknown>;
      argsHash: string;
      rules: Rules | undefined;
      /** The request the call asks instead (its id: {@link nextRequestId}). */
      request: Request;
      /** Why the old request is superseded (`agent_changed: …`). */
      reason: string;
    })
  | (Versions & { kind: "decline"; reason: string });

/** The reasons' common prefix, and the code a decision for such a request is refused with. */
export const AGENT_CHANGED = "agent_changed";

/**
 * Decides, per the agent's `onVersionChange`, whether a request suspended under
 * `requestVersion` may go on under `currentVersion`.
 * @example
 * const check = await checkVersionChange({ agent, currentVersion, tools, request, requestVersion, tool, args });
 * if (check.kind === "decline") return answerDeclined(request.id, check.reason);
 */
export async function checkVersionChange(input: VersionCheckInput): Promise<VersionCheck> {
  const from = input.requestVersion;
  const to = input.currentVersion;
  if (from === to) {
    return { kind: "same" };
  }
  const versions: Versions = { from, to };
  const mode: OnVersionChange = input.agent.onVersionChange ?? "continue";
  const current = input.tools.find((t) => t.name === input.tool);
  const remote = !current && isConfiguredMcpTool(input.agent, input.tool);
  if (!current && !remote) {
    return decline(versions, `the tool ${input.tool} no longer exists`);
  }
  // A request from before versions were recorded cannot be said to have met another version:
  // "decline" would refuse every run paused across the upgrade that introduced versions.
  if (mode === "decline" && from !== null) {
    return decline(
      versions,
      `agent ${input.agent.name} is now version ${to}, the request was made under ${from}`,
    );
  }
  let verdict: VersionChangeVerdict = "continue";
  if (typeof mode === "function") {
    try {
      verdict = await mode({ from, to, request: input.request, args: input.args });
    } catch (error) {
      return decline(versions, `onVersionChange failed: ${(error as Error).message}`);
    }
  }
  if (verdict === "decline") {
    return decline(versions, `onVersionChange declined the request (version ${from} → ${to})`);
  }
  if (verdict === "continue") {
    const problems = current ? schemaProblems(current, input.args) : [];
    return problems.length > 0
      ? decline(versions, `the input schema of ${input.tool} rejects the arguments: ${problems}`)
      : { ...versions, kind: "continue", args: input.args };
  }
  if (!isArgs(verdict)) {
    return decline(
      versions,
      `onVersionChange returned ${describe(verdict)}; expected "continue", "decline" or { args }`,
    );
  }
  return migrated({ versions, input, tool: current, raw: verdict.args });
}

/** What a migration returned, and what it is checked against. */
interface Migration {
  versions: Versions;
  input: VersionCheckInput;
  /** The tool as deployed now (undefined: a remote MCP tool not connected here). */
  tool: Tool | undefined;
  /** The arguments the migration function returned. */
  raw: Record<string, unknown>;
}

/** Migrated arguments: checked against the current schema, policy and rules like an edit. */
function migrated(migration: Migration): VersionCheck {
  const { versions, input, tool, raw } = migration;
  // A JSON copy: the arguments are stored and hashed, so they must survive a round trip as they are.
  let args: Record<string, unknown>;
  try {
    args = JSON.parse(JSON.stringify(raw)) as Record<string, unknown>;
  } catch (error) {
    return decline(versions, `the migrated arguments are not JSON: ${(error as Error).message}`);
  }
  const hash = argsHash(args);
  if (!tool) {
    // A remote MCP tool not connected here: its server validates the arguments when it runs.
    return { ...versions, kind: "migrate", args, argsHash: hash };
  }
  const problems = schemaProblems(tool, args);
  if (problems.length > 0) {
    return decline(
      versions,
      `the input schema of ${tool.name} rejects the migrated arguments: ${problems}`,
    );
  }
  const gate = approvalGate(tool);
  if (!gate) {
    return { ...versions, kind: "migrate", args, argsHash: hash };
  }
  // Asked only when the rule needs other approvers: the request the call then asks instead.
  let next: Request | undefined;
  try {
    const answer = gate.policy(args, input.request);
    if (answer && !answer.ok) {
      return decline(
        versions,
        `the policy refuses the migrated arguments: ${answer.reason ?? "declined"}`,
      );
    }
    if (
      gate.needsApproval(args) &&
      needsOtherApprovers(rulesOf(input.request), gate.rulesFor(args))
    ) {
      const asked = gate.requestFor(args, nextRequestId(input.request.id));
      next = { ...asked, data: { ...asked.data, supersedes: input.request.id } };
    }
  } catch (error) {
    return decline(
      versions,
      `the migrated arguments could not be checked: ${(error as Error).message}`,
    );
  }
  if (!next) {
    return { ...versions, kind: "migrate", args, argsHash: hash };
  }
  return {
    ...versions,
    kind: "reask",
    args,
    argsHash: hash,
    rules: rulesOf(next),
    request: next,
    reason: `${AGENT_CHANGED}: the migrated arguments of ${tool.name} need other approvers`,
  };
}

/**
 * Whether the rule `next` asks for someone the stored rule does not let decide: a rule where
 * anyone could decide before, another group or `anyOf`, a higher quorum, or another escalation.
 * A rule that asks less (no rule, a lower quorum, a later or no escalation, other editable keys
 * or reminders) does not: the stored, stricter rule keeps governing the request.
 */
export function needsOtherApprovers(stored: Rules | undefined, next: Rules | undefined): boolean {
  if (next === undefined) {
    return false;
  }
  if (stored === undefined) {
    return true;
  }
  return (
    stored.group !== next.group ||
    canonicalJson([...(stored.anyOf ?? [])].sort()) !==
      canonicalJson([...(next.anyOf ?? [])].sort()) ||
    quorumOf(next) > quorumOf(stored) ||
    (stored.escalate !== undefined &&
      canonicalJson(stored.escalate) !== canonicalJson(next.escalate ?? null))
  );
}

/**
 * The id a superseded request's successor is asked under: `<id>_ask2`, then `_ask3`, … on the
 * same call (never `_r<n>`: notification ids append that for reminders).
 * @example nextRequestId("apr_call_1") // "apr_call_1_ask2"; nextRequestId("apr_call_1_ask2") // "apr_call_1_ask3"
 */
export function nextRequestId(id: string): string {
  const asked = /^(.*)_ask(\d+)$/.exec(id);
  return asked ? `${asked[1]}_ask${Number(asked[2]) + 1}` : `${id}_ask2`;
}

function schemaProblems(tool: Tool, args: Record<string, unknown>): string {
  const valid = validateArgs(tool.inputSchema, args);
  return valid.ok ? "" : valid.problems.join("; ");
}

/** Whether `name` is a tool of an MCP server the agent is still configured with. */
function isConfiguredMcpTool(agent: Pick<AgentDefinition, "mcp">, name: string): boolean {
  return mcpServers(agent).some(
    (server) => server.enabled && name.startsWith(mcpToolName(server.name, "")),
  );
}

function decline(versions: Versions, what: string): VersionCheck {
  return { ...versions, kind: "decline", reason: foldReason(`${AGENT_CHANGED}: ${what}`) };
}

function isArgs(value: unknown): value is { args: Record<string, unknown> } {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const args = (value as { args?: unknown }).args;
  return typeof args === "object" && args !== null && !Array.isArray(args);
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, 80) ?? String(value);
  } catch {
    return typeof value;
  }
}
