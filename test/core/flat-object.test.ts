/**
 * The flat-object fast path must say exactly what zod says whenever it says anything:
 * same acceptance, same output (keys, order, values). It may decline (zod then decides).
 */
import { describe, expect, it } from "vitest";
import { z, type ZodType } from "zod";
import { flatObjectAcceptor } from "../../src/core/schema/flat-object";
import { validateArgs } from "../../src/core/schema";

const flat: Array<[string, ZodType]> = [
  ["one string", z.object({ city: z.string().describe("City name") })],
  ["two numbers", z.object({ a: z.number(), b: z.number() })],
  [
    "mixed with optionals",
    z.object({ s: z.string(), n: z.number().optional(), b: z.boolean(), t: z.string().optional() }),
  ],
  ["no fields", z.object({})],
];

const notFlat: Array<[string, ZodType]> = [
  ["a string check", z.object({ s: z.string().min(1) })],
  ["an int", z.object({ n: z.int() })],
  ["a number check", z.object({ n: z.number().positive() })],
  ["coercion", z.object({ n: z.coerce.number() })],
  ["a default", z.object({ n: z.number().default(1) })],
  ["nullable", z.object({ n: z.number().nullable() })],
  ["an enum", z.object({ e: z.enum(["a", "b"]) })],
  ["a nested object", z.object({ o: z.object({ a: z.string() }) })],
  ["an array", z.object({ l: z.array(z.string()) })],
  ["strict", z.strictObject({ a: z.string() })],
  ["loose", z.looseObject({ a: z.string() })],
  ["a refinement", z.object({ a: z.string() }).refine((v) => v.a !== "x")],
  ["a transform", z.object({ a: z.string() }).transform((v) => v)],
  ["optional of optional", z.object({ a: z.string().optional().optional() })],
  ["a literal", z.object({ a: z.literal("x") })],
  ["not an object", z.string()],
  ["a __proto__ key", z.object({ ["__proto__"]: z.string() })],
];

const values: unknown[] = [
  "",
  "Paris",
  "ü 🚀",
  0,
  -0,
  1.5,
  -7,
  1e308,
  NaN,
  Infinity,
  -Infinity,
  true,
  false,
  null,
  undefined,
  {},
  [],
  ["x"],
  { a: 1 },
];

/** Inputs for a schema: every field × every value, plus missing, extra and odd keys, and non-objects. */
function inputs(keys: string[]): unknown[] {
  const base: Record<string, unknown> = {
    s: "x",
    n: 1,
    b: true,
    t: "y",
    city: "Paris",
    a: 1,
    bb: 2,
  };
  const out: unknown[] = [
    null,
    undefined,
    "str",
    42,
    [],
    [1],
    Object.create(null),
    Object.create({ city: "Paris" }),
    new Date(0),
  ];
  out.push({ ...base });
  out.push({ ...base, extra: "dropped", another: { deep: 1 } });
  out.push(JSON.parse('{"__proto__": {"polluted": 1}, "city": "Paris", "a": 1, "b": 2, "s": "x"}'));
  for (const key of keys) {
    const missing = { ...base };
    delete missing[key];
    out.push(missing);
    for (const value of values) {
      out.push({ ...base, [key]: value });
    }
  }
  const nullProto = Object.assign(Object.create(null), base);
  out.push(nullProto);
  return out;
}

function keysOf(schema: ZodType): string[] {
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape;
  return shape ? Object.keys(shape) : [];
}

describe("flat-object fast path", () => {
  it.each(flat)("agrees with zod on every input it accepts: %s", (_name, schema) => {
    const accept = flatObjectAcceptor(schema);
    expect(accept).toBeDefined();
    let accepted = 0;
    for (const input of inputs([...keysOf(schema), "zzz"])) {
      const fast = accept!(input);
      if (fast === undefined) {
        continue;
      }
      accepted += 1;
      const slow = z.safeParse(schema, input);
      expect(
        slow.success,
        `zod refuses what the fast path accepted: ${JSON.stringify(input)}`,
      ).toBe(true);
      expect(Object.keys(fast)).toEqual(Object.keys(slow.data as object));
      expect(fast).toEqual(slow.data);
      expect(fast).not.toBe(input);
    }
    // The fast path must actually be taken, not always decline.
    expect(accepted).toBeGreaterThan(0);
  });

  it("accepts a valid input without zod and returns a stripped copy", () => {
    const accept = flatObjectAcceptor(z.object({ a: z.number(), b: z.number() }))!;
    expect(accept(JSON.parse('{"b":2,"a":40,"c":"x"}'))).toEqual({ a: 40, b: 2 });
    expect(Object.keys(accept({ b: 2, a: 40 })!)).toEqual(["a", "b"]);
  });

  it("keeps an optional key given as undefined, leaves an absent one absent", () => {
    const accept = flatObjectAcceptor(z.object({ a: z.number().optional() }))!;
    expect("a" in accept({ a: undefined })!).toBe(true);
    expect("a" in accept({})!).toBe(false);
  });

  it.each(notFlat)("declines schemas it cannot vouch for: %s", (_name, schema) => {
    expect(flatObjectAcceptor(schema)).toBeUndefined();
  });

  it.each([...flat, ...notFlat])(
    "validateArgs gives zod's answer, fast path or not: %s",
    (_name, schema) => {
      for (const input of inputs([...keysOf(schema), "zzz"])) {
        const slow = z.safeParse(schema, input);
        const checked = validateArgs(schema, input);
        expect(checked.ok, JSON.stringify(input)).toBe(slow.success);
        if (checked.ok && slow.success) {
          expect(checked.value).toEqual(slow.data);
        }
      }
    },
  );
});
