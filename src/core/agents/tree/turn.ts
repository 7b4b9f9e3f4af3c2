/**
 * One turn of a handle: one run of the §8 loop, started by a wake (fresh input), a replay (a
 * parent re-running its halted turn from the pre-turn transcript), or a resume (the deepest
 * suspended handle continuing at its checkpoint with the answer). The caller has already
 * made the handle `running`; this module runs the loop and records how it ended.
 *
 * Persistence (the §7D rewind): the handle's transcript in the store is written only when a
 * turn completes. A turn that halts `pending` leaves the store at its pre-turn transcript —
 * the placeholder never reaches it, so a replayed parent re-invokes `task` (and reattaches) —
 * and keeps the halted run in the record for the deepest handle's resume.
 */
import type { Answer, Message, RunResult, Usage } from "../../types";
import type { RunState } from "../../loop/run-loop";
import { createToolkit, type Toolkit } from "../../toolkit";
import { errorMessage } from "../../errors";
import { buildHandleClient } from "../model";
import { escalatingWaitFor, withPath } from "./escalation";
import { describeExhausted, exhausted, remaining, spend } from "../limits/budget";
import { admittedCalls } from "../limits/admission";
import { renderTurnInput } from "../limits/inbox";
import { ROOT_ID, type HandleRecord, type Live } from "./handle";
import { chainOf, transition, type RuntimeCore } from "../core";
import { taskTool } from "../task-tool";
import type { AgentResult, AgentStatus } from "../types";

export type TurnMode =
  | { kind: "fresh"; prompt: string | undefined }
  | { kind: "replay" }
  | { kind: "resume"; answer: Answer };

/** Runs the turn and records its end (state, result, waiters). Never throws. */
export async function runTurn(core: RuntimeCore, live: Live, mode: TurnMode): Promise<AgentResult> {
  const record = live.record;
  const controller = new AbortController();
  live.controller = controller;
  live.busy = true;
  let meter: Meter | undefined;
  let calls: AdmittedCalls | undefined;
  let input = "";
  try {
    if (live.spawnHook) {
      await live.spawnHook;
    }
    const chain = chainOf(core, record);
    const stop = exhausted(chain, core.clock.now());
    if (stop) {
      return finish(core, live, {
        status: "incomplete",
        extra: { limit: stop.limit, limitOf: stop.of, error: describeExhausted(stop) },
      });
    }
    record.startedAt ??= core.clock.now();

    let history: Message[];
    if (mode.kind === "fresh") {
      record.draining = record.inbox;
      record.inbox = [];
      record.tasks = {};
      input = renderTurnInput(mode.prompt, record.draining, record.id);
      history = (await core.store.get(record.id)) ?? [];
    } else {
      input = record.halted?.input ?? "";
      history = (await core.store.get(record.id)) ?? [];
    }
    live.taskOrdinals.clear();
    const toolkit = await toolkitOf(core, live);
    const halted = record.halted?.run;
    meter = makeMeter(chain, mode.kind === "resume" && halted ? halted : undefined);
    calls = admittedCalls(core.admission, {
      agent: record.agent,
      levels: () => chainOf(core, record),
      stop: () => exhausted(chainOf(core, record), core.clock.now())?.limit,
      walkAlways: false, // the kernel walks at handle turns (docs/agents.md), and after a wait
      signal: () => live.controller?.signal,
    });
    const client = clientFor(core, live, { chain, meter, calls });
    const signal = controller.signal;

    let run: RunResult;
    if (mode.kind === "resume") {
      if (!halted?.pending) {
        throw new Error(`${record.id} has no halted turn to resume`);
      }
      run = await client.runWithAnswer({
        ...halted,
        toolkit,
        pending: halted.pending,
        answer: mode.answer,
        signal,
      });
    } else {
      run = await client.run(input || "(continue)", { toolkit, history, signal });
    }
    return await recordRun(core, live, { run, input });
  } catch (error) {
    if (controller.signal.aborted) {
      return finish(core, live, { status: "interrupted", extra: { error: "interrupted" } });
    }
    return finish(core, live, {
      status: "error",
      run: meter?.latest(),
      extra: { error: errorMessage(error) },
    });
  } finally {
    calls?.release();
  }
}

type AdmittedCalls = ReturnType<typeof admittedCalls>;

async function recordRun(
  core: RuntimeCore,
  live: Live,
  { run, input }: { run: RunResult; input: string },
): Promise<AgentResult> {
  const record = live.record;
  if (run.status === "pending" && run.pending) {
    const { text: _text, ...halted } = run;
    record.halted = { run: halted, input };
    return finish(core, live, {
      status: "pending",
      run,
      extra: { pending: withPath(run.pending, record.id) },
    });
  }
  await core.store.set(record.id, run.messages);
  return finish(core, live, {
    status: run.status === "done" ? "done" : "incomplete",
    run,
    extra: run.limit ? { limit: run.limit } : {},
  });
}

/** How a turn ended: its status, the run as far as it got (for the text), and the rest. */
interface TurnEnd {
  status: AgentStatus;
  run?: Pick<RunResult, "messages"> | RunState | undefined;
  extra: Partial<AgentResult>;
}

/** Records the end of a turn: the next state, the result, the slot, the waiters. */
function finish(core: RuntimeCore, live: Live, { status, run, extra }: TurnEnd): AgentResult {
  const record = live.record;
  if (status === "interrupted" || status === "error") {
    // The drain is transactional: only a completed (or durably halted) turn consumes it.
    record.inbox = [...record.draining, ...record.inbox];
  }
  record.draining = [];
  if (status !== "pending") {
    delete record.halted;
    delete record.pending;
  } else {
    record.pending = extra.pending;
  }
  const result = resultOf(record, status, { text: textOf(run), ...extra });
  record.result = result;
  if (record.state !== "idle") {
    transition(core, record, status === "pending" ? "suspended" : "idle");
  }
  live.busy = false;
  delete live.controller;
  releaseSlot(core, record);
  const waiters = live.waiters.splice(0);
  for (const resolve of waiters) {
    resolve(result);
  }
  return result;
}

/** A handle's result: its own counts, and `fields` (the text, an error, a limit, …) over them. */
export function resultOf(
  record: HandleRecord,
  status: AgentStatus,
  fields: Partial<AgentResult> = {},
): AgentResult {
  return {
    status,
    handle: record.id,
    agent: record.agent,
    text: "",
    turns: record.spent.turns,
    usage: { ...record.tree.usage },
    toolCallCount: record.spent.toolCalls,
    ...fields,
  };
}

function textOf(run: Pick<RunResult, "messages"> | undefined): string {
  const last = run?.messages.findLast((m) => m.role === "assistant");
  return last?.role === "assistant" ? (last.content ?? "") : "";
}

/** Gate 2: a settled child gives its slot to the next queued sibling wake, else frees it. */
function releaseSlot(core: RuntimeCore, record: HandleRecord): void {
  const parent = record.parent === null ? undefined : core.live.get(record.parent);
  if (!parent || parent.slots === 0) {
    return;
  }
  parent.slots -= 1;
  const next = parent.wakeQueue.shift();
  if (next !== undefined) {
    core.note(`DEQUEUED wake ${next} (slot of ${record.id})`);
    const queued = core.live.get(next);
    if (queued) {
      queued.record.queued = false;
      core.wake(next, queued.queuedPrompt);
    }
  }
}

function toolkitOf(core: RuntimeCore, live: Live): Promise<Toolkit> {
  if (!live.toolkit) {
    const def = live.def;
    const team = def ? core.registry.team(def) : [];
    live.toolkit = createToolkit({
      tools: [...(def?.tools ?? []), ...(team.length ? [taskTool(core, live, team)] : [])],
    });
  }
  return live.toolkit;
}

/** The model a handle runs on: its own, else the nearest ancestor's, else the runtime's. */
function modelOf(core: RuntimeCore, chain: HandleRecord[]): string {
  for (const record of chain) {
    const model = record.id === ROOT_ID ? undefined : core.live.get(record.id)?.def?.model;
    if (model && model !== "inherit") {
      return model;
    }
  }
  return core.options.model;
}

function clientFor(
  core: RuntimeCore,
  live: Live,
  { chain, meter, calls }: { chain: HandleRecord[]; meter: Meter; calls: AdmittedCalls },
) {
  const def = live.def;
  const turnsLeft = remaining(chain, "maxTurns");
  const maxTurns =
    turnsLeft === undefined ? core.options.maxTurns : Math.min(core.options.maxTurns, turnsLeft);
  const systemPrompt = def?.systemPrompt ?? def?.soul;
  const hooks = def?.hooks ?? core.options.hooks;
  const onMetric = def?.onMetric ?? core.options.onMetric;
  const waitFor = escalatingWaitFor(core, live);
  return buildHandleClient(
    core.options.client,
    {
      model: modelOf(core, chain),
      maxTurns: Math.max(0, maxTurns),
      onCheckpoint: (state: RunState) => {
        meter.checkpoint(state);
        calls.spent(state); // after the meter: the ledger has this call's spend
      },
      limitBefore: calls.limitBefore,
      ...(systemPrompt ? { systemPrompt } : {}),
      ...(hooks ? { hooks } : {}),
      ...(onMetric ? { onMetric } : {}),
      ...(waitFor ? { waitFor } : {}),
      ...(core.options.refusalText ? { refusalText: core.options.refusalText } : {}),
    },
    { gate: core.gate, signal: () => live.controller?.signal },
  );
}

interface Meter {
  checkpoint(state: RunState): void;
  latest(): RunState | undefined;
}

/**
 * The roll-up ledger's feed: at each turn boundary the loop reports its state; what the new
 * model turns spent is added to the handle and every ancestor at once.
 */
function makeMeter(
  chain: HandleRecord[],
  base: { turns: number; usage: Usage } | undefined,
): Meter {
  let turns = base?.turns ?? 0;
  let usage = { ...(base?.usage ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 }) };
  let latest: RunState | undefined;
  return {
    checkpoint(state) {
      latest = state;
      if (state.turns <= turns) {
        return;
      }
      const last = state.messages.at(-1);
      const calls = last?.role === "assistant" ? (last.toolCalls?.length ?? 0) : 0;
      spend(chain, {
        turns: state.turns - turns,
        usage: {
          promptTokens: state.usage.promptTokens - usage.promptTokens,
          completionTokens: state.usage.completionTokens - usage.completionTokens,
          totalTokens: state.usage.totalTokens - usage.totalTokens,
        },
        toolCalls: calls,
      });
      turns = state.turns;
      usage = { ...state.usage };
    },
    latest: () => latest,
  };
}
