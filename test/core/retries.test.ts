/**
 * Provider retries: which failures are retried, how long each wait is (observed
 * through the `sleep` option, never spent), aborts, timeouts, and what is reported.
 */
import { describe, expect, it } from "vitest";
import {
  ProviderError,
  RunAbortedError,
  createClient,
  createToolkit,
  parseRetryAfter,
  type ClientOptions,
  type MetricEvent,
} from "../../src/core";
import { MAX_RETRY_DELAY_MS } from "../../src/core/client/retry";
import { fakeLlm, type Step } from "../helpers/fake-llm";

const BASE_MS = 100;

function setup(steps: Step[], extra: Partial<ClientOptions> = {}) {
  const fake = fakeLlm("openai", steps);
  const waits: number[] = [];
  const client = createClient({
    baseUrl: "https://llm.test/v1",
    style: "openai",
    model: "retry-model",
    apiKey: "sk-test",
    retryBaseMs: BASE_MS,
    fetch: fake.fetch,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...extra,
  });
  return { fake, waits, client };
}

const toolkit = () => createToolkit({ tools: [] });
const status = (code: number, headers?: Record<string, string>): Step => ({
  status: code,
  body: `upstream ${code}`,
  headers,
});
const ok: Step = { content: "recovered" };

/** Backoff for attempt n is jittered within [½, 1]·base·2^n. */
function expectBackoff(wait: number | undefined, attempt: number) {
  const ceiling = BASE_MS * 2 ** attempt;
  expect(wait).toBeGreaterThanOrEqual(ceiling / 2);
  expect(wait).toBeLessThanOrEqual(ceiling);
}

describe("what is retried", () => {
  it.each([429, 500, 502, 503, 504])("HTTP %i is retried and the run recovers", async (code) => {
    const { fake, waits, client } = setup([status(code), ok]);
    const result = await client.run("hi", { toolkit: await toolkit() });
    expect(result.text).toBe("recovered");
    expect(fake.bodies).toHaveLength(2);
    expect(waits).toHaveLength(1);
    // The retried request is byte-for-byte the same request.
    expect(fake.bodies[1]).toEqual(fake.bodies[0]);
  });

  it("a thrown network error is retried", async () => {
    const { fake, waits, client } = setup([new TypeError("fetch failed: ECONNRESET"), ok]);
    const result = await client.run("hi", { toolkit: await toolkit() });
    expect(result.text).toBe("recovered");
    expect(fake.bodies).toHaveLength(2);
    expect(waits).toHaveLength(1);
  });

  it("gives up after `retries` (default 2) retries with a ProviderError carrying the status", async () => {
    const { fake, waits, client } = setup([status(503), status(503), status(503), ok]);
    const error = await client.run("hi", { toolkit: await toolkit() }).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.status).toBe(503);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("upstream 503");
    expect(fake.bodies).toHaveLength(3);
    expect(waits).toHaveLength(2);
  });

  it("gives up after the configured number of network failures", async () => {
    const { fake, client } = setup([new Error("net 1"), new Error("net 2"), ok], { retries: 1 });
    const error = await client.run("hi", { toolkit: await toolkit() }).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toContain("net 2");
    expect(fake.bodies).toHaveLength(2);
  });

  it("retries: 0 never retries", async () => {
    const { fake, waits, client } = setup([status(429), ok], { retries: 0 });
    await expect(client.run("hi", { toolkit: await toolkit() })).rejects.toBeInstanceOf(
      ProviderError,
    );
    expect(fake.bodies).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it.each([400, 401, 404])("HTTP %i is not retried", async (code) => {
    const { fake, waits, client } = setup([status(code), ok]);
    const error = await client.run("hi", { toolkit: await toolkit() }).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.status).toBe(code);
    expect(error.retryable).toBe(false);
    expect(fake.bodies).toHaveLength(1);
    expect(waits).toEqual([]);
  });
});

describe("how long it waits", () => {
  it("backs off exponentially with jitter", async () => {
    const { waits, client } = setup([status(500), status(500), status(500), status(500), ok], {
      retries: 4,
    });
    await client.run("hi", { toolkit: await toolkit() });
    expect(waits).toHaveLength(4);
    waits.forEach((w, attempt) => {
      expectBackoff(w, attempt);
    });
  });

  it("Retry-After: 0 means retry now", async () => {
    const { waits, client } = setup([status(429, { "retry-after": "0" }), ok]);
    await client.run("hi", { toolkit: await toolkit() });
    expect(waits).toEqual([0]);
  });

  it("Retry-After: 3 waits 3000 ms", async () => {
    const { waits, client } = setup([status(503, { "retry-after": "3" }), ok]);
    await client.run("hi", { toolkit: await toolkit() });
    expect(waits).toEqual([3000]);
  });

  it.each([
    ["a fraction", "1.5"],
    ["a negative number", "-1"],
    ["an HTTP-date", "Wed, 21 Oct 2015 07:28:00 GMT"],
    ["garbage", "soon-ish"],
    ["empty", ""],
  ])("Retry-After as %s falls back to backoff", async (_, value) => {
    const { waits, client } = setup([
      status(429, { "retry-after": value }),
      status(429, { "retry-after": value }),
      ok,
    ]);
    await client.run("hi", { toolkit: await toolkit() });
    expect(waits).toHaveLength(2);
    expectBackoff(waits[0], 0);
    expectBackoff(waits[1], 1);
  });

  it("a huge Retry-After is capped", async () => {
    const { waits, client } = setup([status(429, { "retry-after": "99999999" }), ok]);
    await client.run("hi", { toolkit: await toolkit() });
    expect(MAX_RETRY_DELAY_MS).toBe(60_000);
    expect(waits).toEqual([60_000]);
  });

  it("backoff is capped too, however many attempts", async () => {
    const steps = Array.from({ length: 12 }, () => status(502));
    const { waits, client } = setup([...steps, ok], { retries: 12, retryBaseMs: 30_000 });
    await client.run("hi", { toolkit: await toolkit() });
    expect(waits).toHaveLength(12);
    for (const w of waits) {
      expect(w).toBeLessThanOrEqual(MAX_RETRY_DELAY_MS);
    }
  });
});

describe("parseRetryAfter", () => {
  it.each([
    ["0", 0],
    ["3", 3000],
    [" 7 ", 7000],
    ["59", 59_000],
    ["120", MAX_RETRY_DELAY_MS],
    ["99999999", MAX_RETRY_DELAY_MS],
  ])("%j ⇒ %d ms", (value, ms) => {
    expect(parseRetryAfter(value)).toBe(ms);
  });

  it.each([
    null,
    undefined,
    "",
    "1.5",
    "-1",
    "+3",
    "1e3",
    "3s",
    "Wed, 21 Oct 2015 07:28:00 GMT",
    "0x10",
  ])("%j ⇒ undefined (use backoff)", (value) => {
    expect(parseRetryAfter(value)).toBeUndefined();
  });

  it("takes a custom cap", () => {
    expect(parseRetryAfter("10", 5000)).toBe(5000);
    expect(parseRetryAfter("2", 5000)).toBe(2000);
  });
});

describe("aborts and timeouts", () => {
  it("an external signal aborted during a retry wait rejects with RunAbortedError and fetches no more", async () => {
    const controller = new AbortController();
    const waits: number[] = [];
    const { fake, client } = setup([status(503), ok], {
      // Like the real sleep: the wait ends early, rejecting, when the signal aborts.
      sleep: async (ms, signal) => {
        waits.push(ms);
        controller.abort(new Error("user went away"));
        signal?.throwIfAborted();
      },
    });
    const error = await client
      .run("hi", { toolkit: await toolkit(), signal: controller.signal })
      .catch((e) => e);
    expect(error).toBeInstanceOf(RunAbortedError);
    expect(waits).toHaveLength(1);
    expect(fake.bodies).toHaveLength(1);
  });

  it("an abort during a wait that ends normally still stops the run before the next request", async () => {
    // The recording sleep ignores the signal (as a test sleep, or a wait that simply
    // elapses right as the caller aborts); the fake fetch ignores it too, as a custom
    // fetch or a service binding may. The loop itself must notice the abort.
    const controller = new AbortController();
    const { fake, waits, client } = setup([status(503), ok], {
      sleep: async (ms) => {
        waits.push(ms);
        controller.abort(new Error("user went away"));
      },
    });
    const outcome = await client
      .run("hi", { toolkit: await toolkit(), signal: controller.signal })
      .catch((e) => e);
    expect(outcome).toBeInstanceOf(RunAbortedError);
    expect(waits).toHaveLength(1);
    expect(fake.bodies).toHaveLength(1);
  });

  it("the default sleep stops waiting when the signal aborts", async () => {
    const controller = new AbortController();
    const { fake, client } = setup([status(429, { "retry-after": "30" }), ok], {
      sleep: undefined,
    });
    setTimeout(() => controller.abort(), 20);
    const started = Date.now();
    const error = await client
      .run("hi", { toolkit: await toolkit(), signal: controller.signal })
      .catch((e) => e);
    expect(error).toBeInstanceOf(RunAbortedError);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(fake.bodies).toHaveLength(1);
  });

  it("an already-aborted signal never reaches the provider", async () => {
    const { fake, client } = setup([ok]);
    const error = await client
      .run("hi", { toolkit: await toolkit(), signal: AbortSignal.abort() })
      .catch((e) => e);
    expect(error).toBeInstanceOf(RunAbortedError);
    expect(fake.bodies).toHaveLength(0);
  });

  it("timeoutMs aborts a model call that hangs", async () => {
    let calls = 0;
    const hanging: typeof fetch = (_input, init) => {
      calls += 1;
      return new Promise((_, reject) => {
        init?.signal?.addEventListener("abort", () => reject(init.signal?.reason), { once: true });
      });
    };
    const { client } = setup([], { fetch: hanging, timeoutMs: 30 });
    const error = await client.run("hi", { toolkit: await toolkit() }).catch((e) => e);
    expect(error).toBeInstanceOf(RunAbortedError);
    expect(calls).toBe(1);
  });

  it("timeoutMs cuts a long Retry-After wait short", async () => {
    const { fake, client } = setup([status(503, { "retry-after": "30" }), ok], {
      sleep: undefined,
      timeoutMs: 30,
    });
    const started = Date.now();
    const error = await client.run("hi", { toolkit: await toolkit() }).catch((e) => e);
    expect(error).toBeInstanceOf(RunAbortedError);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(fake.bodies).toHaveLength(1);
  });
});

describe("reporting", () => {
  it("onError is asked about every failed attempt; the run's failure is its run metric", async () => {
    const asked: unknown[] = [];
    const runs: MetricEvent[] = [];
    const { client } = setup([status(500), status(500), status(500)], {
      onError: (info) => void asked.push(info),
      onMetric: (e) => e.type === "run" && runs.push(e),
    });
    const error = await client.run("hi", { toolkit: await toolkit() }).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(asked).toEqual([0, 1, 2].map((attempt) => ({ status: 500, attempt, retryable: true })));
    expect(runs).toEqual([expect.objectContaining({ status: "failed", error: error.message })]);
  });

  it("a retry that recovers: onError asked once, the run metric says done", async () => {
    const asked: unknown[] = [];
    const runs: MetricEvent[] = [];
    const { client } = setup([status(500), ok], {
      onError: (info) => void asked.push(info),
      onMetric: (e) => e.type === "run" && runs.push(e),
    });
    await client.run("hi", { toolkit: await toolkit() });
    expect(asked).toEqual([{ status: 500, attempt: 0, retryable: true }]);
    expect(runs).toEqual([expect.objectContaining({ status: "done", turns: 1 })]);
    expect(runs[0]).not.toHaveProperty("error");
  });

  it("metrics count each attempt by status and the failed run", async () => {
    const { client } = setup([status(429), status(429), status(429)]);
    await expect(client.run("hi", { toolkit: await toolkit() })).rejects.toBeInstanceOf(
      ProviderError,
    );
    const text = client.metrics();
    expect(text).toContain('toolnexus_llm_requests_total{model="retry-model",status="429"} 3\n');
    expect(text).toContain('toolnexus_run_errors_total{model="retry-model"} 1\n');
  });

  it("metrics after a recovered run: the failures and the success, no run error", async () => {
    const { client } = setup([status(503), new Error("reset"), ok]);
    await client.run("hi", { toolkit: await toolkit() });
    const text = client.metrics();
    expect(text).toContain('toolnexus_llm_requests_total{model="retry-model",status="503"} 1\n');
    expect(text).toContain('toolnexus_llm_requests_total{model="retry-model",status="error"} 1\n');
    expect(text).toContain('toolnexus_llm_requests_total{model="retry-model",status="ok"} 1\n');
    expect(text).not.toMatch(/^toolnexus_run_errors_total\{/m);
  });

  it("onMetric sees one llm_request event per attempt", async () => {
    const statuses: string[] = [];
    const { client } = setup([status(502), ok], {
      onMetric: (e) => {
        if (e.type === "llm_request") {
          statuses.push(e.status);
        }
      },
    });
    await client.run("hi", { toolkit: await toolkit() });
    expect(statuses).toEqual(["502", "ok"]);
  });
});
