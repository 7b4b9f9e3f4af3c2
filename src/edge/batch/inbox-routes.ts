/**
 * `POST /inbox/batch`: the inbox page's batch decision, in two steps of plain forms (no
 * script). The checked cards come here first and get a pre-flight table; its confirm button
 * posts again with `confirm=1` and the version of the arguments each row showed, and each
 * item is then decided through its thread's ledger (decide-batch.ts) as the signed-in member,
 * channel `inbox`. Only requests the member's inboxes show may be decided here, as with
 * `/inbox/decide`; both steps carry the page's CSRF token.
 */
import { Hono, type Context } from "hono";
import { crossSitePage } from "../browser/cross-site-page";
import { sameSiteWrites } from "../browser/writes";
import type { EdgeEnv } from "../settings";
import type { ApproverGroupsInit } from "../approvals/groups";
import { renderMessagePage } from "../approvals/page";
import { pageHeaders } from "../pages/layout";
import { ApiError } from "../http/errors";
import { readRawBody } from "../http/body";
import { threadStub } from "../http/threads";
import { MAX_REASON_CHARS } from "../http/schemas";
import { inboxStub } from "../inbox/rpc";
import type { InboxItem } from "../inbox/item";
import { checkCsrf, csrfToken } from "../inbox/session";
import { type InboxVisitor as Visitor, inboxSignedIn, signInPage } from "../inbox/signed-in";
import { type BatchItem, decideBatch, MAX_BATCH_ITEMS } from "./decide-batch";
import { renderBatchResults, renderPreflight } from "./inbox-page";

type Ctx = Context<{ Bindings: EdgeEnv }>;

/**
 * The batch form is the one page form past 16 KiB: its confirm step names up to 100
 * requests with the version of their arguments (about 160 bytes each).
 */
export const MAX_BATCH_FORM_BYTES = 64 * 1024;

const page = (c: Ctx, html: string, status: 200 | 400 | 401 | 403 | 413 = 200) =>
  c.html(html, status, pageHeaders());
const problem = (c: Ctx, status: 400 | 403 | 413, text: string) =>
  page(c, renderMessagePage("Not decided", text, "error"), status);

export function inboxBatchRoutes(options: { approverGroups?: ApproverGroupsInit }) {
  return new Hono<{ Bindings: EdgeEnv }>()
    .use(
      "/inbox/batch",
      sameSiteWrites((c) => page(c, crossSitePage(), 403)),
    )
    .post("/inbox/batch", async (c) => {
      const who = await inboxSignedIn(c, options.approverGroups);
      if (!who) {
        return page(c, signInPage(), 401);
      }
      let raw: string;
      try {
        raw = await readRawBody(c, MAX_BATCH_FORM_BYTES);
      } catch (error) {
        if (error instanceof ApiError && error.status === 413) {
          return problem(c, 413, `The form is over ${MAX_BATCH_FORM_BYTES / 1024} KiB.`);
        }
        throw error;
      }
      const form = new URLSearchParams(raw);
      if (!(await checkCsrf(c, who.identity, form.get("csrf") ?? ""))) {
        return problem(
          c,
          403,
          "This form is no longer valid (it was opened in another session or too long ago). Reload the inbox and try again.",
        );
      }
      const decision = form.get("decision");
      if (decision !== "approve" && decision !== "decline") {
        return problem(c, 400, "Choose to approve or to decline the selected requests.");
      }
      return form.get("confirm") === "1"
        ? confirm(c, who, { form, decision })
        : review(c, who, { form, decision });
    });
}

/** Step 1: the checked requests, as the approver's inboxes show them now. */
async function review(
  c: Ctx,
  who: Visitor,
  { form, decision }: { form: URLSearchParams; decision: "approve" | "decline" },
) {
  const selected = [...new Set(form.getAll("select"))];
  if (selected.length === 0) {
    return problem(c, 400, "Select at least one request (the box on its card) first.");
  }
  if (selected.length > MAX_BATCH_ITEMS) {
    return problem(c, 400, `Select at most ${MAX_BATCH_ITEMS} requests at once.`);
  }
  const found = await Promise.all(
    selected.map(async (value) => {
      const [runId = "", requestId = ""] = value.split(" ");
      return { value, item: await findItem(c, who.groups, { runId, requestId }) };
    }),
  );
  const items = found.flatMap((f) => (f.item?.status === "open" ? [f.item] : []));
  const missing = found.filter((f) => f.item?.status !== "open").map((f) => f.value);
  const html = renderPreflight({
    decision,
    items,
    missing,
    csrf: await csrfToken(c, who.identity),
    now: Date.now(),
  });
  return page(c, html);
}

/** Step 2: each reviewed row decided on its own, approvals bound to the version reviewed. */
async function confirm(
  c: Ctx,
  who: Visitor,
  { form, decision }: { form: URLSearchParams; decision: "approve" | "decline" },
) {
  const rows = form.getAll("item").map((value) => {
    const [runId = "", requestId = "", argsHash = ""] = value.split(" ");
    return { runId, requestId, argsHash };
  });
  if (rows.length === 0 || rows.length > MAX_BATCH_ITEMS) {
    return problem(c, 400, `A batch decides 1 to ${MAX_BATCH_ITEMS} requests.`);
  }
  const reason = form.get("reason")?.trim().slice(0, MAX_REASON_CHARS) || undefined;
  // Only what the approver's inboxes show may be decided here.
  const shown = await Promise.all(rows.map((row) => findItem(c, who.groups, row)));
  const items: BatchItem[] = [];
  const positions: number[] = [];
  rows.forEach((row, index) => {
    if (shown[index]) {
      positions.push(index);
      items.push({
        runId: row.runId,
        requestId: row.requestId,
        decision,
        ...(decision === "approve" && row.argsHash ? { argsHash: row.argsHash } : {}),
        ...(decision === "decline" && reason ? { reason } : {}),
      });
    }
  });
  const decided = await decideBatch(items, {
    decide: (threadId, input) => threadStub(c.env, threadId).decide(input),
    who: {
      decidedBy: who.member,
      channel: "inbox",
      ...(who.delegations ? { delegations: who.delegations } : {}),
    },
  });
  const results = rows.map((row, index) => {
    const at = positions.indexOf(index);
    const result = at >= 0 ? decided[at] : undefined;
    return result
      ? { ...result, prompt: shown[index]?.prompt ?? row.requestId }
      : {
          runId: row.runId,
          requestId: row.requestId,
          status: 404,
          code: "request_not_found",
          message: "that request is not in your inbox",
        };
  });
  return page(c, renderBatchResults({ decision, results }));
}

async function findItem(
  c: Ctx,
  groups: string[],
  { runId, requestId }: { runId: string; requestId: string },
): Promise<InboxItem | undefined> {
  if (!runId || !requestId) {
    return undefined;
  }
  for (const group of groups) {
    const item = await inboxStub(c.env, group).get(runId, requestId);
    if (item) {
      return item;
    }
  }
  return undefined;
}
