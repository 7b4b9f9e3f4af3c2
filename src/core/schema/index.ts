/**
 * Tool input schemas: zod or JSON Schema in, JSON Schema out for the providers,
 * and argument validation before a tool runs. No code generation (no eval / new Function):
 * Workers forbid it, so JSON Schema is interpreted by @cfworker/json-schema.
 */
import { Validator, type OutputUnit, type Schema } from "@cfworker/json-schema";
import * as z from "zod";
import type { ZodType } from "zod";
import type { InputSchema, JsonSchema } from "../types";
import { flatObjectAcceptor } from "./flat-object";
import { flatJsonSchemaCheck } from "./flat-json-schema";

export type ValidateResult = { ok: true; value: unknown } | { ok: false; problems: string[] };

/** True for a zod (v4) schema; zod 3 schemas and plain objects are not. */
export function isZodSchema(x: unknown): x is ZodType {
  return (
    typeof x === "object" &&
    x !== null &&
    "_zod" in x &&
    typeof (x as { _zod: unknown })._zod === "object"
  );
}

/**
 * The JSON Schema a provider receives as the tool's `parameters`.
 * zod goes through `z.toJSONSchema` (input side, so fields with defaults are optional);
 * a JSON-Schema object is shallow-copied. `$schema` is dropped.
 * @example
 * toJsonSchema(z.object({ city: z.string() }));
 * // { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
 */
export function toJsonSchema(schema: InputSchema | undefined): JsonSchema {
  const source: JsonSchema = isZodSchema(schema)
    ? (z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema)
    : (schema ?? {});
  // A rest copy, not `delete`: deleting a key turns the object into a slow dictionary,
  // and every request body serializes this schema again (JSON.stringify's fast path needs
  // plain-shaped objects).
  const { $schema: _dropped, ...out } = source;
  if (out.type === undefined) {
    return { type: "object", properties: {}, ...out };
  }
  if (out.type === "object" && out.properties === undefined) {
    out.properties = {};
  }
  return out;
}

/**
 * Validates tool arguments. zod ⇒ `safeParse` (the value is the parsed one, with coercions
 * and defaults); JSON Schema ⇒ @cfworker/json-schema, draft 2020-12, every error reported.
 * @example
 * validateArgs({ type: "object", properties: { n: { type: "number" } } }, { n: "1" });
 * // { ok: false, problems: ['/n: Instance type "string" is invalid. Expected "number". (type)'] }
 */
export function validateArgs(schema: InputSchema, args: unknown): ValidateResult {
  return argsValidator(schema)(args);
}

/**
 * `validateArgs` for one schema, with the kind of schema settled once: tools build it when
 * they are defined, so a call does not ask again (the check runs on every tool call).
 */
export function argsValidator(schema: InputSchema): (args: unknown) => ValidateResult {
  if (isZodSchema(schema)) {
    const accept = flatObjectAcceptor(schema);
    return (args) => {
      const accepted = accept?.(args);
      if (accepted) {
        return { ok: true, value: accepted };
      }
      const parsed = z.safeParse(schema, args);
      if (parsed.success) {
        return { ok: true, value: parsed.data };
      }
      return {
        ok: false,
        problems: parsed.error.issues.map((issue) => {
          const path = issue.path.map((p) => String(p)).join(".");
          return `${path || "(root)"}: ${issue.message}`;
        }),
      };
    };
  }
  const accepts = flatJsonSchemaCheck(schema);
  return (args) => {
    if (accepts?.(args)) {
      return { ok: true, value: args };
    }
    // Built on first use, so a schema the validator rejects fails the call, not the definition.
    const result = validatorFor(schema).validate(args);
    if (result.valid) {
      return { ok: true, value: args };
    }
    return { ok: false, problems: describe(result.errors) };
  };
}

const validators = new WeakMap<object, Validator>();

function validatorFor(schema: JsonSchema): Validator {
  let validator = validators.get(schema);
  if (!validator) {
    validator = new Validator(schema as Schema, "2020-12", false);
    validators.set(schema, validator);
  }
  return validator;
}

// Keywords whose error only says "a child failed"; the child's own error is the useful one.
const WRAPPERS = new Set([
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
]);

function describe(errors: OutputUnit[]): string[] {
  const kept = errors.filter(
    (e) =>
      !WRAPPERS.has(e.keyword) ||
      !errors.some((d) => d !== e && d.instanceLocation.startsWith(`${e.instanceLocation}/`)),
  );
  const lines = kept.map((e) => {
    const message = e.keyword === "false" ? "Not allowed by the schema." : e.error;
    return `${pointer(e.instanceLocation)}: ${message} (${e.keyword})`;
  });
  return [...new Set(lines)];
}

// cfworker reports "#/a%20b"; show the JSON Pointer "/a b" (~0 and ~1 escapes kept).
function pointer(instanceLocation: string): string {
  const raw = instanceLocation.replace(/^#/, "");
  if (raw === "") {
    return "(root)";
  }
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
