// Callback URLs: https to a public host, or what CALLBACK_ALLOW lists; never credentials.
import { describe, expect, it } from "vitest";
import { createExecutionContext, env } from "cloudflare:test";
import { checkCallbackUrl, parseCallbackAllow } from "../../src/edge/notify/callback-url";
import { createWorker } from "../../src/edge/create-worker";
import { supportAgent } from "../../src/edge/demo/agent";
import { api } from "../helpers/edge";

const NONE = parseCallbackAllow("");
const reason = (url: string, allow = NONE) => {
  const checked = checkCallbackUrl(url, allow);
  return checked.ok ? "ok" : checked.reason;
};

describe("checkCallbackUrl without CALLBACK_ALLOW", () => {
  it.each([
    "https://hooks.example.com/x",
    "https://hooks.example.com:8443/x?y=1#z",
    "https://8.8.8.8/hook",
    "https://[2606:4700:4700::1111]/hook",
    "https://HOOKS.Example.COM/x",
    "https://example.com./x",
    "https://100.128.0.1/x", // just above CGNAT
    "https://172.32.0.1/x", // just above 172.16/12
  ])("accepts %s", (url) => {
    expect(reason(url)).toBe("ok");
  });

  it.each([
    ["http://hooks.example.com/x", /must use https/],
    ["https://localhost/x", /single label/],
    ["https://localhost./x", /single label/],
    ["https://app.localhost/x", /local-only name/],
    ["https://printer.local/x", /local-only name/],
    ["https://metadata.google.internal/x", /local-only name/],
    ["https://intranet/x", /single label/],
    ["https://127.0.0.1/x", /loopback/],
    ["https://127.1.2.3/x", /loopback/],
    ["https://169.254.169.254/latest/meta-data", /link-local/],
    ["https://10.0.0.1/x", /private/],
    ["https://172.16.0.1/x", /private/],
    ["https://172.31.255.255/x", /private/],
    ["https://192.168.1.1/x", /private/],
    ["https://100.64.0.1/x", /CGNAT/],
    ["https://100.127.255.255/x", /CGNAT/],
    ["https://0.0.0.0/x", /unspecified/],
    ["https://0/x", /four decimal numbers/],
    ["https://224.0.0.1/x", /multicast/],
    ["https://255.255.255.255/x", /broadcast/],
    ["https://192.0.2.1/x", /reserved/],
    ["https://0x7f.0.0.1/x", /four decimal numbers/],
    ["https://0x7f000001/x", /four decimal numbers/],
    ["https://2130706433/x", /four decimal numbers/],
    ["https://0177.0.0.1/x", /four decimal numbers/],
    ["https://127.1/x", /four decimal numbers/],
    ["https://0x08080808/x", /four decimal numbers/], // 8.8.8.8, but spelled to evade filters
    ["https://[::1]/x", /loopback/],
    ["https://[0:0:0:0:0:0:0:1]/x", /loopback/],
    ["https://[::]/x", /unspecified/],
    ["https://[::ffff:127.0.0.1]/x", /IPv4-mapped/],
    ["https://[::ffff:8.8.8.8]/x", /IPv4-mapped/],
    ["https://[fd00::1]/x", /unique local/],
    ["https://[fc12:3456::1]/x", /unique local/],
    ["https://[fe80::1]/x", /link-local/],
    ["https://[ff02::1]/x", /multicast/],
    ["https://[64:ff9b::a9fe:a9fe]/x", /NAT64.*link-local/],
    ["https://[2002:7f00:1::]/x", /6to4.*loopback/],
    ["https://user:pass@hooks.example.com/x", /credentials/],
    ["https://user@hooks.example.com/x", /credentials/],
    ["https://@hooks.example.com/x", /credentials/],
    ["http:///x", /empty host/],
    ["https:///hooks.example.com/x", /empty host/],
    ["https://\\\\hooks.example.com/x", /backslash/],
    ["https://hooks.example.com\\@127.0.0.1/x", /backslash/],
    [" https://hooks.example.com/x", /whitespace/],
    ["https://hooks.example.com/\tx", /whitespace/],
    ["https://hooks.example.com/\u0001x", /control characters/],
    ["https:hooks.example.com/x", /absolute http\(s\) URL/],
    ["ftp://hooks.example.com/x", /absolute http\(s\) URL/],
    ["not a url", /whitespace/],
  ])("rejects %s (%s)", (url, why) => {
    expect(reason(url)).toMatch(why);
  });
});

describe("CALLBACK_ALLOW", () => {
  const allow = parseCallbackAllow(
    "127.0.0.1 LocalHost [::1] hooks.internal https://receiver.example.net:8443",
  );

  it("parses hosts (canonical) and exact origins", () => {
    expect(allow).toEqual({
      hosts: ["127.0.0.1", "localhost", "[::1]", "hooks.internal"],
      origins: ["https://receiver.example.net:8443"],
    });
  });

  it("allows a listed host with any scheme and port, and an exact origin only", () => {
    expect(reason("http://127.0.0.1:8787/hook", allow)).toBe("ok");
    expect(reason("https://localhost/hook", allow)).toBe("ok");
    expect(reason("http://[::1]:9000/hook", allow)).toBe("ok");
    expect(reason("http://hooks.internal/x", allow)).toBe("ok");
    expect(reason("https://receiver.example.net:8443/x", allow)).toBe("ok");
    expect(reason("http://receiver.example.net:8443/x", allow)).toMatch(/must use https/);
    expect(reason("http://127.0.0.2/x", allow)).toMatch(/must use https/);
    expect(reason("https://127.0.0.2/x", allow)).toMatch(/loopback/);
    // Never credentials, not even to an allowed host.
    expect(reason("http://a:b@127.0.0.1/x", allow)).toMatch(/credentials/);
  });

  it.each(["127.0.0.1:8787", "https://hooks.example.com/path", "[::1", "http://", "a b/c"])(
    "refuses the malformed entry %j",
    (entry) => {
      expect(() => parseCallbackAllow(entry)).toThrow(/is not/);
    },
  );
});

describe("POST /v1/runs with a callbackUrl", () => {
  it.each([
    ["https://169.254.169.254/latest", /link-local/],
    ["http://hooks.example.com/x", /https/],
    ["https://u:p@hooks.example.com/x", /credentials/],
    ["https://0x7f000001/x", /four decimal numbers/],
    ["https://[::1]/x", /loopback/],
  ])("400 invalid_callback_url naming the reason: %s", async (callbackUrl, why) => {
    const threadId = `th_${crypto.randomUUID().replaceAll("-", "")}`;
    const response = await api("/v1/runs", {
      method: "POST",
      body: JSON.stringify({ agent: "support", input: "hello", threadId, callbackUrl }),
    });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as {
      error: { code: string; message: string; issues: Array<{ path: string; message: string }> };
    };
    expect(error.code).toBe("invalid_callback_url");
    expect(error.message).toMatch(why);
    expect(error.issues).toEqual([{ path: "callbackUrl", message: expect.stringMatching(why) }]);
    // Nothing started: the thread is free.
    const free = await api("/v1/runs", {
      method: "POST",
      body: JSON.stringify({ agent: "support", input: "hello", threadId }),
    });
    expect(free.status).toBe(202);
  });

  it("a malformed CALLBACK_ALLOW fails every request with 500 config_error naming it", async () => {
    const worker = createWorker({ agents: [supportAgent] });
    const response = await worker.fetch!(
      new Request("https://edge.test/healthz") as never,
      { ...env, CALLBACK_ALLOW: "127.0.0.1:9" } as unknown as Env,
      createExecutionContext(),
    );
    expect(response.status).toBe(500);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
      /CALLBACK_ALLOW is malformed/,
    );
  });
});
