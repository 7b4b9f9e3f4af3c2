/**
 * The flat JSON-Schema fast path must never accept what @cfworker/json-schema refuses; it
 * may decline (the validator then decides, and gives the errors).
 */
import { Validator, type Schema } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { flatJsonSchemaCheck } from "../../src/core/schema/flat-json-schema";
import { validateArgs } from "../../src/core/schema";
import type { JsonSchema } from "../../src/core/types";

const flat: Array<[string, JsonSchema]> = [
  [
    "one string, described",
    {
      type: "object",
      properties: { city: { type: "string", description: "City name" } },
      required: ["city"],
    },
  ],
  [
    "two numbers, closed (zod's toJSONSchema output)",
    {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
      additionalProperties: false,
    },
  ],
  [
    "mixed, some optional, integer and boolean",
    {
      type: "object",
      title: "Mixed",
      properties: {
        s: { type: "string" },
        n: { type: "integer", default: 1 },
        b: { type: "boolean" },
        t: { type: "string", examples: ["x"] },
      },
      required: ["s", "b"],
    },
  ],
  [
    "an enum",
    {
      type: "object",
      properties: {
        e: { type: "string", enum: ["a", "b"] },
        n: { type: "number", enum: [1, 2.5] },
      },
      required: ["e"],
    },
  ],
  ["no properties", { type: "object" }],
  [
    "open extras",
    { type: "object", properties: { a: { type: "number" } }, additionalProperties: true },
  ],
  [
    "required twice",
    { type: "object", properties: { a: { type: "number" } }, required: ["a", "a"] },
  ],
  ["required but not described", { type: "object", properties: {}, required: ["zzz"] }],
];

const notFlat: Array<[string, JsonSchema]> = [
  ["a string check", { type: "object", properties: { s: { type: "string", minLength: 1 } } }],
  ["a format", { type: "object", properties: { s: { type: "string", format: "email" } } }],
  ["a number check", { type: "object", properties: { n: { type: "number", minimum: 0 } } }],
  ["a type list", { type: "object", properties: { n: { type: ["number", "null"] } } }],
  ["a nested object", { type: "object", properties: { o: { type: "object" } } }],
  ["an array", { type: "object", properties: { l: { type: "array", items: { type: "string" } } } }],
  ["a $ref", { type: "object", properties: { r: { $ref: "#/$defs/x" } }, $defs: { x: {} } }],
  ["no type", { properties: { a: { type: "string" } } }],
  ["a schema for extras", { type: "object", additionalProperties: { type: "string" } }],
  ["patternProperties", { type: "object", patternProperties: { "^x": { type: "string" } } }],
  ["allOf", { type: "object", allOf: [{ required: ["a"] }] }],
  ["an enum of objects", { type: "object", properties: { e: { type: "string", enum: [{}] } } }],
  ["a const", { type: "object", properties: { c: { type: "string", const: "x" } } }],
  [
    "a __proto__ property",
    JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}'),
  ],
  ["not an object", { type: "string" }],
  ["minProperties", { type: "object", minProperties: 1 }],
];

const values: unknown[] = [
  "",
  "a",
  "b",
  "Paris",
  "ü 🚀",
  0,
  -0,
  1,
  2.5,
  1.5,
  -7,
  1e308,
  2 ** 53,
  NaN,
  Infinity,
  true,
  false,
  null,
  undefined,
  {},
  [],
  ["x"],
];

function inputs(keys: string[]): unknown[] {
  const base: Record<string, unknown> = {
    s: "x",
    n: 1,
    b: true,
    t: "y",
    city: "Paris",
    a: 1,
    e: "a",
  };
  const out: unknown[] = [
    null,
    undefined,
    "str",
    42,
    [],
    [1],
    Object.create(null),
    Object.create({ city: "Paris", a: 1, e: "a", s: "x", b: true }),
    new Date(0),
    {},
    { ...base },
    { ...base, extra: "x", another: { deep: 1 } },
    JSON.parse(
      '{"__proto__": {"polluted": 1}, "city": "Paris", "a": 1, "b": true, "s": "x", "e": "a"}',
    ),
    Object.assign(Object.create(null), base),
  ];
  // Only the schema's own keys, so a closed schema has inputs it can accept.
  const own = Object.fromEntries(keys.filter((k) => k in base).map((k) => [k, base[k]]));
  out.push({ ...own }, { ...own, extra: 1 });
  for (const key of keys) {
    out.push({ ...own, [key]: "a" }, { ...own, [key]: 2.5 }, { ...own, [key]: false });
    const missing = { ...base };
    delete missing[key];
    out.push(missing);
    for (const value of values) {
      out.push({ ...base, [key]: value });
    }
  }
  return out;
}

const keysOf = (schema: JsonSchema) => Object.keys((schema.properties as object) ?? {});
const cfworker = (schema: JsonSchema, input: unknown) =>
  new Validator(schema as Schema, "2020-12", false).validate(input).valid;
/** The validator's answer, or undefined for an input it cannot take (not JSON: `undefined` values). */
const cfworkerOrThrow = (schema: JsonSchema, input: unknown): boolean | undefined => {
  try {
    return cfworker(schema, input);
  } catch {
    return undefined;
  }
};

describe("flat JSON-Schema fast path", () => {
  it.each(flat)("never accepts what the validator refuses: %s", (_name, schema) => {
    const check = flatJsonSchemaCheck(schema);
    expect(check).toBeDefined();
    let accepted = 0;
    for (const input of inputs([...keysOf(schema), "zzz"])) {
      if (!check!(input)) {
        continue;
      }
      accepted += 1;
      expect(cfworker(schema, input), `validator refuses ${JSON.stringify(input)}`).toBe(true);
    }
    expect(accepted).toBeGreaterThan(0);
  });

  it("accepts JSON-parsed arguments (what a model sends) without the validator", () => {
    const [, schema] = flat[1]!;
    expect(flatJsonSchemaCheck(schema)!(JSON.parse('{"a":40,"b":2}'))).toBe(true);
  });

  it.each(notFlat)("declines schemas it cannot vouch for: %s", (_name, schema) => {
    expect(flatJsonSchemaCheck(schema)).toBeUndefined();
  });

  it.each([...flat, ...notFlat.filter(([name]) => name !== "a $ref")])(
    "validateArgs gives the validator's answer, fast path or not: %s",
    (_name, schema) => {
      for (const input of inputs([...keysOf(schema), "zzz"])) {
        const expected = cfworkerOrThrow(schema, input);
        if (expected === undefined) {
          continue;
        }
        const checked = validateArgs(schema, input);
        expect(checked.ok, JSON.stringify(input)).toBe(expected);
        if (checked.ok) {
          expect(checked.value).toBe(input);
        }
      }
    },
  );
});
