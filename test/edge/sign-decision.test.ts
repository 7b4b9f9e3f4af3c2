/**
 * `toolnexus-edge sign-decision` against the worker: what it signs is what POST
 * /v1/decisions verifies (202), and the curl command it prints, taken apart as a shell
 * would, posts the same accepted decision. A wrong key's 401 says how the key is derived,
 * never showing one.
 */
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import {
  curlCommand,
  decisionsUrl,
  parseSignDecisionArgs,
  signDecision,
} from "../../src/cli/sign-decision";
import { BASE, WEBHOOK_SECRET, waitForStatus } from "../helpers/edge";
import { startPending } from "../helpers/durable";

function command(argv: string[]) {
  const parsed = parseSignDecisionArgs(argv);
  if (!parsed.ok) {
    throw new Error(parsed.error);
  }
  return parsed.command;
}

/** The words of a command line as a POSIX shell splits them (single quotes, `\` newlines). */
function shellWords(text: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      word = (word ?? "") + text.slice(i + 1, end);
      i = end;
    } else if (c === "\\") {
      if (text[i + 1] === "\n") {
        i += 1; // a line continuation
      } else {
        word = (word ?? "") + text[i + 1];
        i += 1;
      }
    } else if (/\s/.test(c)) {
      if (word !== null) {
        words.push(word);
      }
      word = null;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== null) {
    words.push(word);
  }
  return words;
}

describe("sign-decision against POST /v1/decisions", () => {
  it("signs an approval the worker accepts (202), and the run goes on", async () => {
    const { runId, request } = await startPending("Please refund $80 on order 42");
    const { decision } = command([
      "--run",
      runId,
      "--request",
      request.id,
      "--decision",
      "approve",
    ]);
    const signed = await signDecision(WEBHOOK_SECRET, decision);
    const response = await SELF.fetch(decisionsUrl(BASE), {
      method: "POST",
      headers: signed.headers,
      body: signed.body,
    });
    expect(response.status).toBe(202);
    expect(await waitForStatus(runId, ["done"])).toMatchObject({ status: "done" });
  });

  it("--args-hash approves arguments an approver edited; an old version is 409 args_changed", async () => {
    const { runId, request } = await startPending("Please refund $2000 on order 42");
    const post = async (argv: string[]) => {
      const signed = await signDecision(WEBHOOK_SECRET, command(argv).decision);
      return SELF.fetch(decisionsUrl(BASE), {
        method: "POST",
        headers: signed.headers,
        body: signed.body,
      });
    };
    const base = ["--run", runId, "--request", request.id, "--decision", "approve"];
    const edit = await post([...base, "--by", "bob", "--args", '{"orderId":"42","amount":1500}']);
    expect(edit.status).toBe(202);
    const stale = await post([...base, "--by", "ann@example.com", "--args-hash", request.argsHash]);
    expect(stale.status).toBe(409);
    const current = ((await stale.json()) as { argsHash: string }).argsHash;
    const approved = await post([...base, "--by", "ann@example.com", "--args-hash", current]);
    expect(approved.status).toBe(202);
    expect((await waitForStatus(runId, ["done"])).text).toContain("Refunded $1500");
  });

  it("the printed curl command, split as a shell would, posts an accepted decline", async () => {
    const { runId, request } = await startPending("Please refund $80 on order 42");
    const cmd = command([
      `--run=${runId}`,
      "--request",
      request.id,
      "--decision",
      "decline",
      "--reason",
      'it\'s not our policy; "no" $HOME `x`',
      "--url",
      `${BASE}/`,
    ]);
    const curl = curlCommand(cmd.url, await signDecision(WEBHOOK_SECRET, cmd.decision));
    const words = shellWords(curl);
    expect(words.slice(0, 3)).toEqual(["curl", "-s", `${BASE}/v1/decisions`]);
    const headers = new Headers();
    let body = "";
    for (let i = 3; i < words.length; i += 2) {
      if (words[i] === "-H") {
        const [name, ...value] = words[i + 1]!.split(": ");
        headers.set(name!, value.join(": "));
      } else if (words[i] === "--data-binary") {
        body = words[i + 1]!;
      }
    }
    const response = await SELF.fetch(words[2]!, { method: "POST", headers, body });
    expect(response.status).toBe(202);
    const run = await waitForStatus(runId, ["done"]);
    expect(run.decisions[0]!.answer).toMatchObject({
      ok: false,
      reason: 'it\'s not our policy; "no" $HOME `x`',
    });
  });

  it("a wrong key's bad_signature says how the key is derived, and shows no key", async () => {
    const other = "whsec_b3RoZXIta2V5LW5vdC10aGUtd29ya2Vycy1rZXktYXQtYWxs";
    const signed = await signDecision(other, {
      runId: "th_x.run_y",
      requestId: "req_1",
      decision: "approve",
    });
    const response = await SELF.fetch(decisionsUrl(BASE), {
      method: "POST",
      headers: signed.headers,
      body: signed.body,
    });
    expect(response.status).toBe(401);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("bad_signature");
    expect(error.message).toContain("the base64 after whsec_ in WEBHOOK_SECRET decodes to");
    expect(error.message).toContain("HMAC-SHA256");
    expect(error.message).not.toContain(WEBHOOK_SECRET.slice(6));
    expect(error.message).not.toContain(other.slice(6));
  });
});

describe("its arguments", () => {
  it("puts --by, --data, --args and --args-hash into the body as decidedBy, data, args, argsHash", () => {
    expect(
      command([
        "--run",
        "r",
        "--request",
        "q",
        "--decision",
        "approve",
        "--by",
        "ann@example.com",
        "--data",
        '{"note":"ok"}',
        "--args",
        '{"amount":1500}',
        "--args-hash",
        "sha256:abc",
      ]).decision,
    ).toEqual({
      runId: "r",
      requestId: "q",
      decision: "approve",
      decidedBy: "ann@example.com",
      data: { note: "ok" },
      args: { amount: 1500 },
      argsHash: "sha256:abc",
    });
  });

  it.each([
    [["--run", "r", "--request", "q"], /--decision are required/],
    [["--run", "r", "--request", "q", "--decision", "maybe"], /approve, decline or cancel/],
    [
      ["--run", "r", "--request", "q", "--decision", "approve", "--data", "{"],
      /--data is not JSON/,
    ],
    [["--run", "r", "--request", "q", "--decision", "approve", "--args", "[1]"], /JSON object/],
    [["--run", "r", "--run", "s", "--request", "q", "--decision", "approve"], /--run given twice/],
    [
      ["--run", "r", "--request", "q", "--decision", "approve", "--send", "ftp://x"],
      /--send is not an http/,
    ],
    [
      ["--run", "r", "--request", "q", "--decision", "approve", "--force"],
      /unknown argument "--force"/,
    ],
    [["--run"], /--run needs a value/],
  ])("refuses %j", (argv, message) => {
    const parsed = parseSignDecisionArgs(argv);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toMatch(message);
  });
});
