import { describe, expect, test } from "vitest";
import { z } from "zod";
import { isZodSchema, toJsonSchema, validateArgs } from "../../src/core/schema";

const payment = {
  type: "object",
  properties: {
    amount: { type: "number" },
    currency: { type: "string", enum: ["EUR", "USD"] },
    payee: {
      type: "object",
      properties: { iban: { type: "string", minLength: 5 } },
      required: ["iban"],
    },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["amount", "currency"],
  additionalProperties: false,
};

function problemsOf(result: ReturnType<typeof validateArgs>): string[] {
  if (result.ok) {
    throw new Error(`expected failure, got ${JSON.stringify(result.value)}`);
  }
  return result.problems;
}

describe("isZodSchema", () => {
  test("tells zod from JSON Schema", () => {
    expect(isZodSchema(z.string())).toBe(true);
    expect(isZodSchema({ type: "object" })).toBe(false);
    expect(isZodSchema(null)).toBe(false);
    expect(isZodSchema("string")).toBe(false);
  });
});

describe("toJsonSchema", () => {
  test("zod object ⇒ properties and required, without $schema", () => {
    const schema = toJsonSchema(
      z.object({
        city: z.string().describe("City name"),
        days: z.number().int().optional(),
        unit: z.string().default("C"),
      }),
    );
    expect(schema.$schema).toBeUndefined();
    expect(schema.type).toBe("object");
    expect(schema.properties).toMatchObject({
      city: { type: "string", description: "City name" },
      days: { type: "integer" },
      unit: { type: "string", default: "C" },
    });
    // Defaults are filled in by validation, so the model need not send them.
    expect(schema.required).toEqual(["city"]);
  });

  test("JSON Schema passes through as a shallow copy", () => {
    const input = { $schema: "https://json-schema.org/draft/2020-12/schema", ...payment };
    const out = toJsonSchema(input);
    expect(out).not.toBe(input);
    expect(out.$schema).toBeUndefined();
    expect(input.$schema).toBeDefined();
    expect(out).toEqual(payment);
  });

  test("always an object schema usable as OpenAI parameters", () => {
    expect(toJsonSchema(undefined)).toEqual({ type: "object", properties: {} });
    expect(toJsonSchema({})).toEqual({ type: "object", properties: {} });
    expect(toJsonSchema({ type: "object" })).toEqual({ type: "object", properties: {} });
    expect(toJsonSchema(z.object({}))).toMatchObject({ type: "object", properties: {} });
  });

  test("unrepresentable zod types do not throw", () => {
    expect(() => toJsonSchema(z.object({ when: z.date() }))).not.toThrow();
  });
});

describe("validateArgs with zod", () => {
  const schema = z.object({
    amount: z.coerce.number(),
    currency: z.enum(["EUR", "USD"]).default("EUR"),
    payee: z.object({ iban: z.string().min(5) }).optional(),
  });

  test("returns the parsed value with coercion and defaults", () => {
    expect(validateArgs(schema, { amount: "12.5" })).toEqual({
      ok: true,
      value: { amount: 12.5, currency: "EUR" },
    });
  });

  test("lists every problem with its path", () => {
    const problems = problemsOf(
      validateArgs(schema, { amount: "x", currency: "GBP", payee: { iban: "1" } }),
    );
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^amount: /);
    expect(problems[1]).toMatch(/^currency: /);
    expect(problems[2]).toMatch(/^payee\.iban: /);
  });

  test("missing required field and non-object args", () => {
    expect(problemsOf(validateArgs(z.object({ q: z.string() }), {}))).toEqual([
      expect.stringMatching(/^q: .*expected string/),
    ]);
    for (const bad of [null, [], "text"]) {
      expect(problemsOf(validateArgs(schema, bad))).toEqual([
        expect.stringMatching(/^\(root\): .*expected object/),
      ]);
    }
  });

  test("array indices and unicode keys appear in the path", () => {
    const s = z.object({ "prénom 名": z.string(), list: z.array(z.number()) });
    expect(problemsOf(validateArgs(s, { "prénom 名": 1, list: [1, "2"] }))).toEqual([
      expect.stringMatching(/^prénom 名: /),
      expect.stringMatching(/^list\.1: /),
    ]);
  });
});

describe("validateArgs with JSON Schema", () => {
  test("valid arguments come back unchanged", () => {
    const args = { amount: 3, currency: "EUR", tags: ["a"] };
    expect(validateArgs(payment, args)).toEqual({ ok: true, value: args });
  });

  test("two bad fields ⇒ two problems, without the 'properties' wrappers", () => {
    expect(problemsOf(validateArgs(payment, { amount: "3", currency: "GBP" }))).toEqual([
      '/amount: Instance type "string" is invalid. Expected "number". (type)',
      expect.stringMatching(/^\/currency: .*\(enum\)$/),
    ]);
  });

  test("nested paths, array items, missing required, unknown property", () => {
    const problems = problemsOf(
      validateArgs(payment, {
        currency: "EUR",
        payee: { iban: "1" },
        tags: ["ok", 2],
        extra: true,
      }),
    );
    expect(problems).toEqual([
      expect.stringMatching(/^\(root\): .*required property "amount".*\(required\)$/),
      expect.stringMatching(/^\/payee\/iban: .*\(minLength\)$/),
      expect.stringMatching(/^\/tags\/1: .*Expected "string"/),
      "/extra: Not allowed by the schema. (false)",
    ]);
    expect(problems.join("\n")).not.toMatch(/does not match schema|did not match schema/);
  });

  test("non-object args", () => {
    for (const [bad, type] of [
      [null, "null"],
      [[], "array"],
      ["text", "string"],
    ] as const) {
      expect(problemsOf(validateArgs(payment, bad))).toEqual([
        `(root): Instance type "${type}" is invalid. Expected "object". (type)`,
      ]);
    }
  });

  test("unicode property names are decoded in the path", () => {
    const schema = { type: "object", properties: { "prénom 名#": { type: "string" } } };
    expect(problemsOf(validateArgs(schema, { "prénom 名#": 1 }))).toEqual([
      '/prénom 名#: Instance type "number" is invalid. Expected "string". (type)',
    ]);
  });

  test("keeps a wrapper error when it is the only explanation", () => {
    const schema = { type: "object", properties: { a: false } };
    expect(problemsOf(validateArgs(schema, { a: 1 }))).toEqual([
      "/a: Not allowed by the schema. (false)",
    ]);
  });

  // (The vitest workers pool re-enables code generation, so this checks behaviour only:
  // @cfworker/json-schema interprets schemas and never calls eval / new Function.)
  test("interprets the schema without code generation", () => {
    // A pattern that would break naive code generation stays a plain string to match.
    const schema = {
      type: "object",
      properties: { s: { type: "string", pattern: "^[a-z\"'`]+$" } },
    };
    expect(validateArgs(schema, { s: "a\"'`" }).ok).toBe(true);
    expect(validateArgs(schema, { s: "A" }).ok).toBe(false);
    // Draft 2020-12 keyword support is the validator's, not hand-rolled.
    const tuple = { type: "array", prefixItems: [{ type: "number" }], items: false };
    expect(validateArgs(tuple, [1]).ok).toBe(true);
    expect(validateArgs(tuple, [1, 2]).ok).toBe(false);
  });
});
