/**
 * What the model is sent is bounded and honest, at the edge (issue 38, item 2): an output
 * past the agent's `maxToolOutputBytes` (default 256 KiB; a tool's `maxOutputBytes` wins)
 * reaches the model and the transcript cut on a UTF-8 boundary with the truncation line, the
 * `tool_result` event says `truncated: { total, shown }`, and the whole output comes back,
 * byte for byte, from GET /v1/runs/:runId/tool-calls/:callId/output (Bearer; 404 for an
 * unknown run or call). Agents: test/fixtures/big-output-agents.ts.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  READER_AGENT,
  SMALL_TOOL_BOUND,
  TIGHT_AGENT,
  TIGHT_BOUND,
} from "../fixtures/big-output-agents";
import { API_TOKEN, BASE, api, getRun, startRun, waitForStatus } from "../helpers/edge";
import { absentRunId, allEvents, dataOf } from "../helpers/http";
import type { Message } from "../../src/core/types";
import { ApiRequestError, createApiClient } from "../../src/api-client";

const encoder = new TextEncoder();
/** 1-, 2-, 3- and 4-byte characters: 10 bytes a repeat. */
const MIXED = "aé€😀";

async function read(agent: string, call: { tool: string; text: string; repeat: number }) {
  const { runId } = await startRun({ agent, input: JSON.stringify(call) });
  const run = await waitForStatus(runId, ["done", "failed", "incomplete"]);
  expect(run.status).toBe("done");
  const view = await getRun(runId, "?transcript=1");
  const toolMessage = (view.transcript ?? []).find(
    (m): m is Extract<Message, { role: "tool" }> => m.role === "tool",
  );
  if (!toolMessage) {
    throw new Error("no tool message in the transcript");
  }
  return { runId, view, sent: toolMessage.content, callId: toolMessage.toolCallId };
}

function outputOf(runId: string, callId: string, init: RequestInit = {}) {
  return api(`/v1/runs/${runId}/tool-calls/${encodeURIComponent(callId)}/output`, init);
}

/** The longest prefix of `whole` within `max` UTF-8 bytes that ends on a character boundary. */
function prefixWithin(whole: string, max: number): string {
  let bytes = 0;
  let end = 0;
  for (const char of whole) {
    bytes += encoder.encode(char).length;
    if (bytes > max) {
      break;
    }
    end += char.length;
  }
  return whole.slice(0, end);
}

describe("an output larger than the agent's bound", () => {
  it("reaches the transcript cut with the line, and comes back whole and exact from the output route", async () => {
    const whole = MIXED.repeat(100_000); // 1,000,000 bytes
    const { runId, view, sent, callId } = await read(READER_AGENT, {
      tool: "dump",
      text: MIXED,
      repeat: 100_000,
    });
    const shown = prefixWithin(whole, 262_144);
    const shownBytes = encoder.encode(shown).length;
    expect(shownBytes).toBeLessThanOrEqual(262_144);
    expect(sent).toBe(`${shown}\n[output truncated: 1000000 bytes, the first ${shownBytes} shown]`);
    // The model was sent that, and said so.
    expect(view.text).toBe(`I was sent ${sent.length} characters`);
    // The run's call log keeps it whole and says what the model saw.
    expect(view.toolCalls[0]).toMatchObject({
      id: callId,
      name: "dump",
      truncated: { total: 1_000_000, shown: shownBytes },
    });
    expect(view.toolCalls[0]?.output).toBe(whole);

    const response = await outputOf(runId, callId);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const bytes = new Uint8Array(await response.arrayBuffer());
    const expected = encoder.encode(whole);
    expect(bytes.length).toBe(expected.length);
    // Byte by byte (a deep equal of a megabyte array takes vitest most of a minute).
    expect(bytes.findIndex((byte, i) => byte !== expected[i])).toBe(-1);

    // The event log (SSE) carries what the model was sent, and how much there was.
    const results = (await allEvents(runId)).filter((f) => f.event === "tool_result");
    expect(results.map((f) => dataOf(f))).toEqual([
      {
        id: callId,
        name: "dump",
        output: sent,
        isError: false,
        truncated: { total: 1_000_000, shown: shownBytes },
      },
    ]);
  });

  it("an output within the bound is sent whole, with no truncated field, and served all the same", async () => {
    const { runId, view, sent, callId } = await read(READER_AGENT, {
      tool: "dump",
      text: MIXED,
      repeat: 3,
    });
    expect(sent).toBe(MIXED.repeat(3));
    expect(view.toolCalls[0]).not.toHaveProperty("truncated");
    const results = (await allEvents(runId)).filter((f) => f.event === "tool_result");
    expect(dataOf(results[0]!)).not.toHaveProperty("truncated");
    const response = await outputOf(runId, callId);
    expect(await response.text()).toBe(MIXED.repeat(3));
  });
});

describe("which bound applies", () => {
  it("the agent's maxToolOutputBytes", async () => {
    const { sent, runId, callId } = await read(TIGHT_AGENT, {
      tool: "dump",
      text: "€",
      repeat: 1000,
    });
    const shown = Math.floor(TIGHT_BOUND / 3) * 3; // whole euros
    expect(sent).toBe(
      `${"€".repeat(shown / 3)}\n[output truncated: 3000 bytes, the first ${shown} shown]`,
    );
    expect(await (await outputOf(runId, callId)).text()).toBe("€".repeat(1000));
  });

  it("a tool's own maxOutputBytes overrides the agent's", async () => {
    for (const agent of [READER_AGENT, TIGHT_AGENT]) {
      const { sent } = await read(agent, { tool: "dump_small", text: "é", repeat: 100 });
      expect(sent).toBe(
        `${"é".repeat(SMALL_TOOL_BOUND / 2)}\n[output truncated: 200 bytes, the first ${SMALL_TOOL_BOUND} shown]`,
      );
    }
  });

  it("an MCP tool's result is bounded like a native tool's, and kept whole", async () => {
    const { sent, runId, callId, view } = await read(TIGHT_AGENT, {
      tool: "files_read",
      text: MIXED,
      repeat: 500,
    });
    const shown = prefixWithin(MIXED.repeat(500), TIGHT_BOUND);
    expect(sent).toBe(
      `${shown}\n[output truncated: 5000 bytes, the first ${encoder.encode(shown).length} shown]`,
    );
    expect(view.toolCalls[0]?.output).toBe(MIXED.repeat(500));
    expect(await (await outputOf(runId, callId)).text()).toBe(MIXED.repeat(500));
  });
});

describe("a 3 MB MCP result", () => {
  it("is stored whole (in parts), shown whole in the run and served whole; the model gets its first 256 KiB", async () => {
    const whole = MIXED.repeat(300_000); // 3,000,000 bytes
    const { runId, view, sent, callId } = await read(READER_AGENT, {
      tool: "files_read",
      text: MIXED,
      repeat: 300_000,
    });
    const shown = prefixWithin(whole, 262_144);
    expect(sent).toBe(
      `${shown}\n[output truncated: 3000000 bytes, the first ${encoder.encode(shown).length} shown]`,
    );
    expect(view.toolCalls[0]?.name).toBe("files_read");
    expect(view.toolCalls[0]?.output.length).toBe(whole.length);
    expect(view.toolCalls[0]?.output === whole).toBe(true);
    const served = await (await outputOf(runId, callId)).text();
    expect(served.length).toBe(whole.length);
    expect(served === whole).toBe(true);
  });
});

describe("GET /v1/runs/:runId/tool-calls/:callId/output", () => {
  it("is 404 run_not_found for a run that does not exist or an id that is not a run's", async () => {
    for (const runId of [absentRunId(), "not-a-run"]) {
      const response = await outputOf(runId, "call_1");
      expect(response.status).toBe(404);
      expect((await response.json<any>()).error).toMatchObject({
        code: "run_not_found",
        message: expect.any(String),
      });
    }
  });

  it("is 404 tool_call_not_found for a call the run does not have", async () => {
    const { runId } = await read(TIGHT_AGENT, { tool: "dump", text: "x", repeat: 1 });
    const response = await outputOf(runId, "call_nope");
    expect(response.status).toBe(404);
    expect((await response.json<any>()).error).toMatchObject({
      code: "tool_call_not_found",
      message: expect.stringContaining("call_nope"),
    });
  });

  it("needs the API token: 200 with it, 401 without it or with a wrong one", async () => {
    const { runId, callId } = await read(TIGHT_AGENT, { tool: "dump", text: "x", repeat: 1 });
    const path = `${BASE}/v1/runs/${runId}/tool-calls/${callId}/output`;
    const authorized = await SELF.fetch(path, {
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    expect(authorized.status).toBe(200);
    expect(await authorized.text()).toBe("x");
    const anonymous = await SELF.fetch(path);
    expect(anonymous.status).toBe(401);
    const wrong = await SELF.fetch(path, { headers: { authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    expect((await wrong.json<any>()).error.code).toEqual(expect.any(String));
  });
});

describe("the typed client: runs.toolOutput", () => {
  const client = createApiClient({
    baseUrl: BASE,
    token: API_TOKEN,
    fetch: (request) => SELF.fetch(request),
  });

  it("returns a call's whole output, and throws the API's 404 for an unknown call", async () => {
    const { runId, callId, sent } = await read(TIGHT_AGENT, {
      tool: "dump",
      text: MIXED,
      repeat: 300,
    });
    expect(sent).toContain("[output truncated: 3000 bytes");
    expect(await client.runs.toolOutput(runId, callId)).toBe(MIXED.repeat(300));
    const missing = await client.runs.toolOutput(runId, "call_nope").catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ApiRequestError);
    expect(missing).toMatchObject({ status: 404, code: "tool_call_not_found" });
  });
});
