/**
 * One Durable Object per approver group (binding `INBOXES`, named by the group): the
 * approvals inbox. Thin: a projection fed by the threads' outboxes (`apply`) and read by
 * `GET /v1/approvals` and the `/inbox` page (`list`, `get`). The threads stay the truth.
 */
import { DurableObject } from "cloudflare:workers";
import type { EdgeEnv } from "../../src/edge/settings";
import type { InboxItem } from "../../src/edge/inbox/item";
import type { InboxCounts, InboxRpc } from "../../src/edge/inbox/rpc";
import type { InboxListQuery } from "../../src/edge/inbox/find/listing";
import type { InboxStats } from "../../src/edge/inbox/dashboard/stats";
import { createSql } from "../storage/sql";
import { type InboxQuery, InboxStore } from "./store";
import type { InboxPage } from "../../src/edge/inbox/rpc";
import type { ActiveDelegation } from "../../src/edge/protocol";
import type { Delegation, DelegationRpc } from "../../src/edge/delegations/rpc";
import { DelegationStore } from "./delegations";

export class InboxObject extends DurableObject<EdgeEnv> implements InboxRpc, DelegationRpc {
  readonly #store: InboxStore;
  /** Only the `~delegations` instance holds rows (src/edge/delegations/rpc.ts). */
  readonly #delegations: DelegationStore;

  constructor(ctx: DurableObjectState, env: EdgeEnv) {
    super(ctx, env);
    this.#store = new InboxStore(createSql(ctx.storage.sql), (fn) =>
      ctx.storage.transactionSync(fn),
    );
    this.#delegations = new DelegationStore(createSql(ctx.storage.sql));
  }

  /** Applies a batch of item versions from one thread's outbox; returning acknowledges them. */
  async apply(items: InboxItem[]): Promise<{ changed: number }> {
    return { changed: this.ctx.storage.transactionSync(() => this.#store.apply(items)) };
  }

  async list(query: InboxQuery): Promise<InboxPage> {
    return this.#store.list(query);
  }

  async counts(query: InboxListQuery): Promise<InboxCounts> {
    return this.#store.counts(query);
  }

  async stats(now: number): Promise<InboxStats> {
    return this.#store.stats(now);
  }

  async get(runId: string, requestId: string): Promise<InboxItem | undefined> {
    return this.#store.get(runId, requestId);
  }

  // Issue 42: the delegations directory (durable/inbox/delegations.ts).
  async addDelegation(d: ActiveDelegation & { createdAt: string }): Promise<Delegation> {
    return this.#delegations.add(d);
  }

  async listDelegations(query: { now: number; member?: string }): Promise<Delegation[]> {
    return this.#delegations.running(query);
  }

  async getDelegation(id: string): Promise<Delegation | undefined> {
    return this.#delegations.get(id);
  }

  async endDelegation(id: string, now: number): Promise<Delegation | undefined> {
    return this.#delegations.end(id, now);
  }

  async delegationsTo(to: string, now: number): Promise<ActiveDelegation[]> {
    return this.#delegations.to(to, now);
  }
}
