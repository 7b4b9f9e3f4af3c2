// Lets the MCP conformance CLI (@modelcontextprotocol/conformance 0.1.16) start on Node 20: it
// imports `globSync` from "fs" (Node ≥ 22) for its results report only, which fails to link
// under Node 20 before anything runs. This hook gives that one package an "fs" with a stub.
// Use: node --import <this file> <the CLI> client …, as test/protocols/mcp-conformance.test.mjs does.
import { register } from "node:module";

register("./fs-hook.mjs", import.meta.url);
