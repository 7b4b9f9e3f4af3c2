/**
 * Serves examples/chat with vite and proxies /v1 to a running worker, adding the Bearer
 * token and `x-toolnexus-user` on the way (the part an application's backend plays).
 * `npm run chat` and the Chromium tests use it.
 */
import path from "node:path";
import { createServer } from "vite";
import { ROOT } from "./dev-vars.mjs";

export async function startChatPage({
  target,
  apiToken,
  user = "demo-user@example.com",
  port = 0,
}) {
  const server = await createServer({
    root: path.join(ROOT, "examples/chat"),
    configFile: false,
    logLevel: "warn",
    clearScreen: false,
    server: {
      host: "127.0.0.1",
      port,
      strictPort: false,
      proxy: {
        "/v1": {
          target,
          changeOrigin: true,
          headers: { authorization: `Bearer ${apiToken}`, "x-toolnexus-user": user },
        },
      },
    },
    oxc: { jsx: { runtime: "automatic" } },
  });
  await server.listen();
  const address = server.httpServer.address();
  return { url: `http://127.0.0.1:${address.port}`, stop: () => server.close() };
}
