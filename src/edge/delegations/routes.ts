/**
 * `POST|GET|DELETE /v1/approvers/delegations` (issue 42 item 4): a member away names who decides
 * for them until when. Who calls: the API token with `x-toolnexus-user` naming the person, or
 * a browser behind Cloudflare Access (same-site, JSON only: src/edge/browser/writes.ts).
 *
 * - POST: a member delegates only themselves (`from` is the caller, else 403); both `from` and
 *   `to` must be members of an approver group (400 `unknown_member`), `until` ahead and at most
 *   90 days away (400 `invalid_until`), `groups` among `from`'s (400 `invalid_groups`).
 * - GET: running delegations. A person sees those they give or hold; the API token without
 *   `x-toolnexus-user` (the deployment's backend, which may act for anyone) sees all of them.
 * - DELETE `/:id`: ends it now; the person who gave it or the one who holds it may (else 403);
 *   ending one already ended answers it again (200); an unknown id is 404.
 */
import { Hono, type Context } from "hono";
import { jsonWrites, sameSiteWrites } from "../browser/writes";
import { invalidBody, limitBody, strictJson } from "../http/body";
import { ApiError } from "../http/errors";
import { NO_STORE } from "../http/headers";
import { zValidator } from "@hono/zod-validator";
import { protocolAuth, type ProtocolVars } from "../protocols/identity";
import type { ApproverDirectory, ApproverGroupsInit } from "../approvals/groups";
import { settings } from "../settings";
import { delegationStub } from "./rpc";
import { DelegationCreateSchema } from "./schemas";
import { newDelegation } from "./create";

const PATHS = ["/approvers/delegations", "/approvers/delegations/*"];

export function delegationRoutes(options: { approverGroups?: ApproverGroupsInit } = {}) {
  const directory = (c: Context<ProtocolVars>) => settings(c.env).approvers(options.approverGroups);
  const app = new Hono<ProtocolVars>();
  for (const path of PATHS) {
    app.use(path, sameSiteWrites()).use(path, protocolAuth());
  }
  app.use(PATHS[0] as string, jsonWrites()); // a DELETE has no body to type
  return app
    .post(
      "/approvers/delegations",
      limitBody(8192),
      strictJson(),
      zValidator("json", DelegationCreateSchema, invalidBody),
      async (c) => {
        const people = directory(c);
        const delegation = newDelegation(people, {
          body: c.req.valid("json"),
          caller: callerMember(c, people),
          now: Date.now(),
        });
        const created = await delegationStub(c.env).addDelegation(delegation);
        return c.json(created, 201, NO_STORE);
      },
    )
    .get("/approvers/delegations", async (c) => {
      const caller = c.var.caller.user;
      const now = Date.now();
      if (caller === null && c.var.caller.via === "token") {
        return c.json({ items: await delegationStub(c.env).listDelegations({ now }) });
      }
      const who = callerMember(c, directory(c));
      const items =
        who === undefined ? [] : await delegationStub(c.env).listDelegations({ now, member: who });
      return c.json({ items });
    })
    .delete("/approvers/delegations/:id", async (c) => {
      const id = c.req.param("id");
      const stub = delegationStub(c.env);
      const found = /^dlg_[a-f0-9]{32}$/.test(id) ? await stub.getDelegation(id) : undefined;
      if (!found) {
        throw new ApiError(404, "delegation_not_found", `no delegation ${id}`);
      }
      const caller = callerMember(c, directory(c));
      if (caller !== found.from && caller !== found.to) {
        throw new ApiError(403, "not_your_delegation", {
          message: `only ${found.from} (who gave it) or ${found.to} (who holds it) may end delegation ${id}`,
        });
      }
      return c.json(await stub.endDelegation(id, Date.now()));
    });
}

/** The member the caller is (x-toolnexus-user or Access), or undefined. */
function callerMember(c: Context<ProtocolVars>, people: ApproverDirectory): string | undefined {
  const user = c.var.caller.user;
  return user === null ? undefined : people.memberOf(user);
}
