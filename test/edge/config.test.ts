// Configuration errors fail fast, with a message that names the variable.
import { describe, expect, it } from "vitest";
import { createExecutionContext, env } from "cloudflare:test";
import { ConfigError, readConfig } from "../../src/edge/settings";
import { createWorker } from "../../src/edge/create-worker";
import { supportAgent } from "../../src/edge/demo/agent";

const good = { API_TOKEN: "t", WEBHOOK_SECRET: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" };
const NOTIFY = "whsec_bm90aWZ5LW9ubHkgdGVzdCBrZXksIG5vdCBmb3IgZGVjaXNpb25z";
// The worker's real bindings: checked by readConfig too (test/edge/errors.test.ts covers them).
const bindings = {
  THREADS: env.THREADS,
  RESUME_QUEUE: env.RESUME_QUEUE,
  NOTIFY_QUEUE: env.NOTIFY_QUEUE,
};

describe("readConfig", () => {
  it.each([
    [{ ...good, API_TOKEN: "" }, /API_TOKEN is not set/],
    [{ WEBHOOK_SECRET: good.WEBHOOK_SECRET }, /API_TOKEN is not set/],
    [{ API_TOKEN: "t" }, /WEBHOOK_SECRET is not set/],
    [{ ...good, WEBHOOK_SECRET: "whsec_***" }, /WEBHOOK_SECRET is malformed/],
    [{ ...good, NOTIFY_SECRET: "whsec_***" }, /NOTIFY_SECRET is malformed/],
    [
      { ...good, NOTIFY_SECRET: `${NOTIFY} ${good.WEBHOOK_SECRET}` },
      /NOTIFY_SECRET must differ from every WEBHOOK_SECRET value/,
    ],
    [{ ...good, PUBLIC_URL: "not a url" }, /PUBLIC_URL is not a URL/],
    [{ ...good, LLM_BASE_URL: "ftp://x" }, /LLM_BASE_URL is not a URL/],
    [
      { ...good, LLM_BASE_URL: "https://llm.example/v1", LLM_STYLE: "gemini", LLM_MODEL: "m" },
      /LLM_STYLE must be "openai" or "anthropic", got "gemini"/,
    ],
    [{ ...good, LLM_BASE_URL: "https://llm.example/v1" }, /LLM_MODEL is not set/],
  ])("rejects %j", (vars, message) => {
    expect(() => readConfig({ ...bindings, ...vars })).toThrow(ConfigError);
    expect(() => readConfig({ ...bindings, ...vars })).toThrow(message);
  });

  it("reads a complete configuration; several webhook secrets rotate", () => {
    const config = readConfig({
      ...bindings,
      ...good,
      WEBHOOK_SECRET: `${good.WEBHOOK_SECRET} whsec_ZGV2LW9ubHktc2VjcmV0LWNoYW5nZS1tZS1wbGVhc2UhIQ==`,
      PUBLIC_URL: "https://agents.example.com/",
      LLM_BASE_URL: "https://api.example.com/v1",
      LLM_STYLE: "anthropic",
      LLM_MODEL: "claude-x",
      LLM_API_KEY: "sk",
    });
    expect(config.webhookSecrets).toHaveLength(2);
    expect(config.notifySecrets).toEqual([]); // optional: only runs with a callbackUrl need it
    expect(config.publicUrl).toBe("https://agents.example.com");
    expect(config.llm).toEqual({
      baseUrl: "https://api.example.com/v1",
      style: "anthropic",
      model: "claude-x",
      apiKey: "sk",
    });
    expect(readConfig({ ...bindings, ...good }).llm).toBeUndefined();
    expect(
      readConfig({
        ...bindings,
        ...good,
        NOTIFY_SECRET: ` ${NOTIFY}  whsec_b2xkZXIta2V5LXN0aWxsLXZlcmlmaWVkLWJ5LXJlY2VpdmVycw== `,
      }).notifySecrets,
    ).toEqual([NOTIFY, "whsec_b2xkZXIta2V5LXN0aWxsLXZlcmlmaWVkLWJ5LXJlY2VpdmVycw=="]);
  });

  it("never puts a secret's value in the error", () => {
    try {
      readConfig({ ...bindings, ...good, WEBHOOK_SECRET: "whsec_not*base64*value" });
      expect.unreachable();
    } catch (error) {
      expect(String(error)).not.toContain("not*base64*value");
    }
  });
});

describe("key strength (WEBHOOK_SECRET, NOTIFY_SECRET)", () => {
  // 8 bytes once decoded as base64, 5 bytes, 23 bytes: each below the 24 the docs require.
  const weak = ["supersecret", "whsec_c2hvcnQ=", `whsec_${btoa("x".repeat(23))}`];
  it.each(["WEBHOOK_SECRET", "NOTIFY_SECRET"])(
    "%s: a short key is a config_error saying how to make one",
    (name) => {
      for (const value of weak) {
        const vars = { ...bindings, ...good, [name]: value };
        let error: unknown;
        try {
          readConfig(vars);
        } catch (thrown) {
          error = thrown;
        }
        expect(error).toBeInstanceOf(ConfigError);
        const message = (error as Error).message;
        expect(message).toMatch(new RegExp(`^${name} is too short: \\d+ bytes once decoded`));
        expect(message).toContain("at least 24 random bytes");
        expect(message).toContain("openssl rand -base64 32");
        expect(message).not.toContain(value);
      }
    },
  );

  it("a short key among rotated ones is refused too; 24 bytes is enough", () => {
    expect(() =>
      readConfig({ ...bindings, ...good, WEBHOOK_SECRET: `${good.WEBHOOK_SECRET} whsec_c2hvcnQ=` }),
    ).toThrow(/WEBHOOK_SECRET is too short: 5 bytes/);
    const exactly24 = `whsec_${btoa("y".repeat(24))}`;
    expect(readConfig({ ...bindings, ...good, NOTIFY_SECRET: exactly24 }).notifySecrets).toEqual([
      exactly24,
    ]);
  });
});

describe("a misconfigured worker", () => {
  it("answers every request with 500 config_error naming the variable", async () => {
    const worker = createWorker({ agents: [supportAgent] });
    const broken = { ...env, API_TOKEN: undefined } as unknown as Env;
    for (const path of ["/healthz", "/v1/agents", "/v1/decisions"]) {
      const response = await worker.fetch!(
        new Request(`https://edge.test${path}`) as never,
        broken,
        createExecutionContext(),
      );
      expect(response.status).toBe(500);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("config_error");
      expect(body.error.message).toMatch(/API_TOKEN/);
    }
  });
});

describe("NOTIFY_SECRET", () => {
  it("is required for a run with a callbackUrl: 500 config_error naming it, nothing started", async () => {
    const worker = createWorker({ agents: [supportAgent] });
    const without = { ...env, NOTIFY_SECRET: undefined } as unknown as Env;
    const post = (body: Record<string, unknown>) =>
      worker.fetch!(
        new Request("https://edge.test/v1/runs", {
          method: "POST",
          headers: { authorization: "Bearer test-token", "content-type": "application/json" },
          body: JSON.stringify(body),
        }) as never,
        without,
        createExecutionContext(),
      );
    const threadId = `th_${crypto.randomUUID().replaceAll("-", "")}`;
    const refused = await post({
      agent: "support",
      input: "hello",
      threadId,
      callbackUrl: "https://hooks.example.com/x",
    });
    expect(refused.status).toBe(500);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("config_error");
    expect(body.error.message).toMatch(/NOTIFY_SECRET/);
    // Nothing was started on that thread: a run without a callback is accepted there at once.
    expect((await post({ agent: "support", input: "hello", threadId })).status).toBe(202);
  });
});
