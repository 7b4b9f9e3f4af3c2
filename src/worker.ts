/**
 * The deployable example: the demo `support` agent. With no LLM_BASE_URL set, its
 * built-in deterministic model drives it, so `npm start` works offline.
 */
import { createEdge } from "./create-edge";
import { supportAgent } from "./edge/demo-agent";

const edge = createEdge<Env>({ agents: [supportAgent] });

export class ThreadObject extends edge.ThreadObject {}
export class InboxObject extends edge.InboxObject {}
export class ReceiptObject extends edge.ReceiptObject {}
export class McpSessionObject extends edge.McpSessionObject {}
export default edge.worker;
