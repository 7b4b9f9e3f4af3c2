/**
 * toolnexus-edge: the public API. The kernel (`./core`) runs in any runtime with
 * web-standard APIs; the edge factory builds a Cloudflare Worker from agents.
 */
export * from "./core";
export { createEdge } from "./create-edge";
export { defineAgent } from "./edge/agent";
export type { AgentDefinition, AgentTools } from "./edge/agent";
export {
  signWebhook,
  verifyWebhook,
  webhookHeaders,
  WebhookVerificationError,
} from "./edge/notify/webhooks";
export type { Notification } from "./edge/notify/notification";
export type { RunView, DecisionView } from "./edge/protocol";
export type { UndoView, CompensationView } from "./edge/undo/types";
