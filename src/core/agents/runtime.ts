/**
 * The agent runtime (SPEC §7D): the handle table under one root, the six host verbs
 * (`spawn`, `post`, `wake`, `wait`, `interrupt`, `close`), the views (`list`, `inspect`),
 * and `run` / `runWithAnswer` for a whole tree. One clock, one conversation store for every
 * handle (conversation id = handle id), one turn gate. The SPEC pins transitions, never
 * scheduling: nothing here depends on which promise settles first.
 *
 * Persistence seam: `snapshot()` returns the whole tree as plain JSON (one record per handle,
 * see handle.ts for the shape) and `createAgentRuntime({ …, restore: snapshot })` rebuilds
 * it; transcripts live in `store` (pass your own ConversationStore to persist them).
 */
import type { Answer, RefusalText, Request, WaitFor } from "../types";
import type { Hooks } from "../hooks";
import type { MetricEvent } from "../metrics";
import { memoryConversationStore, type ConversationStore } from "../client/conversation-store";
import { ResumeError } from "../errors";
import { systemClock, type Clock } from "./limits/clock";
import { turnGate } from "./limits/gates";
import { AgentConfigError, buildRegistry } from "./registry";
import type { AgentModelBackend } from "./model";
import { describeExhausted, carve, exhausted, spawnRefusal, treeRefusal } from "./limits/budget";
import { budgetAdmission } from "./limits/admission";
import { DEFAULT_INBOX_CAP, admit, normalizeItem } from "./limits/inbox";
import { ROOT_ID, newLive, newRecord, nextChildId, type Live } from "./tree/handle";
import { chainOf, get, transition, viewOf, type RuntimeCore, type TransitionEvent } from "./core";
import { resultOf, runTurn } from "./tree/turn";
import { close, interrupt } from "./tree/lifecycle";
import { answerTree } from "./tree/resume";
import { restoreRecords, type RuntimeSnapshot } from "./tree/snapshot";
import { describe } from "./tree/info";
import type {
  AgentDef,
  AgentResult,
  Budget,
  HandleInfo,
  InboxItem,
  PostResult,
  WakeResult,
} from "./types";

export interface AgentRuntimeOptions {
  /** How to reach the model: `{ generate }` in process, or a wire endpoint (`style`, `baseUrl`, …). */
  client: AgentModelBackend;
  /** The model of agents that inherit (the default), at the top of the tree. */
  model: string;
  /** The registry: these agents and the transitive closure of their teams. */
  agents?: Array<AgentDef | { def: AgentDef }>;
  /** The root's budget: bounds the whole tree. */
  budget?: Budget;
  /** The root's interpreter: answers requests no agent's `waitFor` answered (else the tree halts `pending`). */
  waitFor?: WaitFor;
  /** §8 hooks for every agent that sets none of its own (replace, never merge). */
  hooks?: Hooks;
  /** §8 metrics sink for every agent that sets none of its own. */
  onMetric?: (event: MetricEvent) => void;
  refusalText?: RefusalText;
  /** One store for every handle's transcript (conversation id = handle id). Default: in memory. */
  store?: ConversationStore;
  /** Every timer, timeout and deadline reads this clock. Default: the system clock. */
  clock?: Clock;
  /** Gate 3: LLM calls in flight across the runtime. Default: unlimited. */
  maxConcurrentTurns?: number;
  /** Gate 1: items an inbox holds. Default 64. */
  inboxCap?: number;
  /** How long `close` lets a running turn finish before interrupting it. Default 30 000 ms. */
  shutdownMs?: number;
  /** The per-run model-turn cap of the §8 loop when no budget is tighter. Default 10. */
  maxTurns?: number;
  /** Every transition of every handle, as it happens. */
  onTransition?: (event: TransitionEvent) => void;
  /** A tree saved by `snapshot()`: the runtime starts from it. */
  restore?: RuntimeSnapshot;
}

/** A handle reference: the id string, or anything with an `id` (what `spawn` returns). */
export type HandleRef = string | { readonly id: string };

export interface AgentRuntime {
  spawn(parent: HandleRef, def: AgentDef | { def: AgentDef } | string, budget?: Budget): HandleInfo;
  post(handle: HandleRef, item: InboxItem | string): PostResult;
  wake(handle: HandleRef, prompt?: string): WakeResult;
  /** `by`: the waiting handle (the runtime's `root` for the host); only a handle's spawner may wait on it. */
  wait(handle: HandleRef, options?: WaitOptions): Promise<AgentResult>;
  interrupt(handle: HandleRef): Promise<void>;
  close(handle: HandleRef, options?: { force?: boolean }): Promise<void>;
  list(): HandleInfo[];
  inspect(handle: HandleRef): HandleInfo;
  /** spawn under the root → wake → wait: one delegation tree, start to settle. */
  run(
    entry: AgentDef | { def: AgentDef } | string,
    prompt: string,
    options?: { budget?: Budget },
  ): Promise<AgentResult>;
  /** The answer to a halted tree's request: routed to the deepest suspended handle, then cascaded up. */
  runWithAnswer(input: { answer: Answer; pending?: Request }): Promise<AgentResult>;
  /** The whole tree as plain JSON (no transcripts: those are in `store`). */
  snapshot(): RuntimeSnapshot;
  /** Free-form notes in order ("wake QUEUED …", "task replay → REATTACH …"). */
  notes(): string[];
  /** LLM calls in flight now and at most so far (gate 3). */
  turnGate(): { active: number; peak: number };
  /** The one conversation store (read handle; supply your own at construction to swap it). */
  readonly store: ConversationStore;
  readonly root: string;
}

export const idOf = (ref: HandleRef) => (typeof ref === "string" ? ref : ref.id);

export interface WaitOptions {
  timeout?: number;
  /** Who waits: enforced "wait only what you spawned" when given. */
  by?: HandleRef;
}

/**
 * @example
 * const rt = createAgentRuntime({ client: { generate }, model: "m", agents: [coordinator] });
 * const result = await rt.run("coordinator", "Refund order 42");
 * if (result.status === "pending") await rt.runWithAnswer({ answer: answerOutput(result.pending.id) });
 */
export function createAgentRuntime(options: AgentRuntimeOptions): AgentRuntime {
  if (!options || typeof options.model !== "string" || !options.client) {
    throw new TypeError("createAgentRuntime: client and model are required");
  }
  const registry = buildRegistry(options.agents ?? [], options.budget);
  const clock = options.clock ?? systemClock;
  const store = options.store ?? memoryConversationStore();
  const notes: string[] = [];
  const live = new Map<string, Live>();

  const core: RuntimeCore = {
    options: {
      client: options.client,
      model: options.model,
      maxTurns: options.maxTurns ?? 10,
      inboxCap: options.inboxCap ?? DEFAULT_INBOX_CAP,
      shutdownMs: options.shutdownMs ?? 30_000,
      ...(options.hooks ? { hooks: options.hooks } : {}),
      ...(options.onMetric ? { onMetric: options.onMetric } : {}),
      ...(options.waitFor ? { waitFor: options.waitFor } : {}),
      ...(options.refusalText ? { refusalText: options.refusalText } : {}),
      ...(options.onTransition ? { onTransition: options.onTransition } : {}),
    },
    clock,
    store,
    gate: turnGate(options.maxConcurrentTurns),
    admission: budgetAdmission(),
    registry,
    live,
    note: (text) => void notes.push(text),
    spawn,
    post,
    wake,
    wait,
    interrupt: (id) => interrupt(core, id),
    close: (id, closeOptions) => close(core, id, closeOptions),
    answer: (top, answer) => answerTree(core, top, answer),
  };

  if (options.restore) {
    for (const record of restoreRecords(options.restore)) {
      const def = record.id === ROOT_ID ? undefined : registry.get(record.agent);
      if (record.id !== ROOT_ID && !def) {
        throw new AgentConfigError(
          `restore: handle ${record.id} runs agent "${record.agent}", which this runtime does not define`,
          [record.agent],
        );
      }
      live.set(record.id, newLive(record, def));
    }
    // The per-tree cap counts every handle below each one, as spawning did.
    for (const restored of live.values()) {
      let above = restored.record.parent;
      while (above !== null) {
        const holder = live.get(above);
        if (!holder) {
          break;
        }
        holder.descendants += 1;
        above = holder.record.parent;
      }
    }
  }
  if (!live.has(ROOT_ID)) {
    live.set(
      ROOT_ID,
      newLive(
        newRecord({
          id: ROOT_ID,
          parent: null,
          agent: ROOT_ID,
          depth: 0,
          budget: options.budget ?? {},
        }),
        undefined,
      ),
    );
  }

  function spawn(parentId: string, entry: AgentDef | { def: AgentDef } | string, budget?: Budget) {
    const parent = get(core, parentId);
    if (parent.closing || parent.record.state === "closed") {
      throw new AgentRuntimeError(`spawn: ${parentId} is closed`, "closed");
    }
    const def = typeof entry === "string" ? registry.get(entry) : registry.add(entry);
    if (!def) {
      throw new AgentConfigError(
        `spawn: no agent "${entry}" (defined: ${registry.names().join(", ") || "none"})`,
        [String(entry)],
      );
    }
    const chain = chainOf(core, parent.record);
    const refused = spawnRefusal(chain) ?? exhausted(chain, clock.now());
    if (refused) {
      throw new AgentRuntimeError(`spawn refused: ${describeExhausted(refused)}`, refused.limit);
    }
    const overTree = treeRefusal(
      chain.map((record) => ({
        id: record.id,
        budget: record.budget,
        descendants: live.get(record.id)?.descendants ?? 0,
        top: record.id === ROOT_ID,
      })),
    );
    if (overTree) {
      throw new AgentRuntimeError(overTree, "maxDescendants");
    }
    for (const record of chain) {
      const holder = live.get(record.id);
      if (holder) {
        holder.descendants += 1;
      }
    }
    const id = nextChildId(parent.record, def.name);
    const effective = carve({ ...(def.budget ?? {}), ...(budget ?? {}) }, chain, clock.now());
    const record = newRecord({
      id,
      parent: parent.record.id,
      agent: def.name,
      depth: parent.record.depth + 1,
      budget: effective,
    });
    parent.record.children.push(id);
    parent.record.spawnedChildren += 1;
    const child = newLive(record, def);
    live.set(id, child);
    if (def.onSpawn) {
      record.spawnHookDone = true;
      const onSpawn = def.onSpawn;
      child.spawnHook = Promise.resolve()
        .then(() => onSpawn(viewOf(core, child)))
        .catch((error) => core.note(`${id}: onSpawn failed: ${String(error)}`));
    }
    return child;
  }

  function post(id: string, item: InboxItem | string): PostResult {
    const target = live.get(id);
    if (!target) {
      return { ok: false, error: `post: no handle ${JSON.stringify(id)}` };
    }
    if (target.closing || target.record.state === "closed") {
      return { ok: false, error: `post: ${id} is closed` };
    }
    const normalized = normalizeItem(item);
    if (typeof normalized === "string") {
      return { ok: false, error: normalized };
    }
    return admit(target.record.inbox, normalized, { cap: core.options.inboxCap, holder: id });
  }

  /** Admission is one synchronous step: check, slot take (or FIFO queue) and state flip. */
  function wake(id: string, prompt?: string): WakeResult {
    const target = get(core, id);
    const record = target.record;
    if (id === ROOT_ID) {
      return { ok: false, error: "wake: the root is the host; wake one of its children" };
    }
    if (target.closing || record.state === "closed") {
      return { ok: false, error: `wake: ${id} is closed` };
    }
    if (record.state === "suspended") {
      // The answer is a suspended handle's only exit (§7D): a wake changes nothing, and what
      // was posted stays in the inbox for the turn after it. A no-op that succeeds, as in
      // the reference runtime (issue 40).
      return { ok: true, queued: false };
    }
    if (record.state !== "idle" || target.busy || record.queued) {
      const what = record.queued ? "queued" : record.state;
      return { ok: false, error: `wake: ${id} is ${what}; only an idle handle wakes` };
    }
    const parent = get(core, record.parent ?? ROOT_ID);
    const max = parent.record.budget.maxConcurrent;
    if (max !== undefined && parent.slots >= max) {
      record.queued = true;
      target.queuedPrompt = prompt;
      parent.wakeQueue.push(id);
      core.note(`wake QUEUED ${id} (${parent.record.id} runs ${parent.slots} of ${max})`);
      return { ok: true, queued: true };
    }
    parent.slots += 1;
    transition(core, record, "running");
    target.settled = runTurn(core, target, { kind: "fresh", prompt }).then(() => undefined);
    return { ok: true, queued: false };
  }

  function wait(id: string, waitOptions: WaitOptions = {}): Promise<AgentResult> {
    const target = get(core, id);
    const record = target.record;
    if (waitOptions.by !== undefined && record.parent !== idOf(waitOptions.by)) {
      // Handles are capabilities (§7D `spawn`): wait only what you spawned.
      const error = `wait: ${id} was not spawned by ${idOf(waitOptions.by)} (wait only what you spawned)`;
      return Promise.resolve(resultOf(record, "error", { error }));
    }
    if (!target.busy && !record.queued && record.result) {
      return Promise.resolve(record.result);
    }
    if (record.state === "closed") {
      return Promise.resolve(resultOf(record, "closed", { error: "closed" }));
    }
    return new Promise((resolve) => {
      let cancel = () => {};
      const waiter = (result: AgentResult) => {
        cancel();
        resolve(result);
      };
      target.waiters.push(waiter);
      const { timeout } = waitOptions;
      if (timeout !== undefined) {
        cancel = clock.setTimer(timeout, () => {
          target.waiters = target.waiters.filter((w) => w !== waiter);
          const error = `wait timed out after ${timeout} ms; ${id} keeps running`;
          resolve(resultOf(record, "timeout", { error }));
        });
      }
    });
  }

  const info = (target: Live): HandleInfo => describe(target.record);

  return {
    root: ROOT_ID,
    store,
    spawn: (parent, def, budget) => info(spawn(idOf(parent), def, budget)),
    post: (handle, item) => post(idOf(handle), item),
    wake: (handle, prompt) => wake(idOf(handle), prompt),
    wait: (handle, waitOptions) => wait(idOf(handle), waitOptions),
    interrupt: (handle) => interrupt(core, idOf(handle)),
    close: (handle, closeOptions) => close(core, idOf(handle), closeOptions),
    list: () =>
      [...live.values()]
        .filter((l) => l.record.id !== ROOT_ID)
        .map(info)
        .sort((a, b) => a.id.localeCompare(b.id)),
    inspect: (handle) => info(get(core, idOf(handle))),
    async run(entry, prompt, runOptions = {}) {
      const handle = spawn(ROOT_ID, entry, runOptions.budget);
      const woke = wake(handle.record.id, prompt);
      if (!woke.ok) {
        return resultOf(handle.record, "error", { error: woke.error });
      }
      return wait(handle.record.id, { by: ROOT_ID });
    },
    runWithAnswer({ answer, pending }) {
      if (pending && answer && pending.id !== answer.id) {
        const message = `answer id ${JSON.stringify(answer.id)} does not match the pending request ${JSON.stringify(pending.id)}`;
        return Promise.reject(new ResumeError(message, "answer_mismatch"));
      }
      return answerTree(core, ROOT_ID, answer);
    },
    snapshot: () => ({
      version: 1,
      handles: [...live.values()].map((l) => structuredClone(l.record)),
    }),
    notes: () => notes.slice(),
    turnGate: () => ({ active: core.gate.active, peak: core.gate.peak }),
  };
}

/** A verb refused by the runtime (a closed parent, a spent budget); `code` names the limit. */
export class AgentRuntimeError extends Error {
  override readonly name = "AgentRuntimeError";
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}
