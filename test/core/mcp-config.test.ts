/**
 * The pure parts of the MCP source: config parsing, tool naming and filtering, result
 * mapping, and the elicitation ⇄ Request/Answer mappings the edge reuses.
 */
import { describe, expect, it } from "vitest";
import {
  answerDeclined,
  answerOutput,
  mcpToolName,
  normalizeMcpConfig,
  requestFromElicitation,
  resultFromAnswer,
  sanitizeName,
  suspendCall,
  type ElicitationParams,
} from "../../src/core";
import { keepTool } from "../../src/core/mcp/config";
import { fromCallResult } from "../../src/core/mcp/tools";

describe("normalizeMcpConfig", () => {
  const entry = { url: "https://docs.example.com/mcp" };
  const normalized = {
    name: "docs",
    type: "remote",
    transport: "auto",
    url: entry.url,
    headers: {},
    enabled: true,
    timeout: 30_000,
  };

  it("accepts mcpServers, servers, mcp or a bare map of servers", () => {
    for (const config of [
      { mcpServers: { docs: entry } },
      { servers: { docs: entry } },
      { mcp: { docs: entry } },
      { docs: entry },
    ]) {
      expect(normalizeMcpConfig(config)).toEqual([normalized]);
    }
  });

  it("infers remote from url and local from command; maps the common type names", () => {
    const parsed = normalizeMcpConfig({
      mcpServers: {
        a: { type: "http", url: entry.url },
        b: { type: "streamable-http", url: entry.url },
        c: { type: "sse", url: entry.url },
        d: { command: "npx", args: ["server"], env: { X: "1" } },
        e: { type: "stdio", command: "node" },
        f: { type: "local", command: ["bun", "x"] },
      },
    });
    expect(parsed.map((s) => [s.name, s.type, "transport" in s ? s.transport : "-"])).toEqual([
      ["a", "remote", "auto"],
      ["b", "remote", "auto"],
      ["c", "remote", "sse"],
      ["d", "local", "-"],
      ["e", "local", "-"],
      ["f", "local", "-"],
    ]);
  });

  it("keeps headers, timeout, tools and enabled/disabled", () => {
    const [off, on] = normalizeMcpConfig({
      servers: {
        off: { ...entry, disabled: true },
        on: {
          ...entry,
          enabled: true,
          timeout: 5000,
          headers: { authorization: "Bearer ${T}" },
          tools: { search: true },
        },
      },
    });
    expect(off).toMatchObject({ enabled: false });
    expect(on).toEqual({
      ...normalized,
      name: "on",
      timeout: 5000,
      headers: { authorization: "Bearer ${T}" },
      tools: { search: true },
    });
    expect(normalizeMcpConfig({ servers: { x: { ...entry, enabled: false } } })[0]).toMatchObject({
      enabled: false,
    });
  });

  it("a bad entry throws a TypeError naming the server and the field", () => {
    const bad: Array<[unknown, RegExp]> = [
      [
        { mcpServers: { docs: { url: "not a url" } } },
        /^mcp server "docs": url: must be an http\(s\) URL$/,
      ],
      [{ mcpServers: { docs: { url: "file:///etc/passwd" } } }, /^mcp server "docs": url: /],
      [{ mcpServers: { docs: { ...entry, timeout: -1 } } }, /^mcp server "docs": timeout: /],
      [{ mcpServers: { docs: { ...entry, timeout: "30s" } } }, /^mcp server "docs": timeout: /],
      [
        { mcpServers: { docs: { ...entry, headers: { a: 1 } } } },
        /^mcp server "docs": headers\.a: header values must be strings$/,
      ],
      [
        { mcpServers: { docs: { ...entry, tools: { search: "yes" } } } },
        /^mcp server "docs": tools\.search: must map tool names to true\/false$/,
      ],
      [{ mcpServers: { docs: { ...entry, enabled: "no" } } }, /^mcp server "docs": enabled: /],
      [
        { mcpServers: { docs: { ...entry, type: "websocket" } } },
        /^mcp server "docs": type: unknown type "websocket"/,
      ],
      [
        { mcpServers: { docs: { type: "remote" } } },
        /^mcp server "docs": url: required for a remote server$/,
      ],
      [{ mcpServers: { docs: {} } }, /^mcp server "docs": url: required/],
      [{ mcpServers: { docs: "https://x" } }, /^mcp server "docs": must be an object$/],
      [{ mcpServers: [] }, /^mcp config: mcpServers must be an object of servers$/],
      [{ mcpServers: {}, servers: {} }, /^mcp config: use one of mcpServers, servers or mcp/],
      [null, /^mcp config: must be an object/],
    ];
    for (const [config, message] of bad) {
      expect(() => normalizeMcpConfig(config), JSON.stringify(config)).toThrow(message);
    }
    expect(() => normalizeMcpConfig({ mcpServers: { docs: { url: "x" } } })).toThrow(TypeError);
  });

  it("tolerates keys meant for other clients", () => {
    expect(
      normalizeMcpConfig({ mcpServers: { docs: { ...entry, auth: {}, description: "d" } } })[0],
    ).toMatchObject({ name: "docs", type: "remote" });
  });

  // `oauth` is ours since issue 25: checked, its unknown keys tolerated.
  it("oauth: redirectUrl is required and URLs must be http(s)", () => {
    const oauth = { redirectUrl: "https://agent.example/oauth/callback", callbackPort: 1 };
    expect(normalizeMcpConfig({ mcpServers: { docs: { ...entry, oauth } } })[0]).toMatchObject({
      oauth: { redirectUrl: oauth.redirectUrl },
    });
    expect(() => normalizeMcpConfig({ mcpServers: { docs: { ...entry, oauth: {} } } })).toThrow(
      'mcp server "docs": oauth.redirectUrl',
    );
    expect(() =>
      normalizeMcpConfig({
        mcpServers: { docs: { ...entry, oauth: { ...oauth, clientMetadataUrl: "ftp://x" } } },
      }),
    ).toThrow("oauth.clientMetadataUrl: must be an http(s) URL");
  });
});

describe("tool names and filters", () => {
  it("sanitize replaces [^a-zA-Z0-9_-] with _", () => {
    expect(sanitizeName("my docs.v2/ü-x_y")).toBe("my_docs_v2__-x_y");
    expect(mcpToolName("git hub", "search.issues")).toBe("git_hub_search_issues");
  });

  it("tools: any true ⇒ allowlist; otherwise false entries are dropped", () => {
    expect(keepTool(undefined, "a")).toBe(true);
    expect(keepTool({ a: false }, "a")).toBe(false);
    expect(keepTool({ a: false }, "b")).toBe(true);
    expect(keepTool({ a: true, b: false }, "a")).toBe(true);
    expect(keepTool({ a: true, b: false }, "b")).toBe(false);
    expect(keepTool({ a: true }, "c")).toBe(false);
  });
});

describe("fromCallResult", () => {
  it("maps isError, structuredContent, text and other parts", () => {
    expect(
      fromCallResult("t", {
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      }),
    ).toEqual({ output: "a\nb", isError: false });
    expect(
      fromCallResult("t", {
        isError: true,
        content: [{ type: "text", text: "bad" }],
        structuredContent: { x: 1 },
      }),
    ).toEqual({ output: "bad", isError: true });
    expect(fromCallResult("t", { isError: true, content: [] })).toEqual({
      output: "t: the server reported an error",
      isError: true,
    });
    expect(
      fromCallResult("t", { content: [{ type: "text", text: "1" }], structuredContent: { n: 1 } }),
    ).toEqual({ output: '{"n":1}', isError: false });
    expect(
      fromCallResult("t", {
        content: [
          { type: "audio", data: "AA==", mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "file:///a.txt", text: "inline text" } },
          {
            type: "resource",
            resource: { uri: "file:///b.bin", blob: "AA==", mimeType: "application/octet-stream" },
          },
          { type: "resource_link", uri: "https://x/y", name: "y" },
        ],
      }),
    ).toEqual({
      output:
        "[audio audio/wav]\ninline text\n[resource file:///b.bin application/octet-stream]\n[resource_link https://x/y]",
      isError: false,
    });
  });
});

describe("elicitation mappings (shared with the edge)", () => {
  const form = {
    mode: "form" as const,
    message: "Which repository?",
    requestedSchema: {
      type: "object",
      properties: {
        repo: { type: "string", minLength: 1 },
        private: { type: "boolean" },
        labels: { type: "array" as const, items: { type: "string" as const, enum: ["x", "y"] } },
      },
      required: ["repo"],
    },
  } satisfies ElicitationParams;
  const url: ElicitationParams = {
    mode: "url",
    message: "Sign in to GitHub",
    url: "https://github.com/login/x",
    elicitationId: "e-9",
  };

  it("requestFromElicitation: form ⇒ input with data.schema; url ⇒ authorization with url", () => {
    expect(requestFromElicitation(form, { server: "gh", tool: "gh_create", id: "r1" })).toEqual({
      id: "r1",
      kind: "input",
      prompt: "Which repository?",
      data: { schema: form.requestedSchema, server: "gh", tool: "gh_create" },
    });
    // Issue 40: nothing beyond the SPEC's request unless the caller opts in (the edge does).
    expect(requestFromElicitation(url, { server: "gh", id: "r2" })).toEqual({
      id: "r2",
      kind: "authorization",
      prompt: "Sign in to GitHub",
      url: "https://github.com/login/x",
    });
    expect(requestFromElicitation(url, { server: "gh", id: "r2", attributed: true })).toEqual({
      id: "r2",
      kind: "authorization",
      prompt: "Sign in to GitHub",
      url: "https://github.com/login/x",
      data: { server: "gh", elicitationId: "e-9" },
    });
    expect(requestFromElicitation(form, { server: "gh" }).id).toMatch(/^elicit_/);
  });

  it("resultFromAnswer: ok ⇒ accept with data; declined ⇒ decline; other refusals ⇒ cancel", () => {
    expect(
      resultFromAnswer(answerOutput("r", { repo: "a/b", private: true, labels: ["x"] }), form),
    ).toEqual({
      result: { action: "accept", content: { repo: "a/b", private: true, labels: ["x"] } },
    });
    expect(resultFromAnswer(answerDeclined("r"), form)).toEqual({ result: { action: "decline" } });
    expect(resultFromAnswer(answerDeclined("r", "expired"), form)).toEqual({
      result: { action: "cancel" },
    });
    expect(resultFromAnswer(answerDeclined("r", "cancelled"), form)).toEqual({
      result: { action: "cancel" },
    });
    expect(resultFromAnswer(answerDeclined("r", null), form)).toEqual({
      result: { action: "cancel" },
    });
    expect(resultFromAnswer(answerOutput("r"), url)).toEqual({ result: { action: "accept" } });
    expect(resultFromAnswer(answerDeclined("r"), url)).toEqual({ result: { action: "decline" } });
  });

  it("resultFromAnswer: data that does not fit ⇒ cancel with the problems", () => {
    const missing = resultFromAnswer(answerOutput("r", { private: "yes" }), form);
    expect(missing.result).toEqual({ action: "cancel" });
    expect(missing.problems!.join("\n")).toMatch(/repo/);
    expect(missing.problems!.join("\n")).toMatch(/\/private/);
    expect(resultFromAnswer(answerOutput("r"), form).result).toEqual({ action: "cancel" }); // no data, required field
    expect(resultFromAnswer(answerOutput("r", { repo: { nested: 1 } }), form).problems).toEqual([
      "/repo: must be a string, number, boolean or array of strings",
    ]);
    expect(resultFromAnswer(answerOutput("r", ["a"]), form).problems).toEqual([
      "(root): the answer must be an object of fields",
    ]);
  });

  it("suspendCall wraps a valid Request and rejects a malformed one", () => {
    const request = requestFromElicitation(form, { server: "gh", id: "r1" });
    expect(suspendCall(request)).toEqual({ suspend: request });
    expect(() => suspendCall({ ...request, id: "" })).toThrow();
  });
});
