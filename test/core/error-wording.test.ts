/**
 * Error texts a host matches on: the SPEC's fixed words ("LLM <status>: …",
 * "does not support streaming", "requires a `generate` function"), and a model endpoint
 * that cannot be reached named by its URL (never its credentials) and the cause.
 */
import { describe, expect, it } from "vitest";
import {
  ProviderError,
  createClient,
  createInProcessClient,
  createToolkit,
} from "../../src/core/index";
import { endpointLabel, failureCause } from "../../src/core/client/endpoint-label";

const noSleep = async () => {};

describe("a model endpoint that is down", () => {
  it.each(["openai", "anthropic"] as const)(
    "%s: the error names the URL without credentials and the cause chain",
    async (style) => {
      const client = createClient({
        baseUrl: "https://user:s3cret@llm.test/v1",
        style,
        model: "m",
        apiKey: "sk-never-shown",
        retries: 0,
        sleep: noSleep,
        fetch: async () => {
          throw new TypeError("fetch failed", {
            cause: new Error("connect ECONNREFUSED 127.0.0.1:9"),
          });
        },
      });
      const error = await client
        .run("hi", { toolkit: await createToolkit({ tools: [] }) })
        .catch((e) => e);
      expect(error).toBeInstanceOf(ProviderError);
      const path = style === "openai" ? "/v1/chat/completions" : "/v1/messages";
      expect(error.message).toBe(
        `${style}: request to https://llm.test${path} failed: fetch failed: connect ECONNREFUSED 127.0.0.1:9`,
      );
      expect(error.message).not.toMatch(/s3cret|sk-never-shown|user/);
    },
  );

  it("endpointLabel drops user info, query and fragment; failureCause stops at repeats", () => {
    expect(endpointLabel("https://a:b@h.test:8443/v1/messages?key=k#x")).toBe(
      "https://h.test:8443/v1/messages",
    );
    expect(endpointLabel("not a url")).toBe("(an invalid URL)");
    const same = new Error("Network connection lost.", {
      cause: new Error("Network connection lost."),
    });
    expect(failureCause(same)).toBe("Network connection lost.");
    expect(failureCause("boom")).toBe("boom");
  });
});

describe("the SPEC's wordings", () => {
  it("an HTTP error reply reads `LLM <status>: <body>`", async () => {
    const client = createClient({
      baseUrl: "https://llm.test/v1",
      style: "openai",
      model: "m",
      retries: 0,
      sleep: noSleep,
      fetch: async () => new Response("slow down", { status: 429 }),
    });
    const error = await client
      .run("hi", { toolkit: await createToolkit({ tools: [] }) })
      .catch((e) => e);
    expect(error.message).toBe("openai: LLM 429: slow down");
    expect(error.status).toBe(429);
  });

  it("an in-process client's stream() says it does not support streaming", async () => {
    const client = createInProcessClient({ model: "m", generate: () => ({ content: "x" }) });
    const iterator = client
      .stream("hi", { toolkit: await createToolkit({ tools: [] }) })
      [Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toThrow(/does not support streaming/);
  });

  it("an in-process client without generate says it requires a `generate` function", () => {
    expect(() => createInProcessClient({ model: "m" } as never)).toThrow(
      /requires a `generate` function/,
    );
  });
});
