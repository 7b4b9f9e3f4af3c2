/** Microsoft Teams' bot endpoint in /openapi.json (document.ts spreads it in). */
import { error } from "./parts";

export const TEAMS_PATHS = {
  "/teams/messages": {
    post: {
      operationId: "handleTeamsActivity",
      summary:
        "Microsoft Teams (Bot Framework) activities: the Approve / Decline buttons of approval cards",
      description:
        "Authenticated by the Bot Framework's JWT (Authorization: Bearer; keys from TEAMS_OPENID_URL, issuer https://api.botframework.com, audience TEAMS_APP_ID). A press of a card's button (Action.Submit: a message activity whose value names the request) is recorded through the ledger as channel teams; any other activity is acknowledged and ignored.",
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              description: "A Bot Framework activity",
              properties: {
                type: { type: "string" },
                id: { type: "string" },
                serviceUrl: { type: "string" },
                from: {
                  type: "object",
                  properties: { id: { type: "string" }, aadObjectId: { type: "string" } },
                },
                conversation: { type: "object", properties: { id: { type: "string" } } },
                value: {
                  type: "object",
                  description:
                    "The card's data: toolnexus (toolnexus_approve | toolnexus_decline), runId, requestId, argsHash, reason",
                },
              },
            },
          },
        },
      },
      // No API credential: the Bot Framework's own token is checked instead.
      security: [],
      responses: {
        200: {
          description:
            "Recorded (or an identical repeat, or not one of our buttons: an empty body); the card is replaced through the notify queue",
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: {
                  status: { type: "string", enum: ["decided", "vote_recorded"] },
                  duplicate: { type: "boolean" },
                },
              },
            },
          },
        },
        400: error("Not a Bot Framework activity, or an invalid decision (args_changed, …)"),
        401: error("Missing, forged, expired or wrong-audience Bot Framework token"),
        403: error("not_an_approver / own_request: the Teams user may not decide this request"),
        404: error(
          "teams_not_configured (TEAMS_APP_ID / TEAMS_APP_PASSWORD unset), or unknown run or request",
        ),
        409: error("No longer pending: already decided, expired, cancelled, or a changed vote"),
        413: error("Body over 64 KiB"),
      },
    },
  },
};
