/**
 * The timeline's routes as a sub-app the edge mounts at `/` (edge-routes.ts wires it):
 * - `GET /inbox/runs/:runId` — for a signed-in member of a group with a request in the run;
 *   no session → the sign-in page; anyone else, or an unknown run → `404` (the same page).
 * - `POST /v1/runs/:runId/view-link` (API token) → `201 { url, expiresAt }`, valid 24 h.
 * - `GET /runs/view/:token` — the same page by a signed view link; tampered, malformed or
 *   expired → `410`.
 * Everything the routes need from the rest of the edge comes in as `deps`.
 */
import { Hono, type Context, type MiddlewareHandler } from "hono";
import type { EdgeEnv } from "../settings";
import { ApiError } from "../http/errors";
import { renderMessagePage } from "../approvals/page";
import { pageHeaders } from "../pages/layout";
import { buildTimeline, type TimelineInput } from "./model";
import { newNonce, renderTimelinePage, timelineHeaders } from "./render";
import { createRunViewToken, RunViewLinkError, verifyRunViewToken } from "./view-token";

type Env = { Bindings: EdgeEnv };
type Ctx = Context<Env>;

export interface TimelineRouteDeps {
  /** The run's view and its stored events, or undefined when there is no such run. */
  load(c: Ctx, runId: string): Promise<TimelineInput | undefined>;
  /** The signed-in member and their groups (Access or an inbox session), or undefined. */
  signedIn(c: Ctx): Promise<{ member: string; groups: string[] } | undefined>;
  /** What a visitor without a session gets (the inbox's sign-in page). */
  signInPage(c: Ctx): Response | Promise<Response>;
  /** `Authorization: Bearer <API_TOKEN>` for the view-link route. */
  apiAuth: MiddlewareHandler<Env>;
  webhookSecrets(c: Ctx): string[];
  publicBase(c: Ctx): string;
  /** The same-origin SSE path this viewer may read, or undefined (then the page is static). */
  eventsPath?(c: Ctx, via: { runId: string } | { token: string }): string | undefined;
}

/** The groups a run asked: each request's rule group (`default` without one) and every escalation's. */
export function groupsOfRun(input: TimelineInput): Set<string> {
  const groups = new Set<string>();
  for (const event of input.events) {
    const request = (event.data as { request?: { data?: { approvers?: { group?: unknown } } } })
      ?.request;
    if (event.type === "pending" && request) {
      const group = request.data?.approvers?.group;
      groups.add(typeof group === "string" ? group : "default");
    }
    const to = (event.data as { to?: unknown } | null)?.to;
    if (event.type === "escalated" && typeof to === "string") {
      groups.add(to);
    }
  }
  for (const approval of input.run.requests) {
    if (typeof approval.rules.group === "string") {
      groups.add(approval.rules.group);
    }
  }
  return groups;
}

export function timelineRoutes(deps: TimelineRouteDeps) {
  const notFound = (c: Ctx) =>
    c.html(
      renderMessagePage("Not found", "There is no run here for you.", "error"),
      404,
      pageHeaders(),
    );

  const page = (c: Ctx, input: TimelineInput, eventsPath: string | undefined) => {
    const nonce = newNonce();
    const html = renderTimelinePage({
      run: input.run,
      timeline: buildTimeline(input),
      nonce,
      ...(eventsPath ? { eventsPath } : {}),
    });
    return c.html(html, 200, timelineHeaders(nonce));
  };

  return new Hono<Env>()
    .get("/inbox/runs/:runId", async (c) => {
      const who = await deps.signedIn(c);
      if (!who) {
        return deps.signInPage(c);
      }
      const runId = c.req.param("runId");
      const input = await deps.load(c, runId);
      const groups = input ? groupsOfRun(input) : new Set<string>();
      if (!input || !who.groups.some((g) => groups.has(g))) {
        return notFound(c); // the same answer whether the run exists or not
      }
      return page(c, input, deps.eventsPath?.(c, { runId }));
    })
    .post("/v1/runs/:runId/view-link", deps.apiAuth, async (c) => {
      const runId = c.req.param("runId");
      const input = await deps.load(c, runId);
      if (!input) {
        throw new ApiError(404, "run_not_found", `no run ${JSON.stringify(runId)}`);
      }
      const { token, expiresAt } = await createRunViewToken(deps.webhookSecrets(c), {
        threadId: input.run.threadId,
        runId,
      });
      const url = `${deps.publicBase(c)}/runs/view/${token}`;
      return c.json({ url, expiresAt }, 201, { "cache-control": "no-store" });
    })
    .get("/runs/view/:token", async (c) => {
      const token = c.req.param("token");
      let runId: string;
      try {
        ({ runId } = await verifyRunViewToken(deps.webhookSecrets(c), token));
      } catch (error) {
        if (error instanceof RunViewLinkError) {
          const message =
            error.code === "expired"
              ? "This view link has expired."
              : "This view link is not valid.";
          return c.html(renderMessagePage("Link not valid", message, "error"), 410, pageHeaders());
        }
        throw error;
      }
      const input = await deps.load(c, runId);
      if (!input) {
        return notFound(c);
      }
      return page(c, input, deps.eventsPath?.(c, { token }));
    });
}
