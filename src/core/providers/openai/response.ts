import { z } from "zod";
import type { ModelTurn } from "../model";
import { ProviderError, excerpt } from "../../errors";
import { mapOpenAIFinish } from "./finish";
import { newCallId } from "../call-ids";

// Lenient: providers that claim compatibility differ in what they omit.
const ToolCallSchema = z.looseObject({
  id: z.string().nullish(),
  function: z.looseObject({
    name: z.string(),
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
  }),
});

const ResponseSchema = z.looseObject({
  model: z.string().nullish(),
  choices: z.array(
    z.looseObject({
      message: z
        .looseObject({
          content: z.union([z.string(), z.array(z.looseObject({ text: z.string().optional() }))]).nullish(),
          tool_calls: z.array(ToolCallSchema).nullish(),
        })
        .nullish(),
      finish_reason: z.string().nullish(),
    }),
  ),
  usage: z
    .looseObject({
      prompt_tokens: z.number().nullish(),
      completion_tokens: z.number().nullish(),
      total_tokens: z.number().nullish(),
    })
    .nullish(),
});

export function parseOpenAIResponse(json: unknown, requestedModel: string): ModelTurn {
  const parsed = ResponseSchema.safeParse(json);
  if (!parsed.success) {
    throw new ProviderError(`openai: unexpected response shape: ${excerpt(JSON.stringify(json))}`);
  }
  const choice = parsed.data.choices[0];
  if (!choice) throw new ProviderError(`openai: response has no choices: ${excerpt(JSON.stringify(json))}`);
  const message = choice.message ?? {};
  const toolCalls = (message.tool_calls ?? []).map((c) => ({
    id: c.id || newCallId(),
    name: c.function.name,
    arguments:
      typeof c.function.arguments === "string" ? c.function.arguments : JSON.stringify(c.function.arguments ?? {}),
  }));
  const content = Array.isArray(message.content)
    ? message.content.map((p) => p.text ?? "").join("")
    : message.content ?? null;
  const usage = parsed.data.usage;
  const prompt = usage?.prompt_tokens ?? 0;
  const completion = usage?.completion_tokens ?? 0;
  return {
    content,
    toolCalls,
    finishReason: mapOpenAIFinish(choice.finish_reason, toolCalls.length > 0),
    usage: { promptTokens: prompt, completionTokens: completion, totalTokens: usage?.total_tokens ?? prompt + completion },
    model: parsed.data.model ?? requestedModel,
    raw: json,
  };
}
