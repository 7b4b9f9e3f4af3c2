/**
 * The timeline page's one script (inline, allowed by its nonce): it listens to the run's
 * Server-Sent Events at the same origin and, after each burst of events, fetches the page
 * again and swaps in the new `#timeline` — the server stays the only renderer (and the only
 * escaper); the script never turns event data into markup. No data is interpolated here:
 * the events path comes from the element's `data-events` attribute.
 */
export const LIVE_SCRIPT = `(() => {
  const root = document.getElementById("timeline");
  const path = root && root.dataset.events;
  if (!path || typeof EventSource !== "function") return;
  const source = new EventSource(path);
  let timer;
  const swap = async () => {
    try {
      const res = await fetch(location.href, { credentials: "same-origin", cache: "no-store" });
      if (!res.ok) return;
      const next = new DOMParser().parseFromString(await res.text(), "text/html").getElementById("timeline");
      const current = document.getElementById("timeline");
      if (!next || !current) return;
      const open = new Set(Array.from(current.querySelectorAll("details[open]"), (d) => d.id));
      current.replaceChildren(...Array.from(next.childNodes, (n) => document.importNode(n, true)));
      for (const d of current.querySelectorAll("details")) if (open.has(d.id)) d.open = true;
      const live = document.getElementById("live");
      if (live) live.textContent = "updated " + new Date().toLocaleTimeString();
    } catch {}
  };
  const refresh = () => { clearTimeout(timer); timer = setTimeout(swap, 250); };
  for (const type of ["text", "tool_call", "tool_result", "pending", "resumed", "reminded", "escalated", "usage"]) {
    source.addEventListener(type, refresh);
  }
  for (const type of ["done", "error"]) {
    source.addEventListener(type, () => { source.close(); refresh(); });
  }
})();`;
