/**
 * `POST /v1/runs/:runId/undo` (docs/undo.md): the API token, `x-toolnexus-user` naming who
 * asks, and `{ reason }`. `202` when this call began the undo, `200` with the first undo's
 * state for a repeat (or a run compensated already); `409 run_active` while the run runs or
 * waits, `409 nothing_to_undo` when no completed call can compensate, `404` for an unknown run.
 */
import { Hono } from "hono";
import { zValidator } from "@hono/zod-validator";
import * as z from "zod";
import type { EdgeEnv } from "../settings";
import { bearerAuth } from "../http/auth";
import { ApiError } from "../http/errors";
import { invalidBody, limitBody, strictJson } from "../http/body";
import { threadOf, threadStub } from "../http/threads";
import { publicBase, runLinks } from "../approvals/links";
import { MAX_IDENTITY_CHARS } from "../http/schemas";
import { USER_HEADER } from "../protocols/identity";
import type { UndoOutcome } from "./types";

export const UndoCreateSchema = z
  .strictObject({
    reason: z
      .string()
      .trim()
      .min(1)
      .max(1000)
      .describe("Why the run is undone; every compensation is told"),
  })
  .meta({ id: "UndoCreate" });

const STATUS_OF_REFUSAL = { run_not_found: 404, run_active: 409, nothing_to_undo: 409 } as const;

export function undoRoutes() {
  return new Hono<{ Bindings: EdgeEnv }>().post(
    "/runs/:runId/undo",
    bearerAuth(),
    limitBody(4096),
    strictJson(),
    zValidator("json", UndoCreateSchema, invalidBody),
    async (c) => {
      const runId = c.req.param("runId");
      const requestedBy = userOf(c.req.header(USER_HEADER));
      const threadId = threadOf(runId);
      if (!threadId) {
        throw new ApiError(404, "run_not_found", `no run ${runId}`);
      }
      const outcome: UndoOutcome = await threadStub(c.env, threadId).undo({
        runId,
        reason: c.req.valid("json").reason,
        requestedBy,
      });
      if (!outcome.ok) {
        throw new ApiError(STATUS_OF_REFUSAL[outcome.code], outcome.code, outcome.message);
      }
      return c.json(
        {
          runId,
          status: outcome.status,
          undo: outcome.undo,
          links: runLinks(publicBase(c), runId),
        },
        outcome.started ? 202 : 200,
      );
    },
  );
}

/** Who asks: an undo is always someone's (their name is on every `compensated` receipt). */
function userOf(value: string | undefined): string {
  const user = value?.trim() ?? "";
  if (!user || user.length > MAX_IDENTITY_CHARS) {
    throw new ApiError(400, "invalid_user", {
      message: `${USER_HEADER} (1–${MAX_IDENTITY_CHARS} characters) names who undoes the run`,
      issues: [{ path: USER_HEADER, message: user ? "too long" : "missing" }],
    });
  }
  return user.includes("@") ? user.toLowerCase() : user;
}
