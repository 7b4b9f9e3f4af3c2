// Issue 25 §2.7: a down server's reason names its URL and the runtime's cause, not just
// "fetch failed" (a real refused connection on 127.0.0.1, so Node's own error).
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { createToolkit } from "../../src/core";

describe("a server that is down", () => {
  it("fails with a reason naming the URL and ECONNREFUSED", async () => {
    // A port that was just free: listen, note it, close.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const url = `http://127.0.0.1:${port}/mcp`;
    const toolkit = await createToolkit({ mcp: { mcpServers: { down: { url } } } });
    const reason = toolkit.mcpStatus().down?.reason ?? "";
    expect(reason).toContain(`cannot reach ${url}`);
    expect(reason).toContain("ECONNREFUSED");
    await toolkit.close();
  });
});
