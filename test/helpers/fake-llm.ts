/**
 * A scripted, in-memory LLM endpoint for tests: an injected `fetch` that answers
 * each call with the next scripted reply, rendered in the requested wire style,
 * and keeps every request body so tests can assert on what was sent.
 */
export type Style = "openai" | "anthropic";

export interface ScriptedReply {
  content?: string | null;
  toolCalls?: Array<{ id: string; name: string; args?: unknown; rawArguments?: string }>;
  finish?: string;
  usage?: { prompt: number; completion: number };
}

export interface RawReply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

export type Step =
  | ScriptedReply
  | RawReply
  | Error
  | ((body: any, index: number) => ScriptedReply | RawReply);

export interface FakeLlm {
  fetch: typeof fetch;
  /** Parsed JSON bodies of every request, in order. */
  bodies: any[];
  urls: string[];
  headers: Headers[];
}

const isRaw = (s: unknown): s is RawReply => typeof s === "object" && s !== null && "status" in s;

export function render(style: Style, reply: ScriptedReply, model = "fake-model"): unknown {
  const usage = reply.usage ?? { prompt: 4, completion: 2 };
  if (style === "openai") {
    const toolCalls = reply.toolCalls?.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.rawArguments ?? JSON.stringify(c.args ?? {}) },
    }));
    return {
      id: `cmpl-${Math.random()}`,
      model,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: reply.content ?? null,
            ...(toolCalls?.length ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: reply.finish ?? (toolCalls?.length ? "tool_calls" : "stop"),
        },
      ],
      usage: {
        prompt_tokens: usage.prompt,
        completion_tokens: usage.completion,
        total_tokens: usage.prompt + usage.completion,
      },
    };
  }
  const content: unknown[] = [];
  if (reply.content) {
    content.push({ type: "text", text: reply.content });
  }
  for (const c of reply.toolCalls ?? []) {
    content.push({
      type: "tool_use",
      id: c.id,
      name: c.name,
      input: c.rawArguments !== undefined ? c.rawArguments : (c.args ?? {}),
    });
  }
  return {
    id: `msg_${Math.random()}`,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: reply.finish ?? (reply.toolCalls?.length ? "tool_use" : "end_turn"),
    usage: { input_tokens: usage.prompt, output_tokens: usage.completion },
  };
}

/**
 * The scripting both fakes share: call #n gets step #n (an Error is thrown, a function
 * is called with the parsed body, a `{ status }` is sent as is, anything else goes to
 * `reply`), and every request is recorded.
 */
export function scriptedFetch<Reply>(
  label: string,
  steps: Array<Reply | RawReply | Error | ((body: any, index: number) => Reply | RawReply)>,
  reply: (step: Reply) => Response,
): FakeLlm {
  const bodies: any[] = [];
  const urls: string[] = [];
  const headers: Headers[] = [];
  let index = 0;
  const fake: typeof fetch = async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    const body = await request.json();
    bodies.push(body);
    urls.push(request.url);
    headers.push(request.headers);
    const n = index++;
    let step = steps[n];
    if (step === undefined) {
      throw new Error(`${label}: no scripted reply for call #${n + 1}`);
    }
    if (step instanceof Error) {
      throw step;
    }
    if (typeof step === "function") {
      step = (step as (body: any, index: number) => Reply | RawReply)(body, n);
    }
    if (isRaw(step)) {
      return new Response(step.body ?? "", { status: step.status, headers: step.headers });
    }
    return reply(step as Reply);
  };
  return { fetch: fake, bodies, urls, headers };
}

export function fakeLlm(style: Style, steps: Step[]): FakeLlm {
  return scriptedFetch<ScriptedReply>("fake LLM", steps, (step) =>
    Response.json(render(style, step)),
  );
}

/** Checks the provider-bound transcript is balanced: every tool call has exactly one result. */
export function assertBalanced(style: Style, body: any): void {
  const calls: string[] = [];
  const results: string[] = [];
  for (const m of body.messages) {
    if (style === "openai") {
      for (const c of m.tool_calls ?? []) {
        calls.push(c.id);
      }
      if (m.role === "tool") {
        results.push(m.tool_call_id);
      }
    } else if (Array.isArray(m.content)) {
      for (const b of m.content) {
        if (b.type === "tool_use") {
          calls.push(b.id);
        }
        if (b.type === "tool_result") {
          results.push(b.tool_use_id);
        }
      }
    }
  }
  const sorted = (xs: string[]) => [...xs].sort().join(",");
  if (sorted(calls) !== sorted(results)) {
    throw new Error(`unbalanced transcript: calls [${calls}] results [${results}]`);
  }
}
