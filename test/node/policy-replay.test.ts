// `toolnexus-edge policy-replay` (issue 43 item 5): a candidate policy (a Cedar directory, or
// an AuthZEN PDP) against recorded receipts, with what would change per tool and group and an
// HTML report with SVG charts. Receipts without args (before policies) are not replayable.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { argsHash } from "../../src/core/approvers/args-hash";
import { toBase64Url } from "../../src/edge/approvals/base64url";
import { main, type CliIo } from "../../src/cli/main";
import { writeFileSync } from "node:fs";

const dir = mkdtempSync(path.join(tmpdir(), "toolnexus-replay-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function receipt(tool: string, args: Record<string, unknown>, recorded: Record<string, unknown>) {
  return {
    v: 1,
    seq: 1,
    threadId: "th_1",
    runId: "th_1.run_1",
    requestId: `apr_${tool}`,
    tool,
    argsHash: argsHash(args),
    agentVersion: "v1",
    channel: "webhook",
    at: "2026-12-04T12:00:00.000Z", // a Friday
    prev: null,
    args,
    agent: "support",
    ...recorded,
  };
}

const receipts = [
  // Unchanged: Cedar permits a small refund, as recorded.
  receipt(
    "refund_order",
    { orderId: "1", amount: 200 },
    {
      policy: { id: "in-code", version: "v1", decision: "allow" },
      rule: null,
      decision: "approved",
    },
  ),
  // One of finance then, two under the candidate.
  receipt(
    "refund_order",
    { orderId: "2", amount: 1500 },
    {
      policy: { id: "in-code", version: "v1", decision: "ask" },
      rule: { group: "finance", quorum: 1 },
      decision: "approved",
    },
  ),
  receipt(
    "refund_order",
    { orderId: "3", amount: 2500 },
    {
      policy: { id: "in-code", version: "v1", decision: "ask" },
      rule: { group: "finance" },
      decision: "declined",
    },
  ),
  // A Friday delete someone approved: the candidate forbids it.
  receipt(
    "delete_account",
    {},
    {
      policy: { id: "in-code", version: "v1", decision: "ask" },
      rule: { group: "support-leads" },
      decision: "approved",
    },
  ),
  // Recorded before policies: no args, not replayable.
  {
    v: 1,
    seq: 2,
    threadId: "th_1",
    tool: "refund_order",
    argsHash: "x",
    rule: null,
    decision: "approved",
  },
];
// The export's form: each line a JWS as a JSON string (the signature is not checked here).
const jws = (payload: unknown) =>
  `eyJhbGciOiJFZERTQSJ9.${toBase64Url(new TextEncoder().encode(JSON.stringify(payload)))}.c2ln`;
const file = path.join(dir, "receipts.ndjson");
writeFileSync(
  file,
  `${receipts.map((r, i) => (i % 2 ? JSON.stringify(jws(r)) : JSON.stringify(r))).join("\n")}\n`,
);

function io(fetcher: typeof fetch = fetch) {
  const out: string[] = [];
  const err: string[] = [];
  const cli: CliIo = {
    env: {},
    cwd: dir,
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    fetch: fetcher,
  };
  return { cli, out, err };
}

describe("policy-replay", () => {
  it("prints what a Cedar directory would change, per tool and group, and writes the report", async () => {
    const { cli, out, err } = io();
    const cedarDir = path.resolve(import.meta.dirname, "../../examples/policy");
    const html = path.join(dir, "report.html");
    const code = await main(
      ["policy-replay", "--receipts", file, "--policy", cedarDir, "--html", html],
      cli,
    );
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(out[0]).toBe("5 receipts, 4 replayable, 1 unchanged, 3 would change");
    expect(out.slice(1, 4).map((l) => l.split(/\s{2,}/))).toEqual([
      ["tool", "group", "change", "calls"],
      ["refund_order", "finance", "quorum 1→2", "2"],
      ["delete_account", "support-leads", "ask→deny", "1"],
    ]);
    const page = readFileSync(html, "utf8");
    expect(page).toContain("<svg");
    expect(page).toContain("quorum 1→2");
    expect(page).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
  });

  it("asks an AuthZEN PDP as the edge would", async () => {
    const asked: string[] = [];
    const { cli, out } = io(async (url, init) => {
      asked.push(String(url));
      const body = JSON.parse(String(init?.body));
      return Response.json(
        body.resource.id === "refund_order" && body.resource.properties.args.amount > 1000
          ? { decision: false, context: { reason: "over limit" } }
          : { decision: true },
      );
    });
    expect(
      await main(["policy-replay", "--receipts", file, "--policy", "https://pdp.test"], cli),
    ).toBe(0);
    expect(asked[0]).toBe("https://pdp.test/access/v1/evaluation");
    expect(out.slice(1).map((l) => l.split(/\s{2,}/))).toEqual([
      ["tool", "group", "change", "calls"],
      ["refund_order", "finance", "ask→deny", "2"],
      ["delete_account", "support-leads", "ask→allow", "1"],
    ]);
  });

  it("refuses bad usage and an unreadable policy with exit 2", async () => {
    const { cli, err } = io();
    expect(await main(["policy-replay", "--receipts", file], cli)).toBe(2);
    expect(err[0]).toMatch(/--receipts and --policy are required/);
    const broken = path.join(dir, "broken.cedar");
    writeFileSync(broken, "permit (principal,\n action resource);");
    expect(await main(["policy-replay", "--receipts", file, "--policy", broken], cli)).toBe(2);
    expect(err.at(-1)).toMatch(/Cedar policy broken\.cedar line 2/);
  });
});
