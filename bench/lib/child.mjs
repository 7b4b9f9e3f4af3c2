/**
 * A benchmark step in a fresh Node process: fork `script` with `args`, resolve with the one
 * message it sends, reject if it exits otherwise or takes longer than `timeoutMs` (then it
 * is killed). Used for pair processes, memory runs and module-startup samples.
 */
import { fork } from "node:child_process";

export function childResult(script, args, what, timeoutMs = 600_000) {
  const child = fork(script, args, { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${what} timed out`));
    }, timeoutMs);
    child.once("message", (m) => {
      clearTimeout(timer);
      resolve(m);
    });
    child.once("exit", (code) => {
      if (code !== 0) {
        clearTimeout(timer);
        reject(new Error(`${what}: child exited ${code}`));
      }
    });
  });
}
