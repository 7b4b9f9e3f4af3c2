#!/usr/bin/env node
/**
 * `npm run demo`: the whole story against a RUNNING dev server (`npm start` in another
 * terminal; DEMO_URL overrides http://localhost:8787). Credentials come from .dev.vars,
 * as wrangler reads them (else .dev.vars.example).
 *
 * `npm run demo -- --start` (CI, .ci/run): starts its own `wrangler dev` on a free port
 * with the test configuration (scripts/lib/dev-server.mjs), runs the story against it and
 * stops it. Either way a failed step prints FAIL and exits non-zero.
 *
 *   1. approve — "Please delete my account": suspend, signed notification, signed approve, done
 *   2. decline — "Refund order 42 for $120": suspend, signed decline with a reason, done
 *   3. expiry  — a refund on a thread of our choosing: the request carries expiresAt and
 *                the thread's alarm will decline it as "expired" (not waited for: 15 min,
 *                or DEMO_APPROVAL_TIMEOUT in .dev.vars)
 *   4. four eyes — "Refund order 42 for $2000": two of finance; an outsider is refused, the
 *                first vote waits, an edit of the amount resets it, the second vote applies it
 *      undo    — the approved refund is then undone ("wrong order"): its compensation reverses it
 *                and the run ends `compensated`, with a `compensated` receipt
 *   5. inbox   — the approvals inbox across threads, and a sign-in link for a demo approver
 *   6. delegation — the `coordinator` hands a $1,200 refund to its `refunds` sub-agent and an
 *                order lookup to `lookup`; the child's four-eyes approval is decided while the
 *                coordinator waits, then it finishes with both results
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { createClient } from "./lib/api.mjs";
import { RUNTIME_ERROR, startDevServer } from "./lib/dev-server.mjs";
import { DEV_VARS_EXAMPLE, devCredentials, parseDotenv } from "./lib/dev-vars.mjs";
import { decideAndFinish, FlowError, startAndSuspend } from "./lib/flows.mjs";
import { startReceiver } from "./lib/receiver.mjs";
import { delegationFlow } from "./lib/delegation.mjs";

const ownServer = process.argv.includes("--start");
// `--start`: a server of our own, stopped on every way out (fail() exits through "exit").
const server = ownServer
  ? await startDevServer({ timeoutMs: 60_000, log: (line) => console.log(line) }).catch((error) => {
      console.error(`\nFAIL: ${error.message}`);
      process.exit(1);
    })
  : undefined;
const baseUrl = (server?.url ?? process.env.DEMO_URL ?? "http://localhost:8787").replace(
  /\/+$/,
  "",
);
const credentials = server
  ? {
      file: "the test configuration of --start",
      apiToken: server.apiToken,
      webhookSecrets: server.webhookSecrets,
      notifySecrets: server.notifySecrets,
    }
  : devCredentials();
const client = createClient({
  baseUrl,
  apiToken: credentials.apiToken,
  webhookSecret: credentials.webhookSecrets[0],
});

const heading = (text) => console.log(`\n== ${text}`);
/** The run's (first) tool message, exactly as the model received it. */
async function toolMessage(runId) {
  const run = await client.getRun(runId, "?transcript=true");
  return run.transcript?.find((m) => m.role === "tool")?.content ?? "(no tool message)";
}
const say = (line) => console.log(`   ${line}`);
function fail(message) {
  console.error(`\nFAIL: ${message}`);
  process.exit(1);
}
function expect(actual, wanted, what) {
  if (actual !== wanted) {
    throw new FlowError(
      `${what}: expected ${JSON.stringify(wanted)}, got ${JSON.stringify(actual)}`,
    );
  }
  say(`✓ ${what}`);
}

// 0. Is anybody there?
try {
  await client.health();
} catch (error) {
  const cause = error.cause?.code ?? error.cause?.message ?? error.message;
  fail(
    `no toolnexus-edge dev server answers at ${baseUrl} (${cause}).\n` +
      "      Start it in another terminal with `npm start` (wrangler dev), or point DEMO_URL at a running one.",
  );
}
console.log(
  `toolnexus-edge demo against ${baseUrl} (credentials from ${path.basename(credentials.file)})`,
);
const agents = await client.agents({ expect: [200, 401] }).catch((error) => fail(error.message));
if (agents.status === 401) {
  fail(
    `the server rejected API_TOKEN from ${path.basename(credentials.file)} (401): is it running with the same .dev.vars?`,
  );
}

const receiver = await startReceiver({ secrets: credentials.notifySecrets });
say(`callback receiver listening at ${receiver.url} (verifies Standard Webhooks signatures)`);

try {
  heading("1. Approve: an account deletion always needs a person");
  {
    const { runId, run } = await startAndSuspend({
      client,
      receiver,
      input: "Please delete my account",
      say,
    });
    const done = await decideAndFinish({
      client,
      runId,
      requestId: run.pending.id,
      decision: "approve",
      say,
    });
    expect(done.text, "Done: Account deleted", "the tool ran after approval");
  }

  heading("2. Decline: a refund over $50 needs approval, and the approver says no");
  {
    const { runId, run } = await startAndSuspend({
      client,
      receiver,
      input: "Refund order 42 for $120",
      say,
    });
    const reason = "order 42 was already refunded";
    const done = await decideAndFinish({
      client,
      runId,
      requestId: run.pending.id,
      decision: "decline",
      reason,
      say,
    });
    expect(
      done.text,
      `Understood — I did not refund $120 on order 42 because it was declined (${reason}).`,
      "the model saw the refusal and its reason; the tool never ran",
    );
    say("what the model was told (the tool result, as sent over the wire):");
    for (const line of (await toolMessage(runId)).split("\n")) {
      say(`  | ${line}`);
    }
  }

  heading("3. Expiry: nobody answers");
  {
    const threadId = `demo-expiry-${Date.now().toString(36)}`;
    say(`a thread of our choosing: threadId ${threadId}`);
    const { runId, run, notification } = await startAndSuspend({
      client,
      receiver,
      input: "Refund order 7 for $80",
      threadId,
      say,
    });
    if (!run.expiresAt) {
      throw new FlowError("the pending request has no expiresAt");
    }
    expect(
      notification.expiresAt,
      run.expiresAt,
      "the notification carries the same expiresAt as the run",
    );
    const minutes = ((Date.parse(run.expiresAt) - Date.now()) / 60_000).toFixed(1);

    const busy = await client.startRun(
      { agent: "support", input: "hello", threadId },
      { expect: [409] },
    );
    say(
      `another run on ${threadId} → ${busy.status} ${busy.body.error.code}: one active run per thread while it waits`,
    );

    say("");
    say(
      `The request expires at ${run.expiresAt} (in ${minutes} min: the support agent's approvalTimeout, 15 min unless DEMO_APPROVAL_TIMEOUT is set).`,
    );
    say(
      "The demo does not wait (to watch it: DEMO_APPROVAL_TIMEOUT=1m in .dev.vars, restart wrangler dev). Then the thread's",
    );
    say(
      'Durable Object armed an alarm for expiresAt; when it fires it records the decision "expire"',
    );
    say(
      `(channel "expiry") and resumes the loop with answerDeclined("${run.pending.id}", "expired").`,
    );
    say("The tool does not run; the run ends done with the text:");
    say(`  "The approval request expired, so I did not refund $80 on order 7."`);
    say(
      "Until then the approval link and the decisions webhook still work. To see it expire, after that time:",
    );
    const token =
      credentials.apiToken === parseDotenv(readFileSync(DEV_VARS_EXAMPLE, "utf8")).API_TOKEN
        ? credentials.apiToken
        : "$API_TOKEN";
    say(`  curl -s -H "authorization: Bearer ${token}" ${baseUrl}/v1/runs/${runId}`);
  }

  heading("4. Four eyes: refunds over $1,000 need two members of finance, who may edit the amount");
  {
    const { runId, run } = await startAndSuspend({
      client,
      receiver,
      input: "Refund order 42 for $2000",
      say,
    });
    const requestId = run.pending.id;
    // A vote is bound to the version of the arguments its approver saw (`argsHash`, on the
    // run's pending request): each approver reads the request, then votes on that version.
    // (GET /v1/runs: `requests[]` has the arguments now up for approval, edits included.)
    const current = async () => {
      const view = await client.getRun(runId);
      return view.requests.find((r) => r.requestId === requestId) ?? view.pending;
    };
    const vote = async (decidedBy, { args, argsHash } = {}) => {
      const response = await client.decide(
        {
          runId,
          requestId,
          decision: "approve",
          decidedBy,
          ...(args ? { args } : {}),
          ...(argsHash ? { argsHash } : {}),
        },
        { expect: [200, 202, 400, 403, 409] },
      );
      const b = response.body;
      say(
        `${decidedBy}${args ? ` edits to ${JSON.stringify(args)}` : " approves"} → ${response.status} ${
          b.error
            ? `${b.error.code}: ${b.error.message}`
            : `votes ${b.votes} of ${b.needed}${b.decision ? " — applied" : " — waiting"}`
        }`,
      );
      return response;
    };
    const asked = await current();
    say(`the request's arguments ${JSON.stringify(asked.args)}, argsHash ${asked.argsHash}`);
    expect(
      (await vote("eve@example.com", { argsHash: asked.argsHash })).status,
      403,
      "an outsider is refused (and kept on the record)",
    );
    expect(
      (await vote("ann@example.com", { argsHash: asked.argsHash })).body.decision,
      null,
      "the first approval waits for a second",
    );
    const edit = await vote("bob@example.com", {
      args: { orderId: "42", amount: 1500 },
      argsHash: asked.argsHash,
    });
    expect(
      edit.body.votes,
      1,
      "bob's edit resets ann's approval: his vote is the first for $1,500",
    );
    const stale = await vote("ann@example.com", { argsHash: asked.argsHash });
    expect(
      stale.body.error?.code,
      "args_changed",
      "ann's approval of the old version is refused: the arguments changed since she read them",
    );
    const edited = await current();
    say(`ann reads the request again: ${JSON.stringify(edited.args)}, argsHash ${edited.argsHash}`);
    expect(edited.args?.amount, 1500, "the request now asks for bob's amount");
    const applied = await vote("ann@example.com", { argsHash: edited.argsHash });
    expect(applied.body.votes, 2, "ann approves the edited amount: two of two, applied");
    const done = await client.waitFor(runId, (r) =>
      ["done", "failed", "incomplete"].includes(r.status),
    );
    expect(done.toolCalls[0]?.args?.amount, 1500, "the tool ran once, with the edited amount");
    say("what the model was told:");
    for (const line of (await toolMessage(runId)).split("\n")) {
      say(`  | ${line}`);
    }
    say(`final text: ${JSON.stringify(done.text)}`);

    // Undo (docs/undo.md): the approved refund was the wrong order; its compensation reverses it.
    const undo = await client.undo(runId, { reason: "wrong order", user: "ann@example.com" });
    say(`POST /v1/runs/:id/undo {"reason":"wrong order"} → ${undo.status}`);
    expect([200, 202].includes(undo.status), true, "the undo is accepted");
    let undone = await client.getRun(runId);
    for (let i = 0; i < 100 && undone.status !== "compensated"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      undone = await client.getRun(runId);
    }
    expect(undone.status, "compensated", "the run is compensated");
    for (const step of undone.undo.compensations) {
      say(`  ${step.tool}: ${step.status}${step.output ? ` — ${step.output}` : ""}`);
    }
  }

  heading("5. Inbox: everything waiting, across threads, for an approver");
  {
    // A sign-in link is for members of an approver group (finance, in .dev.vars.example).
    const approver = "ann@example.com";
    const { url, expiresAt } = await client.approverLink(approver);
    const inbox = await client.approvals("default");
    say(
      `GET /v1/approvals?group=default → ${inbox.items.length} open request(s), e.g. the refund above`,
    );
    say(`a sign-in link for ${approver} (valid until ${expiresAt}); open it in a browser:`);
    say(`  ${url}`);
    say("It shows the open requests with Approve / Decline (and a reason), then what was decided.");
  }

  heading("6. Delegation: a sub-agent's four-eyes refund, decided while its coordinator waits");
  {
    const { request, done } = await delegationFlow({ client, say });
    // data.path is the suspended subtree's segments, as the root sees it (SPEC §7D).
    expect(
      JSON.stringify(request.data?.path),
      JSON.stringify(["root", "coordinator.1", "refunds.1"]),
      "the request says which sub-agent asked",
    );
    expect(done.status, "done", "the coordinator finished with the child's result");
  }
} catch (error) {
  await receiver.close();
  if (error instanceof FlowError) {
    fail(error.message);
  }
  const hint = /no notification reached/.test(error.message)
    ? "\n      The worker must be able to reach this machine's 127.0.0.1 (true for a local `npm start`)."
    : "";
  fail(`${error.message}${hint}`);
}
await receiver.close();
// Our own server: a worker that broke at run time fails the demo even if every answer looked right.
const problem = server && RUNTIME_ERROR.exec(server.output());
if (problem) {
  fail(`wrangler dev logged a runtime error (${problem[0]}):\n${server.tail()}`);
}
await server?.stop();
console.log(
  "\nDemo complete: approved, declined, one request left to expire on its own (or to decide in the inbox).",
);
