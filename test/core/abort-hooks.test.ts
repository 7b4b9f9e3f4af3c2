/**
 * `onAbort` / `abortSource` (src/core/streaming/abort-hooks.ts): one listener per signal however
 * many callbacks come and go, callbacks forgotten when asked, and a source whose signal
 * needs no listener at all.
 */
import { describe, expect, it } from "vitest";
import { abortSource, onAbort } from "../../src/core/streaming/abort-hooks";

function countingListeners(signal: AbortSignal) {
  let added = 0;
  const add = signal.addEventListener.bind(signal);
  signal.addEventListener = ((...args: Parameters<AbortSignal["addEventListener"]>) => {
    added += 1;
    add(...args);
  }) as AbortSignal["addEventListener"];
  return () => added;
}

describe("onAbort", () => {
  it("calls each callback still registered once, in order, when the signal aborts", () => {
    const controller = new AbortController();
    const calls: string[] = [];
    onAbort(controller.signal, () => calls.push("a"));
    const forgetB = onAbort(controller.signal, () => calls.push("b"));
    onAbort(controller.signal, () => calls.push("c"));
    forgetB();
    controller.abort();
    controller.abort();
    expect(calls).toEqual(["a", "c"]);
  });

  it("adds one listener to a signal for any number of callbacks over its life", () => {
    const controller = new AbortController();
    const added = countingListeners(controller.signal);
    let calls = 0;
    for (let i = 0; i < 100; i += 1) {
      onAbort(controller.signal, () => {
        calls += 1;
      })();
    }
    onAbort(controller.signal, () => {
      calls += 10;
    });
    controller.abort();
    expect(added()).toBe(1);
    expect(calls).toBe(10);
  });

  it("a callback registered while the others run waits for a later abort (there is none)", () => {
    const controller = new AbortController();
    const calls: string[] = [];
    onAbort(controller.signal, () => {
      calls.push("first");
      onAbort(controller.signal, () => calls.push("late"));
    });
    controller.abort();
    expect(calls).toEqual(["first"]);
  });
});

describe("abortSource", () => {
  it("aborts its signal with the reason and runs the callbacks without a listener of ours", () => {
    const source = abortSource();
    const added = countingListeners(source.signal);
    const calls: unknown[] = [];
    onAbort(source.signal, () => calls.push(source.signal.reason));
    const forget = onAbort(source.signal, () => calls.push("forgotten"));
    forget();
    const reason = new Error("left");
    source.abort(reason);
    source.abort(new Error("again"));
    expect(source.signal.aborted).toBe(true);
    expect(calls).toEqual([reason]);
    expect(added()).toBe(0);
  });

  it("its signal still fires abort listeners others added", () => {
    const source = abortSource();
    let heard = 0;
    source.signal.addEventListener("abort", () => {
      heard += 1;
    });
    source.abort();
    expect(heard).toBe(1);
  });
});
