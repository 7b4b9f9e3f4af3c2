/**
 * The installed version of a peer (from bench/node_modules), so a table's labels say which
 * release was measured instead of a hand-written number that outlives an upgrade.
 */
import fs from "node:fs";
import path from "node:path";
import { BENCH } from "./build.mjs";

export function peerVersion(name) {
  try {
    // Read from disk: some packages' `exports` do not expose their package.json.
    const file = path.join(BENCH, "node_modules", name, "package.json");
    return JSON.parse(fs.readFileSync(file, "utf8")).version;
  } catch {
    return "not installed";
  }
}

export const PEER_LABELS = {
  "vercel-ai": `Vercel AI SDK (ai ${peerVersion("ai")})`,
  "openai-agents": `OpenAI Agents SDK ${peerVersion("@openai/agents")}`,
  langgraph: `LangGraph JS ${peerVersion("@langchain/langgraph")}`,
};
