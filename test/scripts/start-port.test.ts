// Issue 39 item 7: `npm start` with port 8787 taken fails loudly instead of wrangler's silent
// move to 8788 (scripts/start.mjs; the check is scripts/lib/port.mjs).
import { execFile } from "node:child_process";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { portTaken, requestedPort } from "../../scripts/lib/port.mjs";
import { ROOT } from "../../scripts/lib/dev-vars.mjs";

const run = promisify(execFile);
const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.close();
  }
});

/** A port somebody listens on (127.0.0.1), like a first `npm start`. */
function held(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    servers.push(server);
    server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port));
  });
}

describe("npm start's port", () => {
  it("a port somebody listens on is taken; once closed it is free", async () => {
    const port = await held();
    expect(await portTaken(port)).toBe(true);
    servers.pop()?.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(await portTaken(port)).toBe(false);
  });

  it("reads --port as wrangler does, 8787 without", () => {
    expect(requestedPort([])).toBe(8787);
    expect(requestedPort(["--port", "8790"])).toBe(8790);
    expect(requestedPort(["--port=8791", "--ip", "0.0.0.0"])).toBe(8791);
  });

  it("scripts/start.mjs refuses a taken port, saying which and what to do, before wrangler starts", async () => {
    const port = await held();
    const failed = await run(
      process.execPath,
      [path.join(ROOT, "scripts/start.mjs"), "--port", String(port)],
      {
        cwd: ROOT,
        timeout: 20_000,
      },
    ).then(
      () => undefined,
      (error: { code: number; stderr: string; stdout: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain(`port ${port} is already in use`);
    expect(failed?.stderr).toContain(`npm start -- --port ${port + 1}`);
    expect(failed?.stdout).not.toContain("wrangler dev on");
    expect(failed?.stdout).not.toContain(".dev.vars"); // nothing written either
  });
});
