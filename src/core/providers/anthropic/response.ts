import { z } from "zod";
import type { ModelTurn } from "../model";
import { ProviderError, excerpt } from "../../errors";
import { mapAnthropicFinish } from "./finish";
import { newCallId } from "../call-ids";

const ResponseSchema = z.looseObject({
  model: z.string().nullish(),
  content: z.array(
    z.looseObject({
      type: z.string(),
      text: z.string().optional(),
      id: z.string().optional(),
      name: z.string().optional(),
      input: z.unknown().optional(),
    }),
  ),
  stop_reason: z.string().nullish(),
  usage: z.looseObject({ input_tokens: z.number().nullish(), output_tokens: z.number().nullish() }).nullish(),
});

export function parseAnthropicResponse(json: unknown, requestedModel: string): ModelTurn {
  const parsed = ResponseSchema.safeParse(json);
  if (!parsed.success) {
    throw new ProviderError(`anthropic: unexpected response shape: ${excerpt(JSON.stringify(json))}`);
  }
  const text: string[] = [];
  const toolCalls: ModelTurn["toolCalls"] = [];
  for (const block of parsed.data.content) {
    if (block.type === "text" && block.text !== undefined) text.push(block.text);
    if (block.type === "tool_use") {
      toolCalls.push({
        id: block.id || newCallId(),
        name: block.name ?? "",
        arguments: typeof block.input === "string" ? block.input : JSON.stringify(block.input ?? {}),
      });
    }
  }
  const prompt = parsed.data.usage?.input_tokens ?? 0;
  const completion = parsed.data.usage?.output_tokens ?? 0;
  return {
    content: text.length ? text.join("") : null,
    toolCalls,
    finishReason: mapAnthropicFinish(parsed.data.stop_reason, toolCalls.length > 0),
    usage: { promptTokens: prompt, completionTokens: completion, totalTokens: prompt + completion },
    model: parsed.data.model ?? requestedModel,
    raw: json,
  };
}
