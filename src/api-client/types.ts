/**
 * The client's types, inferred from the zod schemas that validate the routes and
 * generate /openapi.json (src/edge/http/schemas.ts): one source, no second list to keep.
 * Type-only imports: the client bundle carries no zod.
 */
import type * as z from "zod";
import type {
  AgentsSchema,
  DecisionAcceptedSchema,
  DecisionSchema,
  ErrorSchema,
  RunAcceptedSchema,
  RunCreateSchema,
  RunLinkCreateSchema,
  RunLinkSchema,
  RunViewSchema,
} from "../edge/http/schemas";
import type {
  ApprovalsPageSchema,
  ApprovalsQuerySchema,
  ApproverLinkCreateSchema,
  ApproverLinkSchema,
} from "../edge/inbox/schemas";
import type { RunViewLinkSchema } from "../edge/timeline/schemas";
import type { ToolCallRecordSchema } from "../edge/http/openapi/tool-calls";
import type { UndoAcceptedSchema } from "../edge/http/openapi/undo";
import type { UndoCreateSchema } from "../edge/undo/routes";

/** The body of `POST /v1/runs/:runId/undo`. */
export type UndoCreate = z.input<typeof UndoCreateSchema>;
/** `202` (begun) or `200` (the first undo's state) of `POST /v1/runs/:runId/undo`. */
export type UndoAccepted = z.output<typeof UndoAcceptedSchema>;

/** The body of `POST /v1/runs`. */
export type RunCreate = z.input<typeof RunCreateSchema>;
/** `202` of `POST /v1/runs`. */
export type RunAccepted = z.output<typeof RunAcceptedSchema>;
/** A run as `GET /v1/runs/:runId` and `POST /v1/runs/:runId/cancel` return it. */
export type Run = z.output<typeof RunViewSchema>;
/** One of a run's `toolCalls`: its whole output, and `truncated` when the model was sent less. */
export type ToolCall = z.output<typeof ToolCallRecordSchema>;
/** The body of `POST /v1/runs/:runId/links`. */
export type RunLinkCreate = z.input<typeof RunLinkCreateSchema>;
/** `201` of `POST /v1/runs/:runId/links`: the approval page, deciding as that approver. */
export type RunLink = z.output<typeof RunLinkSchema>;
/** The body of `POST /v1/decisions`. */
export type Decision = z.input<typeof DecisionSchema>;
/** `202` (recorded) or `200` (identical repeat) of `POST /v1/decisions`. */
export type DecisionAccepted = z.output<typeof DecisionAcceptedSchema>;
/** `GET /v1/agents`. */
export type Agents = z.output<typeof AgentsSchema>;
/** Every error response: `{ error: { code, message, issues? } }`. */
export type ErrorBody = z.output<typeof ErrorSchema>;
/** The query of `GET /v1/approvals` (`limit` is a number here; the route coerces its text). */
export type ApprovalsQuery = Omit<z.input<typeof ApprovalsQuerySchema>, "limit"> & {
  limit?: number;
};
/** A page of one group's inbox. */
export type ApprovalsPage = z.output<typeof ApprovalsPageSchema>;
/** The body of `POST /v1/approvers/links`. */
export type ApproverLinkCreate = z.input<typeof ApproverLinkCreateSchema>;
/** `201` of `POST /v1/approvers/links`: a sign-in link to the approver's `/inbox`. */
export type ApproverLink = z.output<typeof ApproverLinkSchema>;
/** `201` of `POST /v1/runs/:runId/view-link`: a signed link to the run's timeline page. */
export type RunViewLink = z.output<typeof RunViewLinkSchema>;
