/**
 * Composes a parameterised statement from pieces, for queries whose WHERE clause depends on
 * which filters were given. Values stay bound parameters; only `{ raw }` text (column names
 * from the code's own constants) is spliced. The result is passed to `Sql` as a template.
 */

export interface Statement {
  strings: TemplateStringsArray;
  values: unknown[];
}

interface Raw {
  raw: string;
}

export function statement(
  strings: TemplateStringsArray,
  ...parts: Array<Statement | Raw | string | number | null>
): Statement {
  const texts: string[] = [strings[0] ?? ""];
  const values: unknown[] = [];
  const append = (text: string) => {
    texts[texts.length - 1] += text;
  };
  parts.forEach((part, i) => {
    if (isStatement(part)) {
      part.strings.forEach((text, j) => {
        append(text);
        if (j < part.values.length) {
          values.push(part.values[j]);
          texts.push("");
        }
      });
    } else if (isRaw(part)) {
      append(part.raw);
    } else {
      values.push(part);
      texts.push("");
    }
    append(strings[i + 1] ?? "");
  });
  return {
    strings: Object.assign(texts, { raw: texts }) as unknown as TemplateStringsArray,
    values,
  };
}

function isStatement(part: unknown): part is Statement {
  return typeof part === "object" && part !== null && "strings" in part && "values" in part;
}

function isRaw(part: unknown): part is Raw {
  return typeof part === "object" && part !== null && "raw" in part && !("strings" in part);
}
