/**
 * A decision arriving for a request suspended under another version of its agent
 * (src/edge/versions/version-check.ts decides what happens): an approval of a request the
 * current version declines declines it with that reason, recorded (./decline.ts), and is
 * answered `409 agent_changed` — once the ledger would have let this approver decide it at all
 * (an outsider, an expired request or stale arguments are answered as always and change
 * nothing); migrated arguments become the answer's `data.args`, put there by the ledger (so the
 * receipt's `argsHash` and the tool's arguments are the migrated ones), also under approver
 * rules. Migrated arguments that need other approvers are
 * asked again (./reask.ts): the approval that found it out is not recorded (it was of the old
 * request), and the object answers it `409 request_not_pending` naming the new request. Asked
 * before the ledger's synchronous pass.
 */
import { argsHash } from "../../src/core/approvers/args-hash";
import { rulesOf } from "../../src/core/approvers/rules";
import { currentArgs } from "../../src/core/approvers/vote";
import { argsInData } from "../../src/core/approvers/edit-fields";
import type { Request } from "../../src/core/types";
import { agentTools } from "../../src/edge/agent";
import type { DecisionInput, DecisionOutcome } from "../../src/edge/protocol";
import { agentVersion } from "../../src/edge/versions/agent-version";
import { AGENT_CHANGED, checkVersionChange } from "../../src/edge/versions/version-check";
import { openRequests } from "../storage/open-requests";
import type { RunRow } from "../storage/run-store";
import { pathOf } from "../agents/tree";
import { checkApprover } from "../ledger/request-view";
import { requestVersion } from "./request-version";
import { expired } from "../ledger/votes";
import type { ThreadContext } from "../thread/context";
import type { Reask } from "./reask";
import type { VersionDecline } from "./decline";

/**
 * A refusal to answer, the input to record (changed only by a migration) and the agent
 * version it was checked under (stored with the decision, so the driver that applies it checks
 * again only when another deploy came in between: ./resume-check.ts), or the request to ask
 * instead.
 */
export type VersionGate =
  | { refused: DecisionOutcome }
  | { input: DecisionInput; version?: string; migrated?: Record<string, unknown> }
  | { reask: Reask }
  | { decline: VersionDecline };

export async function versionGate(t: ThreadContext, input: DecisionInput): Promise<VersionGate> {
  const run = t.store.run(input.runId);
  const agent = run && t.agents.get(run.agent);
  const request = run && openRequests(t.store, run).find((r) => r.id === input.requestId);
  // Unknown run or request, an already decided one: the ledger answers as always.
  if (!run || !agent || !request || t.store.decision(request.id)) {
    return { input };
  }
  const version = await agentVersion(agent, t.env);
  const asked = requestVersion(t.store, run, request);
  // A run from before versions were recorded: nothing to compare with.
  if (!asked) {
    return { input, version };
  }
  const tool = request.data?.tool;
  // Only an approval lets a tool run (a refusal is always let through); a sub-agent's request
  // is about its own agent's tool, not one of this agent's.
  if (typeof tool !== "string" || input.decision !== "approve" || pathOf(request)) {
    return { input, version };
  }
  const votes = t.votes.votes(request.id);
  const args = (input.args as Record<string, unknown> | undefined) ?? currentArgs(request, votes);
  const check = await checkVersionChange({
    agent,
    currentVersion: version,
    tools: await agentTools(agent, t.env),
    request,
    requestVersion: asked,
    tool,
    args,
  });
  if (check.kind === "decline") {
    return (
      ledgerRefuses(t, { run, request, input }) ?? {
        decline: { run, request, reason: check.reason, version },
      }
    );
  }
  if (check.kind === "reask") {
    const { reason } = check;
    return (
      reaskBlocked(t, { run, request, input }) ?? {
        reask: { run, request, next: check.request, reason, version },
      }
    );
  }
  if (check.kind === "migrate") {
    // The ledger puts the migrated arguments on the answer this decision settles
    // (../ledger/version-change.ts withLedgerArgs), never through the caller's `data`: a
    // caller's `data.args` is refused there, so there is one way to change what runs.
    return { input, version, migrated: check.args };
  }
  return { input, version }; // `continue`, `same`
}

/**
 * Why this approval may not start a re-ask, in the ledger's order of checks: an expired request,
 * a decider the stored rule does not let decide, an approval of other arguments than those now
 * up, or one whose `data` carries `args` (the ledger refuses those as always: `{ input }`); an
 * edit, which would hand the new rule's approvers arguments nobody may ask for (`400
 * edit_refused`); an MCP elicitation waited for inline (no call to ask again: `409
 * agent_changed`).
 */
function reaskBlocked(
  t: ThreadContext,
  ask: { run: RunRow; request: Request; input: DecisionInput },
): VersionGate | undefined {
  const refused = ledgerRefuses(t, ask);
  if (refused) {
    return refused;
  }
  const { run, request, input } = ask;
  if (input.args !== undefined) {
    const message = `the edited arguments of ${request.id}, migrated to the agent's current version, need other approvers: approve without an edit, and they are asked`;
    return { refused: { ok: false, code: "edit_refused", message } };
  }
  if (run.inlineRequest?.id === request.id) {
    const message = `${AGENT_CHANGED}: the migrated arguments need other approvers, and ${request.id} cannot be asked again`;
    return { refused: { ok: false, code: AGENT_CHANGED, message } };
  }
  return undefined;
}

/**
 * `{ input }` when the ledger refuses this approval whatever the version (it then answers as
 * always and nothing changes): an expired request, a decider the stored rule does not let
 * decide, an approval of other arguments than those now up. Nobody but those who may decide a
 * request can make the version check close it.
 */
function ledgerRefuses(
  t: ThreadContext,
  ask: { run: RunRow; request: Request; input: DecisionInput },
): VersionGate | undefined {
  const { run, request, input } = ask;
  const now = Date.now();
  if (expired(run, request, now)) {
    return { input };
  }
  if (rulesOf(request)) {
    const deps = { store: t.store, votes: t.votes, directory: t.directory() };
    const approver = input.decidedBy ?? "";
    const may =
      approver.trim() !== "" &&
      checkApprover(deps, { runId: run.runId, requestId: request.id, approver, now }).ok;
    if (!may) {
      return { input };
    }
  }
  const shown = argsHash(currentArgs(request, t.votes.votes(request.id)));
  if (input.argsHash !== undefined && input.argsHash !== shown) {
    return { input };
  }
  if (argsInData(request, input.data)) {
    return { input }; // the ledger refuses it (400 invalid_data): no re-ask for it
  }
  return undefined;
}
