// The two opt-ins of the suspension rule a tool can use (src/core/suspension.ts): CONTINUES (a
// re-execution's next step is a new request, not `unresolved`) and RUN_ON_REFUSAL (a refusal
// re-executes the tool so it can tell its server). Durable (halt, JSON, resume) and inline.
import { describe, expect, it } from "vitest";
import {
  answerDeclined,
  answerOutput,
  CONTINUES,
  createInProcessClient,
  createToolkit,
  defineTool,
  pending,
  RUN_ON_REFUSAL,
  type Context,
  type Request,
} from "../../src/core";

/** Asks `steps` questions one after another (each a new request), then reports the answers. */
function stepper(steps: number, opts: { hearsRefusal?: boolean; marks?: boolean } = {}) {
  const seen: Context[] = [];
  const tool = defineTool({
    name: "steps",
    description: "asks several things",
    async run(_args, ctx) {
      seen.push(ctx);
      const done = (ctx.answered?.data?.done as string[] | undefined) ?? [];
      if (ctx.answer && !ctx.answer.ok) {
        return `told the server: ${ctx.answer.reason}`;
      }
      const answers = ctx.answer ? [...done, String(ctx.answer.data)] : [];
      if (answers.length === steps) {
        return `answers ${answers.join(",")}`;
      }
      const result = pending({
        kind: "input",
        prompt: `Question ${answers.length + 1}?`,
        data: { done: answers, ...(opts.hearsRefusal ? { [RUN_ON_REFUSAL]: true } : {}) },
      });
      return ctx.answer && opts.marks !== false
        ? { ...result, metadata: { ...result.metadata, [CONTINUES]: true } }
        : result;
    },
  });
  return { tool, seen };
}

const script = (waitFor?: (request: Request) => unknown) => {
  let turn = 0;
  return createInProcessClient({
    model: "scripted",
    ...(waitFor ? { waitFor } : {}),
    generate: async () =>
      turn++ === 0
        ? {
            role: "assistant",
            content: "",
            toolCalls: [{ id: "c1", name: "steps", arguments: "{}" }],
          }
        : { role: "assistant", content: "done" },
  } as never);
};

describe("CONTINUES: a call's next question after an answer", () => {
  it("durably: each answer halts again on the call's next request, then the call finishes", async () => {
    const { tool, seen } = stepper(3);
    const toolkit = await createToolkit({ tools: [tool] });
    const client = script();
    let result: any = JSON.parse(JSON.stringify(await client.run("go", { toolkit } as never)));
    const prompts = [result.pending.prompt];
    for (const answer of ["a", "b", "c"]) {
      result = JSON.parse(
        JSON.stringify(
          await client.runWithAnswer({
            toolkit,
            history: result.messages,
            pending: result.pending,
            answer: answerOutput(result.pending.id, answer),
          } as never),
        ),
      );
      if (result.status === "pending") {
        prompts.push(result.pending.prompt);
      }
    }
    expect(prompts).toEqual(["Question 1?", "Question 2?", "Question 3?"]);
    expect(result.status).toBe("done");
    expect(result.toolCalls[0]).toMatchObject({ output: "answers a,b,c", isError: false });
    expect(seen).toHaveLength(4);
  });

  it("inline: waitFor answers each next request", async () => {
    const { tool } = stepper(3);
    const asked: string[] = [];
    const result = await script((request) => {
      asked.push(request.prompt);
      return answerOutput(request.id, asked.length);
    }).run("go", { toolkit: await createToolkit({ tools: [tool] }) } as never);
    expect(asked).toEqual(["Question 1?", "Question 2?", "Question 3?"]);
    expect(result.toolCalls[0]).toMatchObject({ output: "answers 1,2,3", isError: false });
  });

  it("without the mark a second suspension is still unresolved", async () => {
    const { tool } = stepper(3, { marks: false });
    const result = await script((request) => answerOutput(request.id, 1)).run("go", {
      toolkit: await createToolkit({ tools: [tool] }),
    } as never);
    expect(result.toolCalls[0]).toMatchObject({ output: "unresolved: Question 2?", isError: true });
  });
});

describe("RUN_ON_REFUSAL: the tool hears a refusal", () => {
  it("re-executes with the refused answer; the model hears the refusal and the tool", async () => {
    const { tool, seen } = stepper(1, { hearsRefusal: true });
    const result = await script((request) => answerDeclined(request.id, "expired")).run("go", {
      toolkit: await createToolkit({ tools: [tool] }),
    } as never);
    expect(seen).toHaveLength(2);
    expect(seen[1]!.answer).toEqual({ id: seen[1]!.answered!.id, ok: false, reason: "expired" });
    expect(result.toolCalls[0]).toMatchObject({
      output: "declined/expired: Question 1?\ntold the server: expired",
      isError: true,
    });
  });

  it("without it the tool does not run again", async () => {
    const { tool, seen } = stepper(1);
    const result = await script((request) => answerDeclined(request.id)).run("go", {
      toolkit: await createToolkit({ tools: [tool] }),
    } as never);
    expect(seen).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({ output: "declined/expired: Question 1?" });
  });
});
