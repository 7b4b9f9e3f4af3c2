/**
 * Is a local port free for `wrangler dev`? Without `--port`, wrangler 4.86 probes 8787 and
 * the next ports and silently serves on the first free one (its `memoizeGetPort`), so a second
 * `npm start` would answer on 8788 while every doc, the demo and the curl walk-through talk
 * to 8787. `npm start` (scripts/start.mjs) asks here first and fails loudly instead.
 */
import { connect, createServer } from "node:net";

/** Something accepts connections at host:port (a server on 127.0.0.1 or on ::1 both count). */
function answers(host, port) {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(1_000);
    const done = (value) => {
      socket.destroy();
      resolve(value);
    };
    socket.once("connect", () => done(true));
    socket.once("timeout", () => done(false));
    socket.once("error", () => done(false));
  });
}

/** The port can be bound on 127.0.0.1 right now. */
function bindable(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** True when `wrangler dev --port <port>` could not listen on localhost:<port>. */
export async function portTaken(port) {
  const [v4, v6, free] = await Promise.all([
    answers("127.0.0.1", port),
    answers("::1", port),
    bindable(port),
  ]);
  return v4 || v6 || !free;
}

/** The port a `wrangler dev` command line asks for (`--port 8788`, `--port=8788`), else 8787. */
export function requestedPort(args) {
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    if (arg === "--port" || arg === "-p") {
      return Number(args[i + 1]);
    }
    const match = /^--port=(\d+)$/.exec(arg);
    if (match) {
      return Number(match[1]);
    }
  }
  return 8787;
}
