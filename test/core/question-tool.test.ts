/**
 * The built-in `question` tool (SPEC §4A), opt-in with `builtins: ["question"]`: the
 * rendered prompt byte for byte, the suspension as `kind: "question"` with
 * `data.questions`, the answer's data returned as JSON, never on by default; and the
 * SPEC's `parseMcpConfig` returning the raw server map.
 */
import { describe, expect, it } from "vitest";
import {
  answerDeclined,
  answerOutput,
  createInProcessClient,
  createToolkit,
  parseMcpConfig,
  pendingOf,
  questionTool,
  renderQuestions,
} from "../../src/core/index";

const questions = [
  { question: "Which plan?", header: "Plan", options: ["basic", "pro", "team"] },
  { question: "Anything else?", options: [] },
  { question: "Seats?", multiple: false },
];

describe("question tool", () => {
  it("renders the questions as the SPEC fixes it (options appended, header left out)", () => {
    expect(renderQuestions(questions)).toBe(
      "Which plan? (options: basic, pro, team)\nAnything else?\nSeats?",
    );
  });

  it("suspends with kind question and data.questions; the answer's data comes back as JSON", async () => {
    const tool = questionTool();
    expect(tool.source).toBe("builtin");
    const first = await tool.execute({ questions }, { callId: "call_1" });
    const request = pendingOf(first)!;
    expect(request).toMatchObject({
      kind: "question",
      prompt: "Which plan? (options: basic, pro, team)\nAnything else?\nSeats?",
      data: { questions },
    });
    const answered = await tool.execute(
      { questions },
      { callId: "call_1", answer: answerOutput(request.id, { answers: ["pro", "", "3"] }) },
    );
    expect(answered).toEqual({ output: '{"answers":["pro","","3"]}', isError: false });
    const declined = await tool.execute(
      { questions },
      { callId: "call_1", answer: answerDeclined(request.id) },
    );
    expect(declined.isError).toBe(true);
    expect(declined.output).toMatch(/^declined\/expired: Which plan\?/);
  });

  it("refuses calls without questions, naming the problem", async () => {
    const result = await questionTool().execute({ questions: [] }, {});
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/invalid arguments for question/);
  });

  it("is opt-in: absent by default and for unknown names or other shapes", async () => {
    for (const builtins of [
      undefined,
      true,
      false,
      ["bash", "read"],
      { tools: { question: true } },
    ]) {
      expect((await createToolkit({ builtins })).get("question")).toBeUndefined();
    }
    const toolkit = await createToolkit({ builtins: ["bash", "question"] });
    expect(toolkit.tools().map((t) => t.name)).toEqual(["question"]);
  });

  it("a run halts pending on it, and resumes with the answer", async () => {
    const toolkit = await createToolkit({ builtins: ["question"] });
    let turn = 0;
    const client = createInProcessClient({
      model: "m",
      generate: (request) => {
        turn += 1;
        if (turn === 1) {
          return {
            toolCalls: [
              { id: "c1", name: "question", arguments: { questions: [{ question: "Name?" }] } },
            ],
          };
        }
        return { content: `thanks, ${String(request.messages.at(-1)?.content)}` };
      },
    });
    const halted = await client.run("sign me up", { toolkit });
    expect(halted.status).toBe("pending");
    expect(halted.pending).toMatchObject({ kind: "question", prompt: "Name?" });
    const done = await client.runWithAnswer({
      ...halted,
      toolkit,
      history: halted.messages,
      pending: halted.pending!,
      answer: answerOutput(halted.pending!.id, { answers: ["Ann"] }),
    });
    expect(done.status).toBe("done");
    expect(done.text).toBe('thanks, {"answers":["Ann"]}');
  });
});

describe("parseMcpConfig (the SPEC's: the raw server map)", () => {
  const servers = { github: { url: "https://mcp.example/gh", extra: 1 }, local: { command: "x" } };
  it.each([{ mcpServers: servers }, { servers }, { mcp: servers }, servers])(
    "returns the map as written from %j",
    (config) => {
      expect(parseMcpConfig(config)).toEqual(servers);
    },
  );

  it("refuses what is not a map of servers", () => {
    expect(() => parseMcpConfig([])).toThrow(/must be an object of servers/);
    expect(() => parseMcpConfig({ mcpServers: {}, servers: {} })).toThrow(/use one of/);
  });
});
