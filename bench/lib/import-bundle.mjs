/**
 * Child process of bundle.mjs: imports one built worker bundle (whose
 * `cloudflare:workers` import was pointed at a stub) and reports how long module
 * evaluation took (wall and CPU time) and the heap it left behind. One fresh process per sample.
 */
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const file = process.argv[2];
const heap0 = process.memoryUsage().heapUsed;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const module = await import(pathToFileURL(file).href);
const ms = performance.now() - t0;
// CPU time of the whole process (V8's compile and GC threads too): steadier than wall time
// on a machine others are using, since time spent waiting for a core is not counted.
const cpu = process.cpuUsage(cpu0);
if (typeof module.default?.fetch !== "function") {
  throw new Error(`${file}: no default fetch handler`);
}
process.send({
  ms,
  cpuMs: (cpu.user + cpu.system) / 1000,
  heap: process.memoryUsage().heapUsed - heap0,
  rss: process.memoryUsage().rss,
});
