import { createWorker, type WorkerOptions } from "../src/edge/create-worker";
import { createThreadObjectClass } from "./thread-object";

/**
 * Builds a deployable edge from agent definitions: the worker's handlers and the
 * thread Durable Object class. Export both from your worker module.
 * @example
 * const edge = createEdge({ agents: [supportAgent] });
 * export class ThreadObject extends edge.ThreadObject {}
 * export default edge.worker;
 */
export function createEdge(options: WorkerOptions) {
  return { worker: createWorker(options), ThreadObject: createThreadObjectClass(options) };
}
