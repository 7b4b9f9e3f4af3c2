/**
 * The commonest tool schema is a flat zod object of plain strings, numbers and booleans,
 * some optional. For exactly that shape, arguments are accepted here without a zod call:
 * the check runs on every tool call, between network waits where zod's code runs cold
 * and costs several microseconds a call. Anything this file cannot vouch for — another
 * schema shape, any check, refinement, coercion, default or transform, an argument that
 * does not pass — goes to zod, which stays the one source of errors and of every other
 * behaviour. `test/core/flat-object.test.ts` compares both over many inputs.
 */
import type { ZodType } from "zod";

type Primitive = "string" | "number" | "boolean";
interface Field {
  key: string;
  type: Primitive;
  optional: boolean;
}

/** What zod would return for `args`, or undefined when zod must decide. */
export type FlatAccept = (args: unknown) => Record<string, unknown> | undefined;

interface Def {
  type?: unknown;
  shape?: Record<string, { _zod?: { def?: Def } }>;
  checks?: unknown[];
  innerType?: { _zod?: { def?: Def } };
  [key: string]: unknown;
}

/** Keys a def may have and still be plain (zod 4 records more, e.g. `coerce`, `catchall`, `format`). */
const PLAIN_KEYS: Record<string, ReadonlySet<string>> = {
  object: new Set(["type", "shape", "checks"]),
  string: new Set(["type", "checks"]),
  number: new Set(["type", "checks"]),
  boolean: new Set(["type", "checks"]),
  optional: new Set(["type", "innerType"]),
};

function plainDef(def: Def | undefined, type: string): def is Def {
  if (!def || def.type !== type) {
    return false;
  }
  const allowed = PLAIN_KEYS[type];
  if (!allowed) {
    return false;
  }
  for (const key of Object.keys(def)) {
    if (!allowed.has(key) && def[key] !== undefined) {
      return false;
    }
  }
  return !def.checks || def.checks.length === 0;
}

function primitive(def: Def | undefined): Primitive | undefined {
  for (const type of ["string", "number", "boolean"] as const) {
    if (plainDef(def, type)) {
      return type;
    }
  }
  return undefined;
}

/** A fast acceptor for a flat object schema, or undefined when the schema is anything else. */
export function flatObjectAcceptor(schema: ZodType): FlatAccept | undefined {
  const def = (schema as unknown as { _zod?: { def?: Def } })._zod?.def;
  if (!plainDef(def, "object") || !def.shape) {
    return undefined;
  }
  const fields: Field[] = [];
  for (const key of Object.keys(def.shape)) {
    // Assigning "__proto__" on a plain object would set its prototype, not a key.
    if (key === "__proto__") {
      return undefined;
    }
    const fieldDef = def.shape[key]?._zod?.def;
    if (plainDef(fieldDef, "optional")) {
      const type = primitive(fieldDef.innerType?._zod?.def);
      if (!type) {
        return undefined;
      }
      fields.push({ key, type, optional: true });
      continue;
    }
    const type = primitive(fieldDef);
    if (!type) {
      return undefined;
    }
    fields.push({ key, type, optional: false });
  }
  return (args) => {
    if (typeof args !== "object" || args === null) {
      return undefined;
    }
    const proto = Object.getPrototypeOf(args);
    if (proto !== Object.prototype && proto !== null) {
      return undefined;
    }
    const input = args as Record<string, unknown>;
    // zod strips unknown keys and lists the known ones in shape order; an optional key
    // given as `undefined` stays, an absent one stays absent.
    const out: Record<string, unknown> = {};
    for (const field of fields) {
      const value = input[field.key];
      if (value === undefined && field.optional) {
        if (field.key in input) {
          out[field.key] = undefined;
        }
        continue;
      }
      if (typeof value !== field.type) {
        return undefined;
      }
      if (field.type === "number" && !Number.isFinite(value)) {
        return undefined;
      }
      out[field.key] = value;
    }
    return out;
  };
}
