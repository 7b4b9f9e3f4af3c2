/**
 * The JSON-Schema twin of flat-object.ts. MCP tools and many hand-written tools describe
 * their arguments as a flat JSON-Schema object: `properties` of plain strings, numbers,
 * integers and booleans (maybe an `enum`), some `required`, maybe `additionalProperties:
 * false`. For exactly that shape, arguments are accepted here without the interpreter:
 * the check runs on every tool call, between network waits where its code runs cold.
 * Anything this file cannot vouch for — another keyword, a nested schema, a `format`, an
 * argument that does not pass — goes to @cfworker/json-schema, which stays the one source
 * of errors. JSON Schema does not transform values, so an accepted value is the input
 * itself. `test/core/flat-json-schema.test.ts` compares both over many inputs.
 */
import type { JsonSchema } from "../types";

type Primitive = "string" | "number" | "integer" | "boolean";

interface Field {
  key: string;
  type: Primitive;
  /** Allowed values, when the property has an `enum` of primitives. */
  values?: ReadonlySet<unknown>;
}

/** Keywords with no effect on validation (annotations), at either level. */
const ANNOTATIONS = new Set([
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$comment",
]);
const OBJECT_KEYS = new Set(["type", "properties", "required", "additionalProperties", "$schema"]);
const FIELD_KEYS = new Set(["type", "enum"]);
const PRIMITIVES = new Set<unknown>(["string", "number", "integer", "boolean"]);

/** True when the value is accepted; false means "ask the validator". */
export type FlatCheck = (args: unknown) => boolean;

function onlyKeys(node: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key of Object.keys(node)) {
    if (!allowed.has(key) && !ANNOTATIONS.has(key)) {
      return false;
    }
  }
  return true;
}

const isPlainObject = (x: unknown): x is Record<string, unknown> => {
  if (typeof x !== "object" || x === null || Array.isArray(x)) {
    return false;
  }
  const proto = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null;
};

function field(key: string, node: unknown): Field | undefined {
  if (!isPlainObject(node) || !onlyKeys(node, FIELD_KEYS) || !PRIMITIVES.has(node.type)) {
    return undefined;
  }
  const type = node.type as Primitive;
  if (node.enum === undefined) {
    return { key, type };
  }
  // Only enums of strings, finite numbers and booleans: equality is then `===`.
  if (
    !Array.isArray(node.enum) ||
    !node.enum.every(
      (v) =>
        typeof v === "string" ||
        typeof v === "boolean" ||
        (typeof v === "number" && Number.isFinite(v)),
    )
  ) {
    return undefined;
  }
  return { key, type, values: new Set(node.enum) };
}

function typeMatches(type: Primitive, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return Number.isInteger(value);
    default: {
      const never: never = type;
      return never;
    }
  }
}

/** A fast check for a flat JSON-Schema object, or undefined when the schema is anything else. */
export function flatJsonSchemaCheck(schema: JsonSchema): FlatCheck | undefined {
  if (!isPlainObject(schema) || schema.type !== "object" || !onlyKeys(schema, OBJECT_KEYS)) {
    return undefined;
  }
  const { properties = {}, required = [], additionalProperties } = schema;
  if (
    !isPlainObject(properties) ||
    !Array.isArray(required) ||
    !required.every((k) => typeof k === "string") ||
    (additionalProperties !== undefined && typeof additionalProperties !== "boolean")
  ) {
    return undefined;
  }
  const fields: Field[] = [];
  for (const key of Object.keys(properties)) {
    const f = key === "__proto__" ? undefined : field(key, properties[key]);
    if (!f) {
      return undefined;
    }
    fields.push(f);
  }
  const known = new Set(fields.map((f) => f.key));
  const needed = (required as string[]).filter((k, i, all) => all.indexOf(k) === i);
  const closed = additionalProperties === false;

  return (args) => {
    if (!isPlainObject(args)) {
      return false;
    }
    for (let i = 0; i < needed.length; i++) {
      if (!Object.hasOwn(args, needed[i] as string)) {
        return false;
      }
    }
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i] as Field;
      if (!Object.hasOwn(args, f.key)) {
        continue;
      }
      const value = args[f.key];
      if (!typeMatches(f.type, value) || (f.values && !f.values.has(value))) {
        return false;
      }
    }
    if (closed) {
      for (const key in args) {
        if (!known.has(key)) {
          return false;
        }
      }
    }
    return true;
  };
}
