/**
 * The kernel's `TokenStore` (src/core/mcp/oauth/store.ts) over the `MCP_TOKENS` binding:
 * each subject's records live in that subject's `TokenObject`, reached over RPC.
 */
import type { TokenStore } from "../../src/core/mcp/oauth/store";
import type { TokenRpc } from "./object";

export function durableTokenStore(namespace: DurableObjectNamespace): TokenStore {
  const object = (subject: string) =>
    namespace.get(namespace.idFromName(subject)) as unknown as TokenRpc;
  return {
    get: (server, subject) => object(subject).get(subject, server),
    set: (server, subject, record) => object(subject).set(subject, server, record),
    delete: (server, subject) => object(subject).delete(subject, server),
  };
}
