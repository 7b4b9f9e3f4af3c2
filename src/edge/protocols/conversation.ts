/**
 * A conversation id chosen by the client (a `useChat` id, an AG-UI `threadId`) names a
 * thread only together with the caller's identity: the thread id is an HMAC of both under
 * a key derived from `WEBHOOK_SECRET` (label "conversation"), in the documented `th_` + 32
 * hex form. So the same id from another identity is another conversation, and no chat id
 * can be made to reach a thread it did not create (thread ids of `POST /v1/runs` are
 * random; guessing one from a chat id needs the key).
 *
 * Rotation: every configured secret derives a candidate; the first whose thread already
 * has runs wins, else the signing (first) secret's. A conversation begun before a rotation
 * stays reachable while its secret is still listed.
 */
import { derivedKeys } from "../approvals/keys";
import { readConfig, type EdgeEnv } from "../settings";
import { threadStub } from "../http/threads";
import type { ThreadRpc } from "../protocol";

const encoder = new TextEncoder();

export const MAX_CONVERSATION_ID_CHARS = 200;

export interface Conversation {
  threadId: string;
  stub: ThreadRpc;
}

export async function conversationThreadIds(
  env: EdgeEnv,
  user: string | null,
  conversationId: string,
): Promise<string[]> {
  const keys = await derivedKeys(readConfig(env).webhookSecrets, "conversation");
  // Distinct prefixes: an anonymous caller's ids never collide with a named user's.
  const subject =
    user === null ? `anon\u0000${conversationId}` : `user\u0000${user}\u0000${conversationId}`;
  const bytes = encoder.encode(subject);
  return Promise.all(
    keys.map(async (key) => {
      const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, bytes));
      const hex = [...mac.slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("");
      return `th_${hex}`;
    }),
  );
}

/** The conversation's thread (see the module comment for rotation). */
export async function conversation(
  env: EdgeEnv,
  user: string | null,
  conversationId: string,
): Promise<Conversation> {
  const ids = await conversationThreadIds(env, user, conversationId);
  const [signer] = ids;
  if (!signer) {
    throw new Error("no conversation key");
  }
  for (const threadId of ids.slice(1)) {
    const stub = threadStub(env, threadId);
    if ((await stub.runs()).length > 0) {
      return { threadId, stub };
    }
  }
  return { threadId: signer, stub: threadStub(env, signer) };
}
