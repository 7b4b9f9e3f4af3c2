/**
 * Undo in /openapi.json (issue 44, docs/undo.md): `POST /v1/runs/{runId}/undo` and the `undo`
 * member of a run (document.ts spreads the path in and lists the schemas).
 */
import * as z from "zod";
import { error, json, ref } from "./parts";

export const CompensationSchema = z
  .object({
    callId: z.string().describe("The call taken back"),
    tool: z.string(),
    status: z
      .enum(["started", "ran", "failed", "not_compensable"])
      .describe(
        "started: running now; ran; failed (after its retries, or interrupted by a crash: never run twice); not_compensable: the tool has no compensate",
      ),
    output: z.string().optional().describe("What the compensation returned (ran)"),
    error: z.string().optional().describe("Why it failed"),
  })
  .meta({ id: "Compensation" });

export const UndoSchema = z
  .object({
    reason: z.string(),
    requestedBy: z
      .string()
      .describe('Who asked (x-toolnexus-user), or "onFailure" for an agent\'s automatic undo'),
    requestedAt: z.string(),
    state: z.enum(["compensating", "compensated"]),
    finishedAt: z.string().nullable(),
    compensations: z
      .array(CompensationSchema)
      .describe("Last call first; every completed call is listed"),
  })
  .meta({ id: "Undo" });

export const UndoAcceptedSchema = z
  .object({
    runId: z.string(),
    status: z.string().describe("The run's status (compensated once every step has run)"),
    undo: UndoSchema,
    links: z.object({ self: z.string(), events: z.string(), cancel: z.string() }),
  })
  .meta({ id: "UndoAccepted" });

const runId = { name: "runId", in: "path", required: true, schema: { type: "string" } };

export const UNDO_PATHS = {
  "/v1/runs/{runId}/undo": {
    post: {
      operationId: "undoRun",
      summary:
        "Undo a finished run: each completed call whose tool has a compensate is taken back, last first, each once (a durable step per call); the run ends compensated",
      security: [{ bearer: [] }],
      parameters: [
        runId,
        {
          name: "x-toolnexus-user",
          in: "header",
          required: true,
          description: "Who undoes the run (named on every compensated receipt)",
          schema: { type: "string" },
        },
      ],
      requestBody: {
        required: true,
        content: { "application/json": { schema: ref("UndoCreate") } },
      },
      responses: {
        200: json("UndoAccepted", "Undone before (or under way): the first undo's state"),
        202: json("UndoAccepted", "The undo has begun; GET the run or its events to follow it"),
        400: error(
          "invalid_json; invalid_body; invalid_user: x-toolnexus-user missing or too long",
        ),
        401: error("Bad or missing token"),
        404: error("run_not_found"),
        409: error(
          "run_active: the run is running or waiting (cancel it, or undo it once finished); nothing_to_undo: no completed call whose tool can compensate",
        ),
      },
    },
  },
};
