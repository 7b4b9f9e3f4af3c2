/**
 * The fenced code blocks of a markdown guide, and what `npm run check:docs` does with each
 * (scripts/docs-check.mjs). Pure text in, plain data out, so test/scripts/doc-blocks.test.ts
 * checks the rules without a server.
 *
 * Every block is one of:
 * - `ts`/`tsx`/`js`/`jsx` — type-checked as a module against the package's built types;
 *   free names it uses are declared on the line(s) directly above the fence:
 *   `<!-- given: declare const apiKey: string; -->`.
 * - `sh` — run, in order with the other guides' shell blocks, in one bash session against
 *   a `wrangler dev` the check starts. A command line ending in `# → text` must print `text`.
 * - `json` — parsed.
 * - anything else (or any of the above that cannot run as written) — marked on the line
 *   directly above the fence: `<!-- illustrative: <why it is not run> -->`. An unmarked
 *   block of another kind fails the check.
 */

const TYPED = { ts: "ts", typescript: "ts", tsx: "tsx", js: "js", javascript: "js", jsx: "jsx" };
const SHELL = new Set(["sh", "bash", "shell"]);
const ILLUSTRATIVE = /^<!--\s*illustrative:(.*?)-->$/;
const GIVEN = /^<!--\s*given:([\s\S]*?)-->$/;

/**
 * The fenced blocks of `text` (fences may be indented, inside list items), each with the
 * 1-based line of its opening fence, its language, its code (the fence's indentation
 * removed) and the marker comment that ends on the line directly above it, if any.
 * @param {string} text
 * @returns {{ line: number, lang: string, code: string, marker?: string }[]}
 */
export function extractBlocks(text) {
  const lines = text.split("\n");
  const blocks = [];
  for (let i = 0; i < lines.length; i += 1) {
    const open = /^( *)(`{3,})\s*([\w+-]*)/.exec(lines[i]);
    if (!open) {
      continue;
    }
    const [, indent, fence, lang] = open;
    let end = i + 1;
    while (end < lines.length && !lines[end].startsWith(`${indent}${fence}`)) {
      end += 1;
    }
    const code = lines
      .slice(i + 1, end)
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line.trimStart()))
      .join("\n");
    blocks.push({ line: i + 1, lang: lang.toLowerCase(), code, marker: markerAbove(lines, i) });
    i = end;
  }
  return blocks;
}

/** The HTML comment that ends on the line directly above line `i` (it may span lines). */
function markerAbove(lines, i) {
  const above = (lines[i - 1] ?? "").trim();
  if (!above.endsWith("-->")) {
    return undefined;
  }
  let start = i - 1;
  while (start >= 0 && !lines[start].trim().startsWith("<!--")) {
    start -= 1;
  }
  return start < 0
    ? undefined
    : lines
        .slice(start, i)
        .map((line) => line.trim())
        .join(" ");
}

/**
 * What the check does with a block: `{ kind: "typecheck", ext, given }`, `{ kind: "run" }`,
 * `{ kind: "parse" }`, `{ kind: "illustrative", reason }`, or `{ kind: "unmarked", problem }`.
 * @param {{ lang: string, marker?: string }} block
 */
export function classify(block) {
  const illustrative = block.marker && ILLUSTRATIVE.exec(block.marker);
  if (illustrative) {
    const reason = illustrative[1].trim();
    return reason
      ? { kind: "illustrative", reason }
      : { kind: "unmarked", problem: "an illustrative marker needs a reason" };
  }
  const given = block.marker && GIVEN.exec(block.marker);
  if (TYPED[block.lang]) {
    return { kind: "typecheck", ext: TYPED[block.lang], given: given ? given[1].trim() : "" };
  }
  if (given) {
    return {
      kind: "unmarked",
      problem: `a given marker applies to ts/js blocks, not ${block.lang}`,
    };
  }
  if (SHELL.has(block.lang)) {
    return { kind: "run" };
  }
  if (block.lang === "json") {
    return { kind: "parse" };
  }
  return {
    kind: "unmarked",
    problem: `a ${block.lang || "plain"} block is neither run, type-checked nor parsed: mark it <!-- illustrative: <reason> --> on the line above the fence`,
  };
}

/**
 * A shell block as bash for the walk-through: the guides' `localhost:8787` becomes the
 * server the check started, and a one-line command ending in `# → text` (with no `…` in
 * the text) has its output checked for `text`. `file` and `line` (the opening fence's) name
 * the line in failures.
 * @param {string} code
 * @param {{ base: string, file: string, line: number }} options
 */
export function shellScript(code, { base, file, line: fence }) {
  const host = base.replace(/^https?:\/\//, "");
  const lines = code.replace(/\b(?:localhost|127\.0\.0\.1):8787\b/g, host).split("\n");
  return lines
    .map((line, i) => {
      const expect = /^(?<command>\S.*?)\s+#\s*→\s*(?<text>[^…]+?)\s*$/.exec(line);
      const continued = i > 0 && lines[i - 1].trimEnd().endsWith("\\");
      if (!expect || continued || line.trimEnd().endsWith("\\")) {
        return line;
      }
      const { command, text } = expect.groups;
      return [
        `__out=$(${command})`,
        `printf '%s\\n' "$__out"`,
        `__expect "$__out" ${quote(text)} ${quote(`${file}:${fence + i + 1}`)}`,
      ].join("; ");
    })
    .join("\n");
}

/** `text` as one single-quoted bash word. */
export function quote(text) {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
