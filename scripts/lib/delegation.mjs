/**
 * The delegation story (issue 24), shared by `npm run demo` and test/dev/subagents.test.mjs:
 * the `coordinator` hands "Refund $1200 on order 42" to `lookup` and `refunds` in one turn;
 * `lookup` finishes, `refunds` waits on its four-eyes approval (two of finance) while the
 * coordinator waits in the thread's Durable Object; two signed webhook votes decide it, the
 * answer goes to `refunds`, and the coordinator finishes with both results.
 */
import { isPending } from "./api.mjs";

export const DELEGATED_TICKET = "Refund $1200 on order 42";

const treeLine = (tree) =>
  tree
    .map((h) => `${h.handle} ${h.state}${h.pending ? ` (waits on ${h.pending.id})` : ""}`)
    .join("; ");

/** Returns what a caller checks: the pending run, the votes' answers, the finished run. */
export async function delegationFlow({ client, say = () => {} }) {
  const { runId, pending, request } = await startDelegation({ client, say });
  const { votes, done } = await decideDelegation({ client, runId, request, say });
  return { runId, pending, request, votes, done };
}

/** The coordinator's run, once it is pending on the child's request. */
export async function startDelegation({ client, say = () => {} }) {
  const { body } = await client.startRun({ agent: "coordinator", input: DELEGATED_TICKET });
  const pending = await client.waitFor(body.runId, isPending);
  const request = pending.pending;
  say(
    `run ${body.runId} is pending on ${request.id}, asked by ${[request.data?.path].flat().join("/")}`,
  );
  say(`tree: ${treeLine(pending.tree ?? [])}`);
  return { runId: body.runId, pending, request };
}

/** Two finance votes by signed webhook, then the run once it has finished. */
export async function decideDelegation({ client, runId, request, say = () => {} }) {
  const votes = [];
  for (const decidedBy of ["ann@example.com", "bob@example.com"]) {
    const response = await client.decide(
      // Bound to the version of the arguments the approvers saw, as a real approver's vote is.
      { runId, requestId: request.id, decision: "approve", decidedBy, argsHash: request.argsHash },
      { expect: [202] },
    );
    votes.push(response.body);
    say(
      `${decidedBy} approves (signed webhook) → votes ${response.body.votes} of ${response.body.needed}`,
    );
  }
  const done = await client.waitFor(runId, (r) => r.status !== "pending" && r.status !== "running");
  say(`tree: ${treeLine(done.tree ?? [])}`);
  say(`final text: ${JSON.stringify(done.text)}`);
  return { votes, done };
}
