/**
 * The run timeline wired into the edge: `timelineRoutes` (routes.ts) with the thread
 * object's timeline RPC, the inbox's sign-in, the API token and the webhook secrets, plus
 * the two page-authenticated event streams the page's live script listens to:
 * - `GET /inbox/runs/:runId/events` — the same check as the page (a signed-in member of a
 *   group the run asked); otherwise `404`, no session `401`;
 * - `GET /runs/view/:token/events` — a valid view link; otherwise `410`.
 * Both replay the run's stored events and stream the rest, as `GET /v1/runs/:runId/events`.
 */
import { Hono, type Context } from "hono";
import type { EdgeEnv } from "../settings";
import { readConfig } from "../settings";
import type { ApproverGroupsInit } from "../approvals/groups";
import { publicBase } from "../approvals/links";
import { pageHeaders } from "../pages/layout";
import { bearerAuth } from "../http/auth";
import { ApiError } from "../http/errors";
import { threadOf, threadStub } from "../http/threads";
import { inboxSignedIn, signInPage } from "../inbox/signed-in";
import type { TimelineInput } from "./model";
import { groupsOfRun, timelineRoutes } from "./routes";
import { RunViewLinkError, verifyRunViewToken } from "./view-token";
import { sseWithoutSignInLinks, timelineWithoutSignInLinks } from "./sign-in-links";
import { unpack } from "../packed";

type Env = { Bindings: EdgeEnv };
type Ctx = Context<Env>;

async function loadTimeline(c: Ctx, runId: string): Promise<TimelineInput | undefined> {
  const threadId = threadOf(runId);
  const input = threadId
    ? await unpack(await threadStub(c.env, threadId).timeline(runId))
    : undefined;
  return input && timelineWithoutSignInLinks(input);
}

/** The run's event stream from its thread object (replay, then live). */
async function eventStream(c: Ctx, runId: string): Promise<Response> {
  const threadId = threadOf(runId) as string; // checked by the caller's load
  const url = new URL("https://thread/events");
  url.searchParams.set("runId", runId);
  const after = c.req.header("last-event-id");
  const response = await threadStub(c.env, threadId).fetch(url.toString(), {
    headers: after ? { "last-event-id": after } : {},
    signal: c.req.raw.signal,
  });
  // Viewers are not the requester: a sign-in's link stays out (sign-in-links.ts).
  return response.body ? new Response(sseWithoutSignInLinks(response.body), response) : response;
}

export function edgeTimelineRoutes(options: { approverGroups?: ApproverGroupsInit }) {
  const signedIn = (c: Ctx) => inboxSignedIn(c, options.approverGroups);
  const webhookSecrets = (c: Ctx) => readConfig(c.env).webhookSecrets;
  const pageRoutes = timelineRoutes({
    load: loadTimeline,
    signedIn,
    signInPage: (c) => c.html(signInPage(), 401, pageHeaders()),
    apiAuth: bearerAuth(),
    webhookSecrets,
    publicBase,
    eventsPath: (_c, via) =>
      "runId" in via
        ? `/inbox/runs/${encodeURIComponent(via.runId)}/events`
        : `/runs/view/${encodeURIComponent(via.token)}/events`,
  });

  const streamError = (status: 401 | 404 | 410, code: string, message: string) => {
    throw new ApiError(status, code, message);
  };

  return new Hono<Env>()
    .get("/inbox/runs/:runId/events", async (c) => {
      const who = await signedIn(c);
      if (!who) {
        return streamError(401, "unauthorized", "sign in to the inbox first");
      }
      const runId = c.req.param("runId");
      const input = await loadTimeline(c, runId);
      const groups = input ? groupsOfRun(input) : new Set<string>();
      if (!input || !who.groups.some((g) => groups.has(g))) {
        return streamError(404, "run_not_found", "there is no run here for you");
      }
      return eventStream(c, runId);
    })
    .get("/runs/view/:token/events", async (c) => {
      let runId: string;
      try {
        ({ runId } = await verifyRunViewToken(webhookSecrets(c), c.req.param("token")));
      } catch (error) {
        if (error instanceof RunViewLinkError) {
          return streamError(410, "view_link_invalid", error.message);
        }
        throw error;
      }
      if (!(await loadTimeline(c, runId))) {
        return streamError(404, "run_not_found", "there is no such run");
      }
      return eventStream(c, runId);
    })
    .route("/", pageRoutes);
}
