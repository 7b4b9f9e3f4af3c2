/**
 * Records a CPU profile of a worker running under `wrangler dev`, through its
 * inspector port (Chrome DevTools Protocol: Profiler.start / Profiler.stop).
 */
import WebSocket from "ws";

export async function startProfile(inspectorPort, { intervalUs = 200 } = {}) {
  const targets = await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json();
  const target = targets.find((t) => t.webSocketDebuggerUrl) ?? targets[0];
  if (!target) {
    throw new Error(`no inspector target on port ${inspectorPort}`);
  }
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", (error) =>
      reject(new Error(`inspector connection failed: ${error.message}`)),
    );
  });
  let next = 0;
  const waiting = new Map();
  socket.on("message", (data) => {
    const message = JSON.parse(String(data));
    const pending = waiting.get(message.id);
    if (!pending) {
      return;
    }
    waiting.delete(message.id);
    message.error
      ? pending.reject(new Error(message.error.message))
      : pending.resolve(message.result);
  });
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      waiting.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: intervalUs });
  await send("Profiler.start");
  return {
    target: target.title ?? target.url,
    async stop() {
      const { profile } = await send("Profiler.stop");
      socket.close();
      return profile;
    },
  };
}
