/**
 * One Durable Object per subject (binding `MCP_TOKENS`, class `TokenObject`): that person's
 * (or thread's) MCP OAuth records — tokens, a registered client, a sign-in in progress —
 * one row per server, AES-GCM encrypted at rest (cipher.ts). Only the thread objects call
 * it, over RPC, through the kernel's `TokenStore` (store.ts); no route reaches it.
 */
import { DurableObject } from "cloudflare:workers";
import type { OAuthRecord } from "../../src/core/mcp/oauth/store";
import { tokenKeys } from "../../src/edge/oauth/keys";
import { open, seal } from "./cipher";
import { settings } from "../../src/edge/settings";

/** What the thread object calls. */
export interface TokenRpc {
  get(subject: string, server: string): Promise<OAuthRecord | undefined>;
  set(subject: string, server: string, record: OAuthRecord): Promise<void>;
  delete(subject: string, server: string): Promise<void>;
}

export class TokenObject extends DurableObject implements TokenRpc {
  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS oauth_records (
      server TEXT PRIMARY KEY,
      iv BLOB NOT NULL,
      data BLOB NOT NULL,
      updated_at INTEGER NOT NULL
    )`);
  }

  async get(subject: string, server: string): Promise<OAuthRecord | undefined> {
    const row = this.ctx.storage.sql
      .exec<{ iv: ArrayBuffer; data: ArrayBuffer }>(
        "SELECT iv, data FROM oauth_records WHERE server = ?",
        server,
      )
      .toArray()[0];
    if (!row) {
      return undefined;
    }
    // A row that no longer decrypts (the key was replaced) reads as none: the person signs in again.
    return open(
      await this.#key(),
      { subject, server },
      {
        iv: new Uint8Array(row.iv),
        data: new Uint8Array(row.data),
      },
    );
  }

  async set(subject: string, server: string, record: OAuthRecord): Promise<void> {
    const sealed = await seal(await this.#key(), { subject, server }, record);
    this.ctx.storage.sql.exec(
      `INSERT INTO oauth_records (server, iv, data, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (server) DO UPDATE SET iv = excluded.iv, data = excluded.data, updated_at = excluded.updated_at`,
      server,
      sealed.iv,
      sealed.data,
      Date.now(),
    );
  }

  async delete(_subject: string, server: string): Promise<void> {
    this.ctx.storage.sql.exec("DELETE FROM oauth_records WHERE server = ?", server);
  }

  async #key(): Promise<CryptoKey> {
    return (await tokenKeys(settings(this.env as object).oauth.key)).cipher;
  }
}
