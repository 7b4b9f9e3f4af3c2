// Types for the TypeScript test that imports doc-blocks.mjs (test/scripts/doc-blocks.test.ts).
export interface DocBlock {
  line: number;
  lang: string;
  code: string;
  marker?: string;
}
export type BlockUse =
  | { kind: "typecheck"; ext: "ts" | "tsx" | "js" | "jsx"; given: string }
  | { kind: "run" }
  | { kind: "parse" }
  | { kind: "illustrative"; reason: string }
  | { kind: "unmarked"; problem: string };
export function extractBlocks(text: string): DocBlock[];
export function classify(block: { lang: string; marker?: string }): BlockUse;
export function shellScript(
  code: string,
  options: { base: string; file: string; line: number },
): string;
export function quote(text: string): string;
