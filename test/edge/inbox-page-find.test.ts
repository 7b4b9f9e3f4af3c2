// The /inbox page finds like GET /v1/approvals (issue 42 §2): counts per group on top, a
// labelled GET form for agent, tool, requester, text and order; a bad filter is a 400 page.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import type { InboxRpc } from "../../src/edge/inbox/rpc";
import type { InboxItem } from "../../src/edge/inbox/item";
import { inboxCookie, inboxGet } from "../helpers/inbox-signin";

const inbox = (group: string) =>
  env.INBOXES.get(env.INBOXES.idFromName(group)) as unknown as InboxRpc;

function item(n: number, extra: Partial<InboxItem> = {}): InboxItem {
  const at = new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString();
  return {
    requestId: `p${n}`,
    runId: `th_p.run_${n}`,
    threadId: "th_p",
    agent: "support",
    input: "in",
    requestedBy: null,
    tool: "refund",
    args: { n },
    argsHash: "h",
    editedBy: null,
    metadata: null,
    prompt: `Prompt number ${n}`,
    kind: "approval",
    expiresAt: null,
    groups: ["managers"],
    status: "open",
    event: "surfaced",
    votes: [],
    needed: null,
    decision: null,
    surfacedAt: at,
    updatedAt: at,
    version: 1,
    ...extra,
  };
}

const cards = (html: string) =>
  [...html.matchAll(/<section class="item" data-request="([^"]+)"/g)].map((m) => m[1]);

describe("/inbox filters and counts", () => {
  it("shows counts per group, filters and sorts the cards, and keeps the form filled", async () => {
    await inbox("managers").apply([
      item(1, { agent: "billing", prompt: "Refund Ann" }),
      item(2, { agent: "billing", expiresAt: "2026-01-01T06:00:00.000Z" }),
      item(3, { expiresAt: "2026-01-01T03:00:00.000Z" }),
    ]);
    await inbox("default").apply([
      item(4, { groups: ["default"], agent: "billing", prompt: "REFUND Bob" }),
    ]);
    const cookie = await inboxCookie("max@example.com");

    const all = await (await inboxGet("/inbox", cookie)).text();
    expect(all).toMatch(
      /<tr data-group="managers"><td>managers<\/td><td class="n">3<\/td><td class="n">0<\/td><\/tr>/,
    );
    expect(all).toMatch(/<tr data-group="default"><td>default<\/td><td class="n">1<\/td>/);
    expect(cards(all)).toEqual(["p1", "p2", "p3", "p4"]);
    expect(all).toContain('<label for="find-q">');

    // Empty fields of the GET form mean "any".
    const response = await inboxGet(
      "/inbox?q=refund&agent=billing&tool=&requestedBy=&sort=expires",
      cookie,
    );
    expect(response.status).toBe(200);
    const found = await response.text();
    expect(cards(found)).toEqual(["p1", "p4"]);
    expect(found).toContain("Waiting for a decision (2 matching)");
    expect(found).toMatch(
      /<tr data-group="managers"><td>managers<\/td><td class="n">3<\/td><td class="n">1<\/td>/,
    );
    expect(found).toContain('id="find-q" name="q" maxlength="200" value="refund"');
    expect(found).toContain('<option value="expires" selected>');

    expect(cards(await (await inboxGet("/inbox?sort=expires", cookie)).text())).toEqual([
      "p3",
      "p2",
      "p1",
      "p4",
    ]);
  });

  it("says when the groups hold more open requests than the page shows", async () => {
    const many = Array.from({ length: 105 }, (_, n) => item(1000 + n, { groups: ["managers"] }));
    await inbox("managers").apply(many);
    const html = await (await inboxGet("/inbox", await inboxCookie("max@example.com"))).text();
    // 100 of the managers' (the page's limit per group), plus any other group's.
    const shown = cards(html).length;
    const more =
      /<p class="meta" id="more">Showing (\d+) of (\d+): filter or sort to find the others\.<\/p>/.exec(
        html,
      );
    expect(Number(more?.[1])).toBe(shown);
    expect(Number(more?.[2])).toBeGreaterThanOrEqual(105);
    expect(shown).toBeLessThan(Number(more?.[2]));
  });

  it("a bad filter or order is a 400 page saying which", async () => {
    const cookie = await inboxCookie("max@example.com");
    for (const query of ["sort=newest", `q=${"x".repeat(201)}`, "colour=red"]) {
      const response = await inboxGet(`/inbox?${query}`, cookie);
      expect(response.status, query).toBe(400);
      expect(await response.text()).toContain("Invalid filter");
    }
    expect((await inboxGet("/inbox?sort=expires", "")).status).toBe(401);
  });
});
