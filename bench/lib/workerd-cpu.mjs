/**
 * CPU time of a `wrangler dev`'s workerd (lib/wrangler-dev.mjs starts it in its own process
 * group and returns the group's id as `pid`), read from /proc (Linux).
 */
import fs from "node:fs";

const TICKS_PER_MS = 100 / 1000; // USER_HZ: /proc's CPU times are in 1/100 s on Linux

/**
 * CPU time (user + system, ms) of the workerd processes in a wrangler dev's process group: real
 * CPU, unlike a sampling profiler's busy time, which counts the time the thread waited for a
 * core on a loaded machine. It is all of workerd: the worker's isolate with its SQLite calls,
 * and workerd's own I/O and local queue broker.
 */
export function workerdCpuMs(groupId) {
  let ticks = 0;
  for (const pid of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) {
      continue;
    }
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // fields[0] is field 3 (state): pgrp is field 5, utime 14, stime 15.
      if (Number(fields[2]) === groupId && name.startsWith("workerd")) {
        ticks += Number(fields[11]) + Number(fields[12]);
      }
    } catch {}
  }
  return ticks / TICKS_PER_MS;
}
