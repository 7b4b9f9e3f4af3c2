/**
 * The deployable example: the demo `support` agent, and the `coordinator` that delegates to
 * `lookup` and `refunds` (src/edge/demo/team.ts). With no LLM_BASE_URL set, its
 * built-in deterministic model drives it, so `npm start` works offline.
 */
import { createEdge } from "./create-edge";
import { supportAgent } from "./edge/demo/agent";
import { coordinatorAgent, lookupAgent, refundsAgent } from "./edge/demo/team";

const edge = createEdge<Env>({
  agents: [supportAgent, coordinatorAgent, lookupAgent, refundsAgent],
});

export class ThreadObject extends edge.ThreadObject {}
export class InboxObject extends edge.InboxObject {}
export class ReceiptObject extends edge.ReceiptObject {}
export class McpSessionObject extends edge.McpSessionObject {}
export class TokenObject extends edge.TokenObject {}
export default edge.worker;
