// The config `agents` block (SPEC §7A, src/core/a2a/config.ts): shapes, defaults, the
// enabled/disabled precedence MCP uses, and a TypeError naming the entry and field.
import { describe, expect, it } from "vitest";
import { cardUrlOf, parseAgentsConfig } from "../../src/core/a2a/config";

describe("parseAgentsConfig", () => {
  it("reads card or url, headers, timeout and pollEvery, with the SPEC's defaults", () => {
    expect(
      parseAgentsConfig({
        agents: {
          billing: { card: "https://billing.example.com/.well-known/agent-card.json" },
          search: {
            url: "https://search.example.com/a2a/",
            headers: { authorization: "Bearer ${SEARCH_TOKEN}" },
            timeout: 5000,
            pollEvery: 250,
          },
        },
      }),
    ).toEqual([
      {
        name: "billing",
        card: "https://billing.example.com/.well-known/agent-card.json",
        headers: {},
        enabled: true,
        timeout: 300_000,
        pollEvery: 1000,
      },
      {
        name: "search",
        card: "https://search.example.com/a2a/.well-known/agent-card.json",
        headers: { authorization: "Bearer ${SEARCH_TOKEN}" },
        enabled: true,
        timeout: 5000,
        pollEvery: 250,
      },
    ]);
  });

  it("takes the block itself too, and an empty one gives no agents", () => {
    expect(parseAgentsConfig({ a: { url: "http://127.0.0.1:9/" } })[0]?.card).toBe(
      "http://127.0.0.1:9/.well-known/agent-card.json",
    );
    expect(parseAgentsConfig({ agents: {} })).toEqual([]);
  });

  it("follows MCP's enabled/disabled precedence", () => {
    const card = "https://x.example.com/card.json";
    const on = (entry: Record<string, unknown>) =>
      parseAgentsConfig({ agents: { a: { card, ...entry } } })[0]?.enabled;
    expect(on({})).toBe(true);
    expect(on({ enabled: false })).toBe(false);
    expect(on({ disabled: true })).toBe(false);
    expect(on({ enabled: true, disabled: true })).toBe(false);
    expect(on({ enabled: true, disabled: false })).toBe(true);
  });

  it.each([
    [{ agents: [] }, /agents must be an object/],
    ["agents", /must be an object of agents/],
    [{ agents: { a: 1 } }, /A2A agent "a": must be an object/],
    [{ agents: { a: {} } }, /A2A agent "a": card: required/],
    [{ agents: { a: { card: "ftp://x/card.json" } } }, /A2A agent "a": card: must be an http/],
    [{ agents: { a: { card: "https://x/c.json", url: "https://x" } } }, /card or url, not both/],
    [{ agents: { a: { url: "https://x", timeout: 0 } } }, /A2A agent "a": timeout:/],
    [{ agents: { a: { url: "https://x", pollEvery: 1.5 } } }, /A2A agent "a": pollEvery:/],
    [{ agents: { a: { url: "https://x", headers: { h: 1 } } } }, /header values must be strings/],
  ])("refuses %j", (config, message) => {
    expect(() => parseAgentsConfig(config)).toThrow(TypeError);
    expect(() => parseAgentsConfig(config)).toThrow(message);
  });

  it("keeps a url that already names the card", () => {
    expect(cardUrlOf("https://x.example.com/agents/card.json")).toBe(
      "https://x.example.com/agents/card.json",
    );
    expect(cardUrlOf("https://x.example.com")).toBe(
      "https://x.example.com/.well-known/agent-card.json",
    );
  });
});
