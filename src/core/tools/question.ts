/**
 * The built-in `question` tool (SPEC §4A): the model asks the human. Its first call
 * suspends with `kind: "question"`, the structured questions in `data.questions` and a
 * rendered prompt; the re-execution after an `ok` answer returns the answer's data as JSON
 * (the resolution is the answer, as with `kind: "input"`). Opt-in only — never part of a
 * toolkit unless asked for (`createToolkit({ builtins: ["question"] })`). Credentials are
 * never asked this way (SPEC §10): those go through `kind: "authorization"`.
 */
import * as z from "zod";
import type { Tool } from "../types";
import { pending } from "../answers";
import { declinedResult } from "../suspension";
import { defineTool } from "./define";

export const QUESTION_TOOL = "question";

export interface Question {
  question: string;
  header?: string;
  options?: string[];
  multiple?: boolean;
}

const QuestionsSchema = z.object({
  questions: z
    .array(
      z.object({
        question: z.string().min(1).describe("The question, as the user reads it"),
        header: z.string().optional().describe("A short label (not shown in the prompt)"),
        options: z.array(z.string()).optional().describe("Choices to offer"),
        multiple: z.boolean().optional().describe("Whether several options may be chosen"),
      }),
    )
    .min(1),
});

/**
 * The prompt, byte for byte as the SPEC fixes it: each question's text in order, with
 * ` (options: a, b, c)` when it has options, joined by newlines; `header` is not rendered.
 */
export function renderQuestions(questions: readonly Question[]): string {
  return questions
    .map((q) =>
      q.options?.length ? `${q.question} (options: ${q.options.join(", ")})` : q.question,
    )
    .join("\n");
}

/** A fresh `question` tool (source `builtin`). */
export function questionTool(): Tool {
  return defineTool<{ questions: Question[] }>({
    name: QUESTION_TOOL,
    description:
      "Ask the user one or more questions and wait for the answers. Never ask for passwords, keys or other secrets.",
    inputSchema: QuestionsSchema,
    source: "builtin",
    run: ({ questions }, ctx) => {
      const request = {
        kind: "question",
        prompt: renderQuestions(questions),
        data: { questions },
        // Derived from the call id, so a retried execution asks the same request.
        ...(ctx.callId ? { id: `q_${ctx.callId.replace(/[^A-Za-z0-9_-]/g, "_")}` } : {}),
      };
      if (!ctx.answer) {
        return pending(request);
      }
      if (!ctx.answer.ok) {
        return declinedResult({ ...request, id: ctx.answer.id }, ctx.answer.reason);
      }
      return JSON.stringify(ctx.answer.data ?? null);
    },
  });
}

/**
 * The built-ins a `builtins` option asks for: a list of names, `["question"]`. Only
 * `question` exists at the edge (no filesystem or shell), and only by name: unknown names,
 * `true`, `false` and upstream's `{ tools: {…} }` map (whose baseline is all-on) are
 * accepted and ignored, so nothing is ever on by default.
 */
export function builtinTools(builtins: unknown): Tool[] {
  return Array.isArray(builtins) && builtins.includes(QUESTION_TOOL) ? [questionTool()] : [];
}
