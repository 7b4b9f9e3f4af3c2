import type { WireStyle } from "./model";
import { openaiStyle } from "./openai";
import { anthropicStyle } from "./anthropic";

export type StyleName = "openai" | "anthropic";

export function wireStyle(name: string): WireStyle {
  switch (name) {
    case "openai":
      return openaiStyle;
    case "anthropic":
      return anthropicStyle;
    default:
      throw new TypeError(`style must be "openai" or "anthropic", got ${JSON.stringify(name)}`);
  }
}
