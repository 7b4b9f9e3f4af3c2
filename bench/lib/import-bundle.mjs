/**
 * Child process of bundle.mjs: imports one built worker bundle (whose
 * `cloudflare:workers` import was pointed at a stub) and reports how long module
 * evaluation took and the heap it left behind. One fresh process per sample.
 */
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const file = process.argv[2];
const heap0 = process.memoryUsage().heapUsed;
const t0 = performance.now();
const module = await import(pathToFileURL(file).href);
const ms = performance.now() - t0;
if (typeof module.default?.fetch !== "function") {
  throw new Error(`${file}: no default fetch handler`);
}
process.send({ ms, heap: process.memoryUsage().heapUsed - heap0, rss: process.memoryUsage().rss });
