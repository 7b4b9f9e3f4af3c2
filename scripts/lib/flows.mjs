/**
 * The approval story, step by step, shared by `npm run demo`, `npm run check:dev` and
 * the browser test: start a run with a callbackUrl, see it suspend, receive the signed
 * notification, decide by a signed webhook, see it finish. Each step is narrated
 * through `say` and checked; a failed check throws with what was seen instead.
 */
import { isFinished, isPending } from "./api.mjs";

export class FlowError extends Error {}

function check(condition, message) {
  if (!condition) {
    throw new FlowError(message);
  }
}

const quote = (text) => JSON.stringify(text);

/**
 * Starts a run and waits until it is pending and its notification has arrived.
 * @returns {{ runId, threadId, run, notification }}
 */
export async function startAndSuspend({ client, receiver, input, threadId, say = () => {} }) {
  const started = await client.startRun({
    agent: "support",
    input,
    callbackUrl: receiver.url,
    ...(threadId ? { threadId } : {}),
  });
  const { runId } = started.body;
  say(`POST /v1/runs ${quote(input)} → ${started.status}, run ${runId} (${started.body.status})`);

  const run = await client.waitFor(runId, isPending);
  const request = run.pending;
  say(
    `suspended: status ${run.status}, ${request.kind} request ${request.id}: ${quote(request.prompt)}`,
  );
  say(
    `  arguments ${JSON.stringify(request.data?.args ?? {})}, expires ${run.expiresAt ?? "never"}`,
  );

  const notification = await receiver.next();
  check(
    notification.verified.ok,
    `the notification's signature did not verify: ${notification.verified.reason}`,
  );
  const note = notification.json;
  check(
    note?.type === "run.pending" && note.runId === runId && note.request?.id === request.id,
    `the notification does not describe this request: ${notification.body.slice(0, 300)}`,
  );
  say(
    `notification at ${receiver.url}: ${note.type}, signature verified (webhook-id ${notification.id})`,
  );
  say(`  decisionUrl ${note.decisionUrl}`);
  // A request with approver rules carries no anonymous link: approvers ask for a personal one.
  say(
    note.approvalUrl
      ? `  approvalUrl ${note.approvalUrl.slice(0, 60)}…`
      : `  no anonymous link (approver rules: ${JSON.stringify(request.data?.approvers)}); personal links from ${note.linksUrl}`,
  );
  return { runId, threadId: started.body.threadId, run, notification: note };
}

/** Sends a signed decision for the run's pending request and waits for the run to finish. */
export async function decideAndFinish({
  client,
  runId,
  requestId,
  decision,
  reason,
  // A support lead: the demo's rules let them decide account deletions; requests without
  // rules just record the name.
  decidedBy = "lead@example.com",
  say = () => {},
}) {
  const response = await client.decide({
    runId,
    requestId,
    decision,
    ...(reason ? { reason } : {}),
    decidedBy,
  });
  check(
    response.status === 202,
    `POST /v1/decisions answered ${response.status}, expected 202: ${JSON.stringify(response.body)}`,
  );
  say(`POST /v1/decisions (signed, ${decision}) → ${response.status}`);

  const replay = await client.decide({
    runId,
    requestId,
    decision,
    ...(reason ? { reason } : {}),
    decidedBy,
  });
  check(
    replay.status === 200 && replay.body.duplicate === true,
    `a repeated decision answered ${replay.status}: ${JSON.stringify(replay.body)}`,
  );
  say(`the same decision again → ${replay.status} (duplicate, applied once)`);

  const run = await client.waitFor(runId, isFinished);
  say(
    `finished: status ${run.status}, ${run.turns} turns, ${run.usage.totalTokens} tokens, final text ${quote(run.text)}`,
  );
  return run;
}

/** The approve story of `npm run check:dev`: "Please delete my account", approved by webhook. */
export async function approveFlow({ client, receiver, say }) {
  const { runId, run } = await startAndSuspend({
    client,
    receiver,
    input: "Please delete my account",
    say,
  });
  check(
    run.pending.data?.tool === "delete_account",
    `expected an approval for delete_account, got ${JSON.stringify(run.pending)}`,
  );
  const done = await decideAndFinish({
    client,
    runId,
    requestId: run.pending.id,
    decision: "approve",
    say,
  });
  check(
    done.status === "done" && done.text === "Done: Account deleted",
    `expected done with "Done: Account deleted", got ${done.status}: ${quote(done.text)}${done.error ? ` (${done.error.code}: ${done.error.message})` : ""}`,
  );
  return done;
}
