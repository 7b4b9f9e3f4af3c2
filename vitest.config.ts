import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { isolatedWranglerConfig } from "./test/helpers/isolated-config.mjs";

// The worker under test sees only the values below, never the developer's .dev.vars
// (an LLM_BASE_URL there would replace the demo model): see test/helpers/isolated-config.ts.
const TEST_CONFIG_DIR = ".wrangler/vitest";
const wranglerConfig = isolatedWranglerConfig("wrangler.toml", TEST_CONFIG_DIR);
const mcpWranglerConfig = isolatedWranglerConfig(
  "test/fixtures/wrangler.mcp.toml",
  TEST_CONFIG_DIR,
);

// Secrets for the worker under test (never real ones); test/helpers/edge.ts uses the same values.
const secrets = {
  API_TOKEN: "test-token",
  WEBHOOK_SECRET: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  NOTIFY_SECRET: "whsec_bm90aWZ5LW9ubHkgdGVzdCBrZXksIG5vdCBmb3IgZGVjaXNpb25z",
  // Encrypts MCP OAuth tokens and signs sign-in states (the docs agent of the MCP fixture).
  MCP_TOKEN_KEY: "whsec_dGVzdC1vbmx5IG1jcCB0b2tlbiBrZXksIG5vdCByZWFs",
  // Signs decision receipts (an Ed25519 seed; test/edge/receipts-wiring.test.ts verifies with it).
  RECEIPT_KEY: "F3HL9lvndctt0UUF3146arEoGToztgEFdYFQfT+IfcQ=",
  // The test receivers: an unreachable loopback port and the MCP fixture's hooks origin.
  CALLBACK_ALLOW: "127.0.0.1 http://hooks.test",
  // Browser origins the chat and AG-UI routes answer (test/edge/chat-cors.test.ts).
  CORS_ORIGINS: "https://app.test",
  // The demo agent's groups, as in .dev.vars.example (finance has five members for the race test).
  APPROVER_GROUPS: JSON.stringify({
    finance: [
      "ann@example.com",
      { id: "bob", identities: ["bob@example.com"] },
      "carol@example.com",
      "dan@example.com",
      "erin@example.com",
    ],
    "support-leads": ["lead@example.com"],
    managers: ["max@example.com"],
  }),
};

// Seven projects:
// - workers: everything in workerd (local Durable Objects, queues, alarms), demo model;
// - workers-llm: the edge against a streaming OpenAI-compatible fake that is the
//   worker's only outbound network (test/fixtures/fake-llm-worker.js);
// - node: the kernel's tests again under plain Node, proving src/core is runtime-agnostic
//   (and the npm scripts' helpers, test/scripts; Node-only checks in test/node: test
//   configuration, the built package);
// - workers-mcp: the durable MCP elicitation bridge end to end (test/edge-mcp);
// - workers-slack: approvals in Slack against a fake Slack Web API (test/slack);
// - workers-email: approval emails through a send_email binding (test/email);
// - workers-teams: approvals in Microsoft Teams against a fake Bot Framework (test/teams).
export default defineConfig({
  test: {
    // The JSON report feeds the one-line total that .ci/run prints (scripts/test-summary.mjs).
    reporters: ["default", ["json", { outputFile: ".test-reports/vitest.json" }]],
    projects: [
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: wranglerConfig },
            miniflare: {
              bindings: secrets,
              outboundService: "no-network",
              workers: [
                {
                  name: "no-network",
                  modules: true,
                  compatibilityDate: "2026-04-01",
                  scriptPath: "./test/fixtures/no-network-worker.js",
                },
              ],
            },
          }),
        ],
        // Generous timeouts: edge tests wait on real queue deliveries (about a second per hop).
        test: {
          name: "workers",
          include: ["test/core/**/*.test.ts", "test/edge/**/*.test.ts"],
          testTimeout: 30_000,
        },
      },
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: wranglerConfig },
            miniflare: {
              bindings: {
                ...secrets,
                LLM_BASE_URL: "http://llm.test/v1",
                LLM_STYLE: "openai",
                LLM_MODEL: "fake-stream",
              },
              outboundService: "fake-llm",
              workers: [
                {
                  name: "fake-llm",
                  modules: true,
                  compatibilityDate: "2026-04-01",
                  scriptPath: "./test/fixtures/fake-llm-worker.js",
                },
              ],
            },
          }),
        ],
        test: { name: "workers-llm", include: ["test/edge-llm/**/*.test.ts"], testTimeout: 20_000 },
      },
      {
        // Slack end to end: a fake Slack Web API (test/fixtures/fake-slack-worker.js) is the
        // worker's only outbound network, so the Slack client really talks HTTP.
        plugins: [
          cloudflareTest({
            wrangler: { configPath: wranglerConfig },
            miniflare: {
              bindings: {
                ...secrets,
                SLACK_BOT_TOKEN: "xoxb-test",
                SLACK_SIGNING_SECRET: "8f742231b10e8888abcd99yyyzzz85a5",
                SLACK_API_URL: "http://slack.test/api/",
                // Cloudflare Access in front of /inbox (keys served by the same fake).
                ACCESS_TEAM_DOMAIN: "https://team.test",
                ACCESS_AUD: "aud-other aud-inbox",
                // Requests without rules land in `default`, account deletions (the demo's rules)
                // in `support-leads`: both post to one Slack channel, decided by the same two
                // people (test/slack/slack-flow.test.ts); the demo's other groups must exist too.
                APPROVER_GROUPS: JSON.stringify({
                  default: {
                    members: [
                      { id: "ann", identities: ["ann@example.com", "slack:T1/U1"] },
                      { id: "bob", identities: ["slack:T1/U2"] },
                    ],
                    slack: { channel: "C0123" },
                  },
                  "support-leads": {
                    members: [
                      { id: "ann", identities: ["ann@example.com", "slack:T1/U1"] },
                      { id: "bob", identities: ["slack:T1/U2"] },
                    ],
                    slack: { channel: "C0123" },
                  },
                  // Four eyes in Slack (test/slack/four-eyes.test.ts): large refunds need two of these.
                  finance: {
                    members: [
                      { id: "ann", identities: ["ann@example.com", "slack:T1/U1"] },
                      { id: "bob", identities: ["slack:T1/U2"] },
                      { id: "carol", identities: ["slack:T1/U3"] },
                      "cfo@example.com",
                    ],
                    slack: { channel: "C0123" },
                  },
                  // max decides in Slack only as a delegate (test/slack/delegate-click.test.ts).
                  managers: [{ id: "max@example.com", identities: ["slack:T1/U9"] }],
                }),
              },
              outboundService: "fake-slack",
              workers: [
                {
                  name: "fake-slack",
                  modules: true,
                  compatibilityDate: "2026-04-01",
                  scriptPath: "./test/fixtures/fake-slack-worker.js",
                },
              ],
            },
          }),
        ],
        test: { name: "workers-slack", include: ["test/slack/**/*.test.ts"], testTimeout: 30_000 },
      },
      {
        // Approval emails end to end: `EMAIL` is a fake mailbox (test/fixtures/fake-mailbox-worker.js)
        // that hands each message to Miniflare's own send_email binding, which parses and checks
        // it, and keeps it for the test to read back; the mailbox is the outbound network too.
        plugins: [
          cloudflareTest({
            wrangler: { configPath: wranglerConfig },
            miniflare: {
              bindings: {
                ...secrets,
                EMAIL_FROM: "approvals@toolnexus.test",
                // Requests without rules land in `default`; large refunds need two of `finance`;
                // account deletions go to `support-leads` (reminders) and escalate to `managers`.
                // `nomail` has no email identity: no email for them.
                APPROVER_GROUPS: JSON.stringify({
                  default: [
                    "ann@example.com",
                    { id: "bob", identities: ["Bob@Example.com"] },
                    { id: "nomail", identities: ["slack:T1/U9"] },
                  ],
                  finance: [
                    "ann@example.com",
                    { id: "bob", identities: ["Bob@Example.com"] },
                    "carol@example.com",
                  ],
                  "support-leads": ["lead@example.com", "lead2@example.com"],
                  managers: ["max@example.com"],
                }),
              },
              serviceBindings: { EMAIL: { name: "mailbox", entrypoint: "SendEmail" } },
              outboundService: "mailbox",
              workers: [
                {
                  name: "mailbox",
                  modules: true,
                  compatibilityDate: "2026-04-01",
                  scriptPath: "./test/fixtures/fake-mailbox-worker.js",
                  email: { send_email: [{ name: "REAL_EMAIL" }] },
                },
              ],
            },
          }),
        ],
        test: { name: "workers-email", include: ["test/email/**/*.test.ts"], testTimeout: 30_000 },
      },
      {
        // Approvals in Microsoft Teams: a fake Bot Framework and Bot Connector on 127.0.0.1
        // (test/fixtures/fake-teams-worker.js, the worker's only outbound network, also a
        // minimal Slack Web API), the test signing its own Bot Framework tokens.
        plugins: [
          cloudflareTest({
            wrangler: { configPath: wranglerConfig },
            miniflare: {
              bindings: {
                ...secrets,
                TEAMS_APP_ID: "teams-app-id",
                TEAMS_APP_PASSWORD: "teams-password",
                TEAMS_OPENID_URL: "http://127.0.0.1:9/openid",
                TEAMS_SERVICE_URL_ALLOW: "127.0.0.1:9",
                SLACK_BOT_TOKEN: "xoxb-test",
                SLACK_SIGNING_SECRET: "8f742231b10e8888abcd99yyyzzz85a5",
                SLACK_API_URL: "http://slack.test/api/",
                // ann is known to Teams by her UPN (the member lookup), bob by his AAD object id.
                APPROVER_GROUPS: JSON.stringify({
                  "support-leads": ["lead@example.com"],
                  managers: ["max@example.com"],
                  ...Object.fromEntries(
                    ["default", "finance"].map((group) => [
                      group,
                      {
                        members: [
                          { id: "ann", identities: ["ann@example.com", "slack:T1/U1"] },
                          { id: "bob", identities: ["teams:aad-bob", "slack:T1/U2"] },
                          ...(group === "finance" ? ["carol@example.com"] : []),
                        ],
                        slack: { channel: "C0123" },
                        teams: {
                          conversation: "19:approvals@thread.tacv2",
                          serviceUrl: "http://127.0.0.1:9/teams/",
                        },
                      },
                    ]),
                  ),
                }),
              },
              outboundService: "fake-teams",
              workers: [
                {
                  name: "fake-teams",
                  modules: true,
                  compatibilityDate: "2026-04-01",
                  scriptPath: "./test/fixtures/fake-teams-worker.js",
                },
              ],
            },
          }),
        ],
        test: { name: "workers-teams", include: ["test/teams/**/*.test.ts"], testTimeout: 30_000 },
      },
      {
        test: {
          name: "node",
          environment: "node",
          include: [
            "test/core/**/*.test.ts",
            "test/scripts/**/*.test.ts",
            "test/node/**/*.test.ts",
          ],
        },
      },
      {
        // The durable MCP elicitation bridge end to end: an agent whose tool is a real SDK
        // MCP server inside the worker (test/fixtures/mcp-edge-worker.ts).
        plugins: [
          cloudflareTest({
            wrangler: { configPath: mcpWranglerConfig },
            // PUBLIC_URL: an MCP sign-in's redirect_uri is never taken from a request's Host.
            miniflare: { bindings: { ...secrets, PUBLIC_URL: "https://edge.test" } },
          }),
        ],
        test: { name: "workers-mcp", include: ["test/edge-mcp/**/*.test.ts"], testTimeout: 30_000 },
      },
    ],
  },
});
