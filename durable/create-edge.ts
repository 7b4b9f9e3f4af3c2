import { createWorker, type WorkerOptions } from "../src/edge/create-worker";
import { createThreadObjectClass } from "./thread-object";
import { InboxObject } from "./inbox-object";

/**
 * Builds a deployable edge from agent definitions: the worker's handlers and the
 * Durable Object classes: one per thread, one approvals inbox per approver group. Export
 * all three from your worker module.
 * @example
 * const edge = createEdge({ agents: [supportAgent] });
 * export class ThreadObject extends edge.ThreadObject {}
 * export class InboxObject extends edge.InboxObject {}
 * export default edge.worker;
 */
export function createEdge(options: WorkerOptions) {
  return {
    worker: createWorker(options),
    ThreadObject: createThreadObjectClass(options),
    InboxObject,
  };
}
