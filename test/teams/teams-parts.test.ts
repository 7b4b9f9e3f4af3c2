// Teams' pieces (issue 45): its settings (both or neither; half names the missing piece), the
// serviceUrl allow-list the Bot Connector client keeps to, a group's `teams` setting, and the
// card's escaping of what a model wrote.
import { describe, expect, it } from "vitest";
import { createExecutionContext, env } from "cloudflare:test";
import { settings } from "../../src/edge/settings";
import { serviceUrlAllowed } from "../../src/edge/settings/teams";
import { teamsConnector } from "../../src/edge/teams/connector";
import { approvalCardActivity, escapeMarkdown } from "../../src/edge/teams/card";
import { parseApproverDirectory } from "../../src/edge/approvals/groups";
import { createWorker } from "../../src/edge/create-worker";
import { supportAgent } from "../../src/edge/demo/agent";
import type { InboxItem } from "../../src/edge/inbox/item";

describe("Teams settings", () => {
  it("are off with neither; half a configuration names the missing piece", () => {
    expect(settings({}).teams).toBeUndefined();
    expect(() => settings({ TEAMS_APP_ID: "a" }).teams).toThrow(/TEAMS_APP_PASSWORD is not set/);
    expect(() => settings({ TEAMS_APP_PASSWORD: "p" }).teams).toThrow(/TEAMS_APP_ID is not set/);
    expect(
      () =>
        settings({ TEAMS_APP_ID: "a", TEAMS_APP_PASSWORD: "p", TEAMS_OPENID_URL: "ftp://x" }).teams,
    ).toThrow(/TEAMS_OPENID_URL/);
    expect(settings({ TEAMS_APP_ID: "a", TEAMS_APP_PASSWORD: "p" }).teams).toEqual({
      appId: "a",
      appPassword: "p",
      openIdUrl: "https://login.botframework.com/v1/.well-known/openidconfiguration",
      serviceHosts: ["smba.trafficmanager.net"],
    });
  });

  it("a Bot Connector call goes only to an allowed serviceUrl host", async () => {
    const teams = settings({
      TEAMS_APP_ID: "a",
      TEAMS_APP_PASSWORD: "p",
      TEAMS_SERVICE_URL_ALLOW: "smba.trafficmanager.net 127.0.0.1:9",
    }).teams!;
    expect(serviceUrlAllowed(teams, "https://smba.trafficmanager.net/emea/")).toBe(true);
    expect(serviceUrlAllowed(teams, "http://127.0.0.1:9/teams/")).toBe(true);
    expect(serviceUrlAllowed(teams, "http://127.0.0.1:10/teams/")).toBe(false);
    expect(serviceUrlAllowed(teams, "https://evil.example/")).toBe(false);
    let fetched = 0;
    const connector = teamsConnector(teams, async () => {
      fetched += 1;
      return new Response("{}");
    });
    await expect(
      connector.post({ serviceUrl: "https://evil.example/", conversation: "c" }, {}),
    ).rejects.toThrow(/not in TEAMS_SERVICE_URL_ALLOW/);
    expect(fetched).toBe(0); // not even the token request: the bot's secret goes nowhere else
  });

  it("without TEAMS_APP_PASSWORD the worker answers its first request with 500 config_error", async () => {
    const worker = createWorker({ agents: [supportAgent] });
    const response = await worker.fetch!(
      new Request("https://edge.test/healthz") as never,
      { ...env, TEAMS_APP_PASSWORD: undefined } as never,
      createExecutionContext(),
    );
    expect(response.status).toBe(500);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({ code: "config_error" });
    expect(body.error.message).toMatch(/^TEAMS_APP_PASSWORD is not set/);
  });
});

describe("a group's teams setting", () => {
  it("takes a conversation and a serviceUrl, and refuses anything else", () => {
    const directory = parseApproverDirectory(
      {
        APPROVER_GROUPS: JSON.stringify({
          ops: {
            members: ["ann@example.com"],
            teams: {
              conversation: "19:x@thread.tacv2",
              serviceUrl: "https://smba.trafficmanager.net/emea",
            },
          },
        }),
      },
      undefined,
    );
    expect(directory.groups.get("ops")?.teams).toEqual({
      conversation: "19:x@thread.tacv2",
      serviceUrl: "https://smba.trafficmanager.net/emea/",
    });
    expect(() =>
      parseApproverDirectory(
        {
          APPROVER_GROUPS: JSON.stringify({
            ops: { members: ["a@b.c"], teams: { conversation: "" } },
          }),
        },
        undefined,
      ),
    ).toThrow(/ops\.teams must be/);
  });
});

describe("the card", () => {
  it("shows what a model wrote as text, never as a link or formatting", () => {
    expect(escapeMarkdown("[click](https://evil.example) **now**")).toBe(
      "\\[click\\]\\(https://evil\\.example\\) \\*\\*now\\*\\*",
    );
    const item = {
      requestId: "apr_1",
      runId: "th_1.run_1",
      threadId: "th_1",
      agent: "support",
      input: "",
      requestedBy: null,
      tool: "refund_order",
      args: { note: "[x](https://evil.example)" },
      argsHash: "h",
      editedBy: null,
      metadata: null,
      prompt: "Refund [now](https://evil.example)?",
      kind: "approval",
      expiresAt: null,
      groups: ["default"],
      status: "open",
      event: "surfaced",
      votes: [],
      needed: null,
      decision: null,
      surfacedAt: "2026-12-04T10:00:00.000Z",
      updatedAt: "2026-12-04T10:00:00.000Z",
      version: 1,
    } satisfies InboxItem;
    // The card (the activity's plain-text `summary`, a notification line, renders no Markdown).
    const activity = approvalCardActivity(item) as { attachments: Array<{ content: unknown }> };
    const text = JSON.stringify(activity.attachments[0]?.content);
    expect(text).not.toContain("[now](https://evil.example)");
    expect(text).not.toContain('"[x](https://evil.example)"');
  });
});
