/**
 * How the runtime builds a handle's LLM client (SPEC §7D: the runtime builds each handle's
 * client itself). The host says how to reach the model once — a local `generate` or a wire
 * endpoint — and the runtime adds what is its own: the composed system prompt, the
 * escalating `waitFor`, the turn gate around the model call (the in-process `generate`, or
 * the wire `fetch`), and its checkpoint listener. `hooks` and `onMetric` are handed over
 * verbatim, def over runtime, never merged.
 */
import {
  createClient,
  createInProcessClient,
  type Client,
  type ClientOptions,
  type CommonClientOptions,
  type InProcessClientOptions,
} from "../client";
import type { TurnGate } from "./limits/gates";

/** How to reach the model: a local `generate` (tests, rule-based agents) or a wire endpoint. */
export type AgentModelBackend =
  | { generate: InProcessClientOptions["generate"] }
  | Omit<ClientOptions, keyof CommonClientOptions>;

/** Where a handle's model calls queue (the runtime's gate) and what aborts them (the handle's signal). */
export interface HandleTurnLimits {
  gate: TurnGate;
  signal: () => AbortSignal | undefined;
}

export function buildHandleClient(
  backend: AgentModelBackend,
  common: CommonClientOptions,
  { gate, signal }: HandleTurnLimits,
): Client {
  if ("generate" in backend) {
    const generate = backend.generate;
    return createInProcessClient({
      ...common,
      // The in-process caller does not pass the run's signal on: the gate races the handle's.
      generate: (request) => gate.run(async () => generate(request), signal()),
    });
  }
  const send = backend.fetch ?? ((input, init) => fetch(input, init));
  return createClient({
    ...backend,
    ...common,
    fetch: (input, init) => gate.run(() => send(input, init), init?.signal ?? signal()),
  });
}
