/**
 * What the official MCP suites found (issue 25 §2), each against a real SDK server
 * reached through an injected fetch: tool names past 64 characters, tools that need
 * task augmentation, one malformed tool in tools/list.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createToolkit, type Toolkit } from "../../src/core";
import { toolNames } from "../../src/core/mcp/catalog/tool-names";
import {
  routeFetch,
  streamableServer,
  text,
  type TestServer,
  type TestTool,
} from "../helpers/mcp-server";

const ALPHA = "https://alpha.test";
const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ok = (name: string, extra: Partial<TestTool> = {}): TestTool => ({
  name,
  run: () => text(`${name} ran`),
  ...extra,
});

const toCleanUp: Array<Toolkit | TestServer> = [];
afterEach(async () => {
  await Promise.allSettled(toCleanUp.splice(0).map((x) => x.close()));
});
const track = <T extends Toolkit | TestServer>(x: T): T => (toCleanUp.push(x), x);

async function load(server: TestServer, serverName = "docs") {
  return track(
    await createToolkit({
      mcp: { mcpServers: { [serverName]: { url: `${ALPHA}/mcp` } } },
      fetch: routeFetch({ [ALPHA]: server.fetch }),
    }),
  );
}

describe("2.4 tool names fit ^[a-zA-Z0-9_-]{1,64}$", () => {
  it("a long server and tool name is cut with a stable hash suffix, shown in mcpStatus().renamed, and still callable", async () => {
    const long = "search_all_issues_and_pull_requests_across_every_repository_in_org";
    const server = track(streamableServer({ tools: [ok(long), ok("short")] }));
    const toolkit = await load(server, "company-knowledge-base");
    const names = toolkit.tools().map((t) => t.name);
    expect(names.every((n) => NAME.test(n))).toBe(true);
    const renamedTo = names.find((n) => n !== "company-knowledge-base_short") as string;
    expect(renamedTo).toHaveLength(64);
    expect(toolkit.mcpStatus()["company-knowledge-base"]?.renamed).toEqual({ [renamedTo]: long });
    expect((await toolkit.execute(renamedTo, {})).output).toBe(`${long} ran`);
    // Stable: the same name on the next load, whatever else is listed.
    expect(toolNames("company-knowledge-base", ["other", long]).get(long)).toBe(renamedTo);
  });

  it("two tools that sanitize to one name get distinct names, the same way every time", () => {
    const first = toolNames("docs", ["a_b", "a.b", "a b"]);
    const second = toolNames("docs", ["a b", "a.b", "a_b"]);
    expect(first.get("a_b")).toBe("docs_a_b");
    expect(new Set(first.values()).size).toBe(3);
    expect([...first.entries()].sort()).toEqual([...second.entries()].sort());
  });
});

describe("2.3 tools that require task augmentation", () => {
  it("are left out of the tool list and reported in mcpStatus()", async () => {
    const server = track(
      streamableServer({
        tools: [
          ok("plain"),
          ok("long_job", { definition: { execution: { taskSupport: "required" } } }),
          ok("either", { definition: { execution: { taskSupport: "optional" } } }),
        ],
      }),
    );
    const toolkit = await load(server);
    expect(toolkit.tools().map((t) => t.name)).toEqual(["docs_plain", "docs_either"]);
    expect(toolkit.mcpStatus().docs?.skipped).toEqual([
      { tool: "long_job", reason: expect.stringContaining('taskSupport "required"') },
    ]);
  });
});

describe("2.7 one malformed tool", () => {
  it("is skipped and reported; the server's other tools load", async () => {
    const server = track(
      streamableServer({
        tools: [ok("good"), ok("bad", { definition: { inputSchema: "not a schema" } })],
      }),
    );
    const toolkit = await load(server);
    expect(toolkit.mcpStatus().docs).toMatchObject({ status: "connected", tools: ["docs_good"] });
    expect(toolkit.mcpStatus().docs?.skipped).toEqual([
      { tool: "bad", reason: expect.stringMatching(/^malformed: inputSchema/) },
    ]);
  });
});

describe("2.5 SEP-1034 defaults", () => {
  it("fields an answer omits get the schema's default before the result is sent; given fields win", async () => {
    const server = track(
      streamableServer({
        tools: [
          {
            name: "setup",
            run: async (_args, io) => {
              const result = await io.elicit({
                message: "Preferences?",
                requestedSchema: {
                  type: "object",
                  properties: {
                    name: { type: "string", default: "Ada" },
                    verbose: { type: "boolean", default: true },
                    count: { type: "integer", default: 3 },
                    colour: { type: "string", enum: ["red", "blue"], default: "blue" },
                  },
                },
              });
              return text(JSON.stringify(result));
            },
          },
        ],
      }),
    );
    const toolkit = track(
      await createToolkit({
        mcp: { mcpServers: { docs: { url: `${ALPHA}/mcp` } } },
        fetch: routeFetch({ [ALPHA]: server.fetch }),
        waitFor: (request) => ({ id: request.id, ok: true, data: { count: 7 } }),
      }),
    );
    const result = await toolkit.execute("docs_setup", {});
    expect(JSON.parse(result.output)).toEqual({
      action: "accept",
      content: { name: "Ada", verbose: true, count: 7, colour: "blue" },
    });
  });
});
