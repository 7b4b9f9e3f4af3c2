// Finding the request that matters (issue 42 §2): GET /v1/approvals filters by agent, tool,
// requester and text, sorts by expiry or surfacing, counts per group, and keeps cursors
// honest: a cursor continues only the listing that made it.
import { describe, expect, it } from "vitest";
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { api, BASE } from "../helpers/edge";
import type { InboxRpc } from "../../src/edge/inbox/rpc";
import type { InboxItem } from "../../src/edge/inbox/item";
import { foldText } from "../../src/edge/inbox/find/listing";

const GROUP = "managers"; // this file's own inbox: nothing else writes there

function inbox(group: string): InboxRpc & DurableObjectStub {
  return env.INBOXES.get(env.INBOXES.idFromName(group)) as unknown as InboxRpc & DurableObjectStub;
}

function item(n: number, extra: Partial<InboxItem> = {}): InboxItem {
  const at = new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString();
  return {
    requestId: `r${n}`,
    runId: `th_f.run_${String(n).padStart(4, "0")}`,
    threadId: "th_f",
    agent: "support",
    input: "in",
    requestedBy: null,
    tool: "refund",
    args: { n },
    argsHash: "h",
    editedBy: null,
    metadata: null,
    prompt: `request ${n}`,
    kind: "approval",
    expiresAt: null,
    groups: [GROUP],
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

interface Page {
  items: InboxItem[];
  nextCursor: string | null;
  counts: { group: string; open: number; decided: number; matching: number };
}

async function list(query: string): Promise<Page> {
  const response = await api(`/v1/approvals?group=${GROUP}&${query}`);
  expect(response.status, query).toBe(200);
  return response.json<Page>();
}

/** Every page of a listing, `limit` at a time: the request ids in order. */
async function all(query: string, limit = 2): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page: Page = await list(`${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    ids.push(...page.items.map((i) => i.requestId));
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}

const ITEMS = [
  item(1, {
    agent: "billing",
    tool: "refund",
    requestedBy: "Ann@Example.com",
    prompt: "Refund €80 to Ann",
  }),
  item(2, {
    agent: "billing",
    tool: "charge",
    args: { city: "Straße 7" },
    expiresAt: "2026-01-02T00:00:00.000Z",
  }),
  item(3, {
    agent: "support",
    tool: "refund",
    requestedBy: "bob",
    expiresAt: "2026-01-01T12:00:00.000Z",
  }),
  item(4, {
    agent: "support",
    tool: "delete_account",
    prompt: "Delete the ÉCOLE account (50%_off 'promo')",
  }),
  item(5, {
    agent: "billing",
    tool: "refund",
    requestedBy: "ann@example.com",
    input: "ｒｅｆｕｎｄ please",
  }),
  item(6, {
    status: "decided",
    event: "decided",
    agent: "billing",
    decision: {
      outcome: "approved",
      decidedBy: "max",
      channel: "inbox",
      decidedAt: "2026-01-03T00:00:00.000Z",
      reason: null,
    },
  }),
];

describe("GET /v1/approvals: filters, sort and counts", () => {
  it("filters by agent, tool and requester, alone and together", async () => {
    await inbox(GROUP).apply(ITEMS);
    expect(await all("agent=billing")).toEqual(["r1", "r2", "r5"]);
    expect(await all("tool=refund")).toEqual(["r1", "r3", "r5"]);
    expect(await all("agent=billing&tool=refund")).toEqual(["r1", "r5"]);
    // People's ids and emails: case-insensitive.
    expect(await all("requestedBy=ANN%40example.com")).toEqual(["r1", "r5"]);
    expect(await all("agent=billing&status=decided")).toEqual(["r6"]);
    expect(await all("agent=nobody")).toEqual([]);
  });

  it("q finds text in the prompt, the arguments or the input, case-insensitively and Unicode-aware", async () => {
    await inbox(GROUP).apply(ITEMS);
    expect(await all("q=REFUND")).toEqual(["r1", "r5"]); // the prompt; the full-width input
    expect(await all(`q=${encodeURIComponent("STRASSE")}`)).toEqual(["r2"]); // ß folds to ss
    expect(await all(`q=${encodeURIComponent("école")}`)).toEqual(["r4"]);
    expect(await all(`q=${encodeURIComponent("€80")}`)).toEqual(["r1"]);
    // SQL wildcards and quotes are plain text: bound, never spliced, never LIKE patterns.
    expect(await all(`q=${encodeURIComponent("50%_off 'promo'")}`)).toEqual(["r4"]);
    expect(await all(`q=${encodeURIComponent("%")}`)).toEqual(["r4"]);
    expect(await all(`q=${encodeURIComponent("_")}`)).toEqual(["r4"]);
    expect(foldText("Σίσυφος")).toBe(foldText("ΣΊΣΥΦΟΣ"));
  });

  it("sorts by expiry (none last) or by surfacing, paging through every match once", async () => {
    await inbox(GROUP).apply(ITEMS);
    expect(await all("sort=expires", 1)).toEqual(["r3", "r2", "r1", "r4", "r5"]);
    expect(await all("sort=surfaced", 2)).toEqual(["r1", "r2", "r3", "r4", "r5"]);
    expect(await all("sort=expires&agent=billing", 1)).toEqual(["r2", "r1", "r5"]);
    expect(await all("sort=expires&q=refund", 1)).toEqual(["r1", "r5"]);
  });

  it("counts the group's open and decided requests and those matching the filters", async () => {
    await inbox(GROUP).apply(ITEMS);
    expect((await list("")).counts).toEqual({ group: GROUP, open: 5, decided: 1, matching: 5 });
    expect((await list("agent=billing")).counts).toEqual({
      group: GROUP,
      open: 5,
      decided: 1,
      matching: 3,
    });
    expect((await list("status=decided")).counts.matching).toBe(1);
    // Deciding an item moves it from one count to the other (kept by triggers, not a scan).
    await inbox(GROUP).apply([
      {
        ...ITEMS[0]!,
        status: "decided",
        version: 2,
        decision: {
          outcome: "declined",
          decidedBy: "max",
          channel: "slack",
          decidedAt: "2026-01-04T00:00:00.000Z",
          reason: "no",
        },
      },
    ]);
    expect((await list("")).counts).toEqual({ group: GROUP, open: 4, decided: 2, matching: 4 });
    const response = await api(`/v1/approvals?group=${GROUP}`);
    expect(Number(response.headers.get("x-count-rows-read"))).toBeLessThanOrEqual(2);
  });

  it("a cursor continues only its own listing: another filter, sort, status or group is 400", async () => {
    await inbox(GROUP).apply(ITEMS);
    const { nextCursor } = await list("agent=billing&limit=1");
    expect(nextCursor).toBeTruthy();
    for (const other of [
      "agent=support",
      "",
      "agent=billing&sort=expires",
      "agent=billing&q=refund",
      "agent=billing&status=decided",
      "agent=billing&tool=refund",
    ]) {
      const response = await api(`/v1/approvals?group=${GROUP}&${other}&cursor=${nextCursor}`);
      expect(response.status, other).toBe(400);
      const body = await response.json<any>();
      expect(body.error.code).toBe("invalid_query");
      expect(body.error.issues.map((i: any) => i.path)).toContain("cursor");
    }
    const plain = (await list("limit=1")).nextCursor;
    expect((await api(`/v1/approvals?group=${GROUP}&sort=surfaced&cursor=${plain}`)).status).toBe(
      400,
    );
    expect((await api(`/v1/approvals?group=finance&cursor=${plain}`)).status).toBe(400);
    expect((await api(`/v1/approvals?group=${GROUP}&limit=3&cursor=${plain}`)).status).toBe(200); // a page size may change
  });

  it("a bad filter or sort is 400 naming the field", async () => {
    const problems: Array<[string, string]> = [
      ["sort=newest", "sort"],
      ["sort=", "sort"],
      ["q=", "q"],
      ["agent=", "agent"],
      [`tool=${"x".repeat(201)}`, "tool"],
      ["requestedBy=", "requestedBy"],
      ["order=desc", "(root)"],
    ];
    for (const [query, path] of problems) {
      const response = await api(`/v1/approvals?group=${GROUP}&${query}`);
      expect(response.status, query).toBe(400);
      const body = await response.json<any>();
      expect(body.error.code).toBe("invalid_query");
      expect(
        body.error.issues.map((i: any) => i.path),
        query,
      ).toContain(path);
    }
  });

  it("an inbox written before the filter columns existed is upgraded when first read", async () => {
    const stub = inbox("finance");
    await runInDurableObject(stub, (_i, state) => {
      const sql = state.storage.sql;
      sql.exec(`CREATE TABLE items (key TEXT PRIMARY KEY, version INTEGER NOT NULL, status TEXT NOT NULL,
        sort INTEGER NOT NULL, body TEXT NOT NULL)`);
      sql.exec("CREATE INDEX items_listing ON items (status, sort, key)");
      for (const it of ITEMS.slice(0, 5)) {
        sql.exec(
          "INSERT INTO items VALUES (?, 1, 'open', ?, ?)",
          `${it.runId} ${it.requestId}`,
          Date.parse(it.surfacedAt),
          JSON.stringify({ ...it, groups: ["finance"] }),
        );
      }
    });
    const response = await api("/v1/approvals?group=finance&agent=billing&q=refund");
    expect(response.status).toBe(200);
    const page = await response.json<Page>();
    expect(page.items.map((i) => i.requestId)).toEqual(["r1", "r5"]);
    expect(page.counts).toEqual({ group: "finance", open: 5, decided: 0, matching: 2 });
  });

  it("the OpenAPI document lists the filters, the sort, the counts and the dashboard", async () => {
    const doc = await (await SELF.fetch(`${BASE}/openapi.json`)).json<any>();
    const names = (path: string) => doc.paths[path].get.parameters.map((p: any) => p.name);
    for (const path of ["/v1/approvals", "/inbox"]) {
      expect(names(path)).toEqual(
        expect.arrayContaining(["agent", "tool", "requestedBy", "q", "sort"]),
      );
    }
    const sort = doc.paths["/v1/approvals"].get.parameters.find((p: any) => p.name === "sort");
    expect(sort.schema.enum).toEqual(["expires", "surfaced"]);
    expect(doc.components.schemas.ApprovalsPage.required).toContain("counts");
    expect(Object.keys(doc.components.schemas.ApprovalsCounts.properties)).toEqual([
      "group",
      "open",
      "decided",
      "matching",
    ]);
    expect(doc.paths["/inbox/dashboard"].get.responses[200]).toBeDefined();
  });
});
